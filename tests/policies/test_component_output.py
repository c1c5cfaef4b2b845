"""The pack over real component output, captured by the offline engine.

Fixtures here are not hand-written: each is what our components register, so a change
in a backend that a rule no longer understands fails here.
"""

from __future__ import annotations

from collections import Counter

import pytest
from nodepools import GpuSpotPool, MachinePool, OkeClusterAutoscaler
from nodepools.offline import run
from nodepools.planning.policy_section import policy_inputs
from nodepools.policies.runner import run_policies

from tests.conftest import EKS, OKE


def violations(program, config=None) -> Counter:
    capture = run(program)
    found = run_policies(policy_inputs(capture), config=config)
    return Counter((v.policy_name, v.enforcement_level.value) for v in found)


def test_well_formed_pools_are_clean():
    def program():
        GpuSpotPool("gpu-eks", {"cluster": EKS, "instance_type": "g5.xlarge"})
        oke = GpuSpotPool("gpu-oke", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"})
        OkeClusterAutoscaler.for_pools("oke-autoscaler", [oke])
        MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 2})
        MachinePool(
            "bm",
            {
                "cluster": OKE,
                "instance_type": "BM.GPU.A10.4",
                "replicas": 1,
                "boot_volume_gb": 500,
                "taints": ["nvidia.com/gpu=true:NoSchedule"],
            },
        )

    assert violations(program) == Counter()


