"""KarpenterNodePool args that Karpenter (v1.14.1) would accept but never act on as meant,
refused before anything is registered; and the accelerator a pool's GPU names and count
requirements really describe."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import MachinePool
from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import ProgramError, run
from nodepools.pools.karpenter_node_pool import karpenter_scheduling, prepare_pool
from nodepools.specs import SpecError

from tests.conftest import EKS

NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}
GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
NEURON_COUNT = "karpenter.k8s.aws/instance-accelerator-count"


def pool(**args: Any) -> Any:
    checked, _ = prepare_pool({"node_class": NODE_CLASS, **args}, "pool", "pool")
    return checked


def problems(**args: Any) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        prepare_pool({"node_class": NODE_CLASS, **args}, "pool", "pool")
    return {issue.path: issue.message for issue in caught.value.issues}


def requirement(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


def requirements_of(checked: Any) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {r.key: (r.operator, r.values) for r in checked.requirements}


# --- one EC2NodeClass name per cluster ---------------------------------------------------


def karpenter_entry(name: str, **args: Any) -> dict[str, Any]:
    return {"component": "KarpenterNodePool", "name": name, "instance_families": ["m5"], **args}


def fleet_problems(*pools: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        validate_fleet({"pools": list(pools)})
    return {issue.path: issue.message for issue in caught.value.issues}


def test_two_pools_may_not_create_node_classes_of_one_name():
    found = fleet_problems(
        karpenter_entry("a", node_class={**NODE_CLASS, "name": "shared"}),
        karpenter_entry("b", node_class={**NODE_CLASS, "name": "shared", "boot_volume_gb": 100}),
    )
    assert list(found) == ["nodepools:pools[1].node_class.name"]
    message = found["nodepools:pools[1].node_class.name"]
    assert "EC2NodeClass 'shared' (its `node_class.name`) is already created" in message
    assert "by nodepools:pools[0] (entry 'a', its `node_class.name`)" in message
    assert "AlreadyExists" in message
    assert "`node_class_name: shared`" in message


def test_an_explicit_class_name_may_not_be_another_pools_default_one():
    # Pool a's class is named after the pool; pool b names its class `a` explicitly.
    found = fleet_problems(
        karpenter_entry("a", node_class=NODE_CLASS),
        karpenter_entry("b", node_class={**NODE_CLASS, "name": "a"}),
    )
    assert (
        "by nodepools:pools[0] (entry 'a', named after its pool)"
        in (found["nodepools:pools[1].node_class.name"])
    )
    # The other way round: the defaulted name is the one at fault, at the entry's name.
    found = fleet_problems(
        karpenter_entry("x", node_class={**NODE_CLASS, "name": "b"}),
        karpenter_entry("b", node_class=NODE_CLASS),
    )
    assert "EC2NodeClass 'b' (named after its pool)" in found["nodepools:pools[1].name"]
    # ... or at its `pool_name`, when that names the pool.
    found = fleet_problems(
        karpenter_entry("x", node_class={**NODE_CLASS, "name": "b"}),
        karpenter_entry("y", pool_name="b", node_class=NODE_CLASS),
    )
    assert list(found) == ["nodepools:pools[1].pool_name"]


def test_a_duplicate_node_class_registers_nothing():
    config = {
        "pools": [
            karpenter_entry("a", node_class={**NODE_CLASS, "name": "shared"}),
            karpenter_entry("b", node_class={**NODE_CLASS, "name": "shared"}),
        ]
    }
    with pytest.raises(ProgramError) as caught:
        run(lambda: deploy_fleet(config))
    assert caught.value.capture.resources == []
    assert caught.value.cause.paths() == ["nodepools:pools[1].node_class.name"]


def test_pools_may_share_a_class_by_name():
    entries, _ = validate_fleet(
        {
            "pools": [
                karpenter_entry("a", node_class={**NODE_CLASS, "name": "shared"}),
                karpenter_entry("b", node_class_name="shared"),
                karpenter_entry("c", node_class_name="shared"),
                karpenter_entry("d", node_class={**NODE_CLASS, "name": "other"}),
            ]
        }
    )
    assert [entry.name for entry in entries] == ["a", "b", "c", "d"]


# --- EFA with the node class's own network interfaces ------------------------------------

PRIMARY = {"network_card_index": 0, "device_index": 0, "interface_type": "interface"}
EFA_ONLY = {"network_card_index": 1, "device_index": 0, "interface_type": "efa-only"}


def test_efa_with_interfaces_but_no_efa_only_one_is_refused():
    # Karpenter's efas(): listed interfaces override what the type offers, counting only
    # the efa-only ones; here 0, so no EFA pod could ever be scheduled.
    found = problems(
        node_class={**NODE_CLASS, "network_interfaces": [PRIMARY]},
        instance_types=["p5.48xlarge"],
        limits={"nvidia.com/gpu": 8},
        efa=True,
    )
    message = found["node_class.network_interfaces"]
    assert "lists no 'efa-only' interface (['interface']) but `efa` is true" in message
    assert "vpc.amazonaws.com/efa" in message
    # Without pinned types too: Karpenter offers 0 EFA on every type.
    assert "node_class.network_interfaces" in problems(
        node_class={**NODE_CLASS, "network_interfaces": [PRIMARY]}, efa=True
    )


def test_efa_with_an_efa_only_interface_or_no_interfaces_is_accepted():
    with_efa = pool(
        node_class={**NODE_CLASS, "network_interfaces": [PRIMARY, EFA_ONLY]},
        instance_types=["p5.48xlarge"],
        limits={"nvidia.com/gpu": 8},
        efa=True,
    )
    assert karpenter_scheduling(with_efa).limits["vpc.amazonaws.com/efa"] == 1
    pool(instance_types=["p5.48xlarge"], limits={"nvidia.com/gpu": 8}, efa=True)
    # Interfaces without EFA on a pool that doesn't ask for it are fine.
    pool(node_class={**NODE_CLASS, "network_interfaces": [PRIMARY]}, instance_families=["m5"])


# --- architectures against pinned types and families -------------------------------------


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        (
            {"instance_types": ["trn1.2xlarge"], "architectures": ["arm64"]},
            "instance_types",
            "['trn1.2xlarge']: none of them runs on `architectures` ['arm64'] "
            "(trn1.2xlarge is amd64)",
        ),
        (
            {"instance_types": ["g5g.xlarge"], "architectures": ["amd64"]},
            "instance_types",
            "(g5g.xlarge is arm64)",
        ),
        (
            {"instance_families": ["g5g"], "architectures": ["amd64"]},
            "instance_families",
            "['g5g']: none of them runs on `architectures` ['amd64'] (g5g is arm64)",
        ),
        (
            {
                "instance_families": ["g5g"],
                "requirements": [requirement("kubernetes.io/arch", "In", "amd64")],
            },
            "instance_families",
            "(g5g is arm64)",
        ),
        (
            {
                "requirements": [
                    requirement("node.kubernetes.io/instance-type", "In", "c7g.large")
                ],
                "architectures": ["amd64"],
            },
            "requirements[0].values",
            "(c7g.large is arm64)",
        ),
    ],
)
def test_architectures_no_pinned_type_runs_on_are_refused(args, path, fragment):
    found = problems(**args)
    assert fragment in found[path]
    assert "no instance type can satisfy the pool" in found[path]


def test_architectures_some_pinned_type_runs_on_are_accepted():
    pool(instance_types=["g5g.xlarge", "g5.xlarge"], architectures=["arm64"])
    pool(instance_families=["g5g"], architectures=["arm64", "amd64"])
    pool(instance_families=["c7g", "m5"], architectures=["amd64"])


# --- AMD GPU names ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        {"gpu_names": ["radeon-pro-v520"]},
        {"requirements": [requirement("karpenter.k8s.aws/instance-gpu-name", "In", "radeon-pro-v520")]},
    ],
    ids=["arg", "requirement"],
)  # fmt: skip
def test_amd_gpu_names_make_an_amd_pool(args):
    checked = pool(**args, limits={"amd.com/gpu": 4})
    assert checked.profile.resource == "amd.com/gpu"
    # No `instance-gpu-manufacturer In [nvidia]`, which no Radeon instance could satisfy.
    assert "karpenter.k8s.aws/instance-gpu-manufacturer" not in requirements_of(checked)
    assert [str(t) for t in checked.taints] == ["amd.com/gpu=true:NoSchedule"]
    assert karpenter_scheduling(checked).limits == {"amd.com/gpu": 1}
    # A limit on the GPU it does not launch is the one refused.
    assert (
        "nvidia.com/gpu"
        in problems(**args, limits={"nvidia.com/gpu": 4})['limits["nvidia.com/gpu"]']
    )


def test_gpu_names_of_two_makers_are_refused():
    found = problems(gpu_names=["a10g", "radeon-pro-v520"])
    assert found["gpu_names"] == (
        "mixes accelerator resources: a10g (nvidia.com/gpu), radeon-pro-v520 (amd.com/gpu); "
        "use one pool per resource"
    )


def test_nvidia_and_unknown_gpu_names_still_narrow_to_nvidia():
    for names in (["a10g"], ["some-future-gpu"]):
        checked = pool(gpu_names=names, limits={"nvidia.com/gpu": 4})
        assert checked.profile.resource == "nvidia.com/gpu"
        assert requirements_of(checked)["karpenter.k8s.aws/instance-gpu-manufacturer"] == (
            "In",
            ("nvidia",),
        )


# --- count requirements: bounds are not exact counts ----------------------------------------


def test_a_lower_bound_keeps_the_pinned_types_that_meet_it():
    checked = pool(
        instance_types=["p4d.24xlarge", "p5.48xlarge"],
        requirements=[requirement(GPU_COUNT, "Gt", "4")],
        limits={"nvidia.com/gpu": 16},
    )
    assert checked.profile.counts == (8,)
    assert karpenter_scheduling(checked).limits == {"nvidia.com/gpu": 8}
    # Only the types with an admitted count decide the request and the limit step.
    checked = pool(
        instance_types=["g5.xlarge", "g5.12xlarge", "g5.48xlarge"],
        requirements=[requirement(GPU_COUNT, "Gte", "2")],
        limits={"nvidia.com/gpu": 12},
    )
    assert checked.profile.counts == (4, 8)
    assert karpenter_scheduling(checked).limits == {"nvidia.com/gpu": 4}
    checked = pool(
        instance_types=["trn1.2xlarge", "trn1.32xlarge"],
        requirements=[requirement(NEURON_COUNT, "Gte", "2")],
        limits={"aws.amazon.com/neuron": 32},
    )
    assert checked.profile.counts == (16,)


def test_a_bound_without_pinned_types_claims_no_per_node_count():
    # No g5 has 2 GPUs (1, 4 or 8): `Gt 1` must not become "2 per node".
    checked = pool(
        instance_families=["g5"],
        requirements=[requirement(GPU_COUNT, "Gt", "1")],
        limits={"nvidia.com/gpu": 3},
    )
    assert checked.profile.counts == ()
    assert karpenter_scheduling(checked).limits == {"nvidia.com/gpu": 1}
    assert checked.summary()["acceleratorsPerNode"] is None


def test_a_bound_no_pinned_type_meets_is_refused():
    found = problems(
        instance_types=["g5.xlarge", "g5.2xlarge"],
        requirements=[requirement(GPU_COUNT, "Gt", "4")],
    )
    assert found["requirements[0].values"] == (
        "a count of at least 5 matches none of `instance_types` (g5.2xlarge has 1, g5.xlarge has 1)"
    )


def test_exists_on_the_count_key_admits_every_pinned_type():
    checked = pool(
        instance_types=["g5.12xlarge"],
        requirements=[{"key": GPU_COUNT, "operator": "Exists"}],
        limits={"nvidia.com/gpu": 8},
    )
    assert checked.profile.counts == (4,)


def test_in_counts_one_value_is_exact_several_are_the_possible_counts():
    checked = pool(requirements=[requirement(GPU_COUNT, "In", "4")], limits={"nvidia.com/gpu": 8})
    assert checked.profile.counts == (4,)
    checked = pool(
        requirements=[requirement(GPU_COUNT, "In", "4", "8")], limits={"nvidia.com/gpu": 12}
    )
    assert checked.profile.counts == (4, 8)
    assert karpenter_scheduling(checked).limits == {"nvidia.com/gpu": 4}
    # Bounds narrow listed values: In [1, 4, 8] and Gt 2 leave 4 and 8.
    checked = pool(
        requirements=[
            requirement(GPU_COUNT, "In", "1", "4", "8"),
            requirement(GPU_COUNT, "Gt", "2"),
        ],
        limits={"nvidia.com/gpu": 12},
    )
    assert checked.profile.counts == (4, 8)


# --- fractional GPUs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        ({"instance_types": ["g6f.xlarge"]}, "instance_types", "['g6f.xlarge'] carry fractional GPUs (g6f.xlarge: L4-3Q)"),
        ({"instance_types": ["gr6f.4xlarge", "g6.xlarge"]}, "instance_types", "['gr6f.4xlarge'] carry fractional GPUs"),
        ({"instance_families": ["g6f"]}, "instance_families", "['g6f'] are fractional-GPU families"),
        ({"instance_families": ["gr6f", "g6"]}, "instance_families", "['gr6f'] are fractional-GPU families"),
        ({"requirements": [requirement("node.kubernetes.io/instance-type", "In", "g6f.large")]}, "requirements[0].values", "['g6f.large'] carry fractional GPUs"),
        ({"requirements": [requirement("karpenter.k8s.aws/instance-family", "In", "g6f")]}, "requirements[0].values", "['g6f'] are fractional-GPU families"),
    ],
)  # fmt: skip
def test_fractional_gpu_types_are_refused(args, path, fragment):
    found = problems(**args, limits={"nvidia.com/gpu": 4})
    assert fragment in found[path]
    assert "Karpenter counts 0 GPUs for fractional-GPU instances" in found[path]
    assert "aws/karpenter-provider-aws#8368" in found[path]


def test_whole_gpu_neighbours_of_fractional_families_are_accepted():
    assert pool(instance_families=["g6", "gr6"], limits={"nvidia.com/gpu": 4}).profile.resource
    assert pool(instance_categories=["g"], limits={"nvidia.com/gpu": 4}).profile.resource


def test_an_eks_machine_pool_still_takes_fractional_gpus():
    capture = run(
        lambda: MachinePool(
            "fractional",
            {
                "cluster": EKS,
                "instance_type": "g6f.xlarge",
                "replicas": 1,
                "taints": ["nvidia.com/gpu=true:NoSchedule"],
            },
        )
    )
    assert "aws:eks/nodeGroup:NodeGroup" in [r.type for r in capture.resources]
