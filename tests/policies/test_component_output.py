"""The pack over real component output, captured by the offline engine.

Fixtures here are not hand-written: each is what our components register, so a change
in a backend that a rule no longer understands fails here.
"""

from __future__ import annotations

from collections import Counter

import pytest

from components import GpuSpotPool, MachinePool
from components.offline import run
from components.planning.policy_section import policy_inputs
from policies.runner import run_policies
from tests.conftest import EKS, OKE


def violations(program, config=None) -> Counter:
    capture = run(program)
    found = run_policies(policy_inputs(capture), config=config)
    return Counter((v.policy_name, v.enforcement_level.value) for v in found)


def test_well_formed_pools_are_clean():
    def program():
        GpuSpotPool("gpu-eks", {"cluster": EKS, "instance_type": "g5.xlarge"})
        GpuSpotPool("gpu-oke", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"})
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
    found = violations(
        lambda: MachinePool(
            "bm",
            {
                "cluster": OKE,
                "instance_type": "BM.GPU.H100.8",
                "replicas": 1,
                "taints": ["nvidia.com/gpu=true:NoSchedule"],
            },
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


def test_restricted_label_domain():
    found = violations(
        lambda: MachinePool(
            "cpu",
            {
                "cluster": EKS,
                "instance_type": "m5.large",
                "replicas": 1,
                "labels": {"karpenter.sh/nodepool": "x"},
            },
        )
    )
    assert found == Counter({("restricted-label-domains", "mandatory"): 1})


KARPENTER_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def test_karpenter_pool_without_limits_is_a_mandatory_violation():
    from components import KarpenterNodePool

    def program(limits):
        args = {"node_class": KARPENTER_CLASS, "instance_types": ["g5.12xlarge"]}
        return lambda: KarpenterNodePool("gpu", {**args, **({"limits": limits} if limits else {})})

    assert violations(program(None)) == Counter({("karpenter-limits", "mandatory"): 1})
    # Limits on cpu only still leave the GPUs unbounded.
    assert violations(program({"cpu": 100})) == Counter({("karpenter-limits", "mandatory"): 1})
    assert violations(program({"cpu": 100, "memory": "400Gi", "nvidia.com/gpu": 8})) == Counter()