def test_an_autoscaled_oke_pool_without_its_autoscaler_is_a_finding():
    """Issue 29 item 13: an autoscaled GpuSpotPool on OKE in a program with no autoscaler plans
    with a finding naming the fix (a fleet makes the add-on itself)."""
    capture = run(lambda: GpuSpotPool("gpu-oke", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"}))
    [finding] = run_policies(policy_inputs(capture))
    assert (finding.policy_name, finding.enforcement_level.value) == (
        "oke-pool-autoscaler",
        "advisory",
    )
    assert "'gpu-oke' is autoscaled (0..3)" in finding.message
    assert "OkeClusterAutoscaler.for_pools" in finding.message


@pytest.mark.parametrize("cluster", [EKS, OKE], ids=["eks", "oke"])
def test_untainted_accelerator_pool_is_a_mandatory_violation(cluster):
    shape = "g5.xlarge" if cluster is EKS else "VM.GPU.A10.1"
    found = violations(
        lambda: MachinePool("gpu", {"cluster": cluster, "instance_type": shape, "replicas": 1})
    )
    assert found == Counter({("accelerator-pool-tainted", "mandatory"): 1})


def test_spot_pool_without_spot_taint_is_advisory():
    found = violations(
        lambda: MachinePool(
            "gpu",
            {
                "cluster": EKS,
                "instance_type": "g5.xlarge",
                "replicas": 1,
                "spot": {},
                "taints": ["nvidia.com/gpu=true:NoSchedule"],
            },
        )
    )
    assert found == Counter({("spot-pool-tainted", "advisory"): 1})


def test_bare_metal_pool_without_boot_volume():
    # Accelerator pools get a boot volume by default; a CPU bare-metal pool does not.
    found = violations(
        lambda: MachinePool(
            "bm", {"cluster": OKE, "instance_type": "BM.Standard.E4.128", "replicas": 1}
        )
    )
    assert found == Counter({("bare-metal-boot-volume", "mandatory"): 1})


def test_autoscaling_ceiling_and_its_config():
    def program():
        MachinePool(
            "big",
            {
                "cluster": EKS,
                "instance_type": "m5.large",
                "autoscaling": {"min_replicas": 0, "max_replicas": 500},
            },
        )

    assert violations(program) == Counter({("autoscaling-max-nodes", "mandatory"): 1})
    assert violations(program, {"autoscaling-max-nodes": {"maxNodes": 1000}}) == Counter()


def test_restricted_label_domain_is_refused_before_the_pack_sees_it():
    # The component and the pack agree: the spec refuses the label (with its path), and the
    # pack's `restricted-label-domains` still guards hand-written node groups.
    from nodepools.offline import ProgramError

    with pytest.raises(ProgramError) as caught:
        run(
            lambda: MachinePool(
                "cpu",
                {
                    "cluster": EKS,
                    "instance_type": "m5.large",
                    "replicas": 1,
                    "labels": {"node-role.kubernetes.io/gpu": ""},
                },
            )
        )
    assert caught.value.cause.paths() == ['labels["node-role.kubernetes.io/gpu"]']


KARPENTER_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def test_karpenter_pool_without_limits_is_an_advisory_violation():
    from nodepools import KarpenterNodePool

    def program(limits, families=("m5", "c5")):
        args = {"node_class": KARPENTER_CLASS, "instance_families": list(families)}
        return lambda: KarpenterNodePool("cpu", {**args, **({"limits": limits} if limits else {})})

    # Karpenter accepts a NodePool without limits, and many clusters bound spend elsewhere:
    # the component accepts it and the pack warns, for CPU and GPU pools alike.
    assert violations(program(None)) == Counter({("karpenter-limits", "advisory"): 1})
    assert violations(program({"cpu": 100, "memory": "400Gi"})) == Counter()
    gpu = program({"cpu": 100, "memory": "400Gi"}, families=("g5",))
    assert violations(gpu) == Counter({("karpenter-limits", "advisory"): 1})


# Requirement combinations, from accelerator-only to CPU-only.
KARPENTER_REQUIREMENTS = {
    "accelerator types": {"instance_types": ["g5.12xlarge"]},
    "accelerator families": {"instance_families": ["g5", "g6"]},
    "gpu category": {"instance_categories": ["g"]},
    "gpu count": {"gpu_count": 1},
    "neuron names": {"neuron_names": ["trainium"]},
    "gpu and cpu families": {"instance_families": ["g5", "m5"]},
    "gpu and cpu types": {"instance_types": ["g5.xlarge", "m5.large"]},
    "gpu and cpu categories": {"instance_categories": ["g", "m"]},
    "neuron and cpu categories": {"instance_categories": ["inf", "c"]},
    "gpu beside a cpu pin": {"instance_types": ["m5.large"], "instance_families": ["g5", "m5"]},
    "two accelerators and cpu": {"instance_types": ["g5.xlarge", "trn1.2xlarge", "m5.large"]},
    "no constraints": {},
    "cpu families": {"instance_families": ["m5", "c5"]},
    "cpu categories": {"instance_categories": ["c", "m", "r"]},
}
# What a pool author may add: nothing, the accelerator limit, the taint as well.
KARPENTER_EXTRAS = {
    "bare": {},
    "gpu limit": {"limits": {"nvidia.com/gpu": 8}},
    "neuron limit": {"limits": {"aws.amazon.com/neuron": 16}},
    "gpu taint and limit": {
        "taints": ["nvidia.com/gpu=true:NoSchedule"],
        "limits": {"nvidia.com/gpu": 8},
    },
    "neuron taint and limit": {
        "taints": ["aws.amazon.com/neuron=true:NoSchedule"],
        "limits": {"aws.amazon.com/neuron": 16},
    },
}


# Pools that must be accepted: accelerator-only ones get the taint by default, pools that
# may also launch CPU instances list it; both bound the accelerator.
KARPENTER_ACCEPTED = {
    ("accelerator types", "gpu limit"),
    ("accelerator families", "gpu limit"),
    ("gpu category", "gpu limit"),
    ("gpu count", "gpu limit"),
    ("neuron names", "neuron limit"),
    ("gpu and cpu families", "gpu taint and limit"),
    ("gpu and cpu types", "gpu taint and limit"),
    ("gpu beside a cpu pin", "gpu taint and limit"),
    ("neuron and cpu categories", "neuron taint and limit"),
    *((cpu, extras) for cpu in ("no constraints", "cpu families", "cpu categories") for extras in KARPENTER_EXTRAS),
}  # fmt: skip


@pytest.mark.parametrize("extras", KARPENTER_EXTRAS, ids=str)
@pytest.mark.parametrize("requirements", KARPENTER_REQUIREMENTS, ids=str)
def test_karpenter_component_and_pack_agree_on_accelerators(requirements, extras):
    """The component refuses a pool at construction, or the pack finds nothing mandatory.

    cpu and memory limits are always given: a pool with no limits at all is the one case
    the pack's `karpenter-limits` refuses and the component leaves to policy (see above).
    """
    from nodepools import KarpenterNodePool
    from nodepools.offline import ProgramError
    from nodepools.specs import SpecError

    more = KARPENTER_EXTRAS[extras]
    limits = {"cpu": 256, "memory": "1024Gi", **more.get("limits", {})}
    args = {
        "node_class": KARPENTER_CLASS,
        **KARPENTER_REQUIREMENTS[requirements],
        **more,
        "limits": limits,
    }
    try:
        capture = run(lambda: KarpenterNodePool("pool", args))
    except ProgramError as error:
        assert isinstance(error.cause, SpecError), error.cause
        assert (requirements, extras) not in KARPENTER_ACCEPTED, error.cause
        return
    found = run_policies(policy_inputs(capture))
    assert [
        (v.policy_name, v.message) for v in found if v.enforcement_level.value == "mandatory"
    ] == []
