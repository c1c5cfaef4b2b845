"""A declared `accelerator` must agree with what the catalog knows the pool's instance
types carry (issue 29 item 2): every pool kind and cloud, mixes, shared-pool descriptions
and recipes. Types the catalog lacks keep the warning and take what they are given."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import GpuSpotPool, MachinePool, SharedNodePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError
from nodepools.specs.pools.shared import SharedPoolDescription
from nodepools.specs.workloads.recipe import RecipeArgs

from tests.conftest import EKS, OKE

ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
NVIDIA_4 = {"resource": "nvidia.com/gpu", "count": 4}


def issues(component: Any, args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        component.resolve("pool", args)
    return {issue.path: issue.message for issue in raised.value.issues}


@pytest.mark.parametrize(
    ("component", "args"),
    [
        (GpuSpotPool, {"cluster": EKS, "instance_type": "c5.xlarge"}),
        (MachinePool, {"cluster": EKS, "instance_type": "m5.large", "replicas": 1}),
        (MachinePool, {"cluster": ROSA, "instance_type": "m5.xlarge", "replicas": 1}),
        (
            SharedNodePool,
            {
                "cluster": OKE,
                "shape": "VM.Standard.E4.Flex",
                "ocpus": 4,
                "memory_gb": 32,
                "size": 1,
            },
        ),
    ],
    ids=["gpu-spot-eks", "machine-eks", "machine-rosa", "shared-oke"],
)
def test_accelerators_on_a_cpu_type_are_refused(component: Any, args: dict[str, Any]):
    name = args.get("instance_type") or args["shape"]
    found = issues(component, {**args, "accelerator": NVIDIA_4})
    assert found["accelerator"].startswith(
        f"{{'resource': 'nvidia.com/gpu', 'count': 4}} can't be used: {name!r} has no "
        "accelerators (instance catalog)"
    )


def test_a_count_the_type_lacks_is_refused():
    found = issues(
        MachinePool,
        {"cluster": EKS, "instance_type": "g5.2xlarge", "replicas": 1, "accelerator": NVIDIA_4},
    )
    assert found == {
        "accelerator.count": "4 is not the 1 a node has (g5.2xlarge has 1 nvidia A10G "
        "(`nvidia.com/gpu`)): the pool would promise devices no node advertises (or hide "
        "some it has); give 1, or leave `accelerator` out"
    }


def test_another_makers_accelerator_is_refused():
    amd = {"resource": "amd.com/gpu", "count": 1, "vendor": "amd"}
    found = issues(GpuSpotPool, {"cluster": EKS, "instance_type": "g5.2xlarge", "accelerator": amd})
    assert sorted(found) == ["accelerator.resource", "accelerator.vendor"]
    assert found["accelerator.resource"].startswith("'amd.com/gpu' is not what the pool's")
    assert found["accelerator.vendor"].startswith("'amd' is not the maker")


def test_a_mix_promises_what_every_type_has():
    mix = {"cluster": EKS, "instance_types": ["g5.xlarge", "g5.12xlarge"], "replicas": 1}
    found = issues(MachinePool, {**mix, "accelerator": NVIDIA_4})
    assert "4 is not the 1 every type of the mix has at least" in found["accelerator.count"]
    assert "g5.12xlarge has 4" in found["accelerator.count"]
    one = {"resource": "nvidia.com/gpu", "count": 1}
    assert MachinePool.resolve("pool", {**mix, "accelerator": one}).accelerator.count == 1
    cpu = {**mix, "instance_types": ["g5.xlarge", "m5.xlarge"]}
    with pytest.raises(SpecError):  # the mix itself is refused, and the accelerator with it
        MachinePool.resolve("pool", {**cpu, "accelerator": one})


def test_a_declared_accelerator_that_agrees_keeps_the_catalogs_maker_and_model():
    pool = MachinePool.resolve(
        "pool",
        {"cluster": EKS, "instance_type": "p5.48xlarge", "replicas": 1,
         "accelerator": {"resource": "nvidia.com/gpu", "count": 8}},
    )  # fmt: skip
    assert (pool.accelerator.vendor, pool.accelerator.model) == ("nvidia", "H100")


def test_types_the_catalog_lacks_take_the_given_accelerator_and_warn():
    given = {"cluster": EKS, "instance_type": "m99.large", "replicas": 1, "accelerator": NVIDIA_4}
    assert MachinePool.resolve("pool", given).accelerator.count == 4
    # An accelerated family's type the catalog has no accelerator record of (Qualcomm).
    dl2q = {**given, "instance_type": "dl2q.24xlarge"}
    assert MachinePool.resolve("pool", dl2q).accelerator.count == 4
    capture = run(
        lambda: MachinePool("pool", {"cluster": EKS, "instance_type": "m99.large", "replicas": 1})
    )
    assert any("not in the nodepools catalog" in m for s, m in capture.logs if s == "warning")


def test_a_shared_pool_description_agrees_with_the_catalog():
    with pytest.raises(SpecError, match=r"can't be advertised by 'm5\.large': it has no"):
        SharedPoolDescription(
            name="a", shape="m5.large", size=1, gpus_per_node=4, accelerator_resource=NVIDIA_4["resource"]
        )  # fmt: skip
    with pytest.raises(SpecError, match=r"its accelerators are 4 nvidia A10G"):
        SharedPoolDescription(
            name="a", shape="g5.12xlarge", size=1, accelerator_resource="amd.com/gpu"
        )
    # Device software may cut the GPUs into MIG slices: same maker, other resource and count.
    sliced = SharedPoolDescription(
        name="a", shape="g5.12xlarge", size=1, gpus_per_node=28,
        accelerator_resource="nvidia.com/mig-1g.5gb",
    )  # fmt: skip
    assert sliced.total_gpus == 28


def test_a_recipe_asks_for_what_its_shape_carries():
    with pytest.raises(SpecError, match=r"`amd.com/gpu` can't be advertised by 'g5.xlarge'"):
        RecipeArgs(image="app", node_shape="g5.xlarge", accelerator_resource="amd.com/gpu")
    asked = RecipeArgs(image="app", node_shape="g5.xlarge", accelerator_resource="nvidia.com/gpu")
    assert asked.accelerator_resource == "nvidia.com/gpu"


def test_what_a_pool_advertises_is_of_its_accelerators_maker():
    base = {"cluster": EKS, "instance_type": "p5.48xlarge", "replicas": 1}
    found = issues(MachinePool, {**base, "advertised": {"resource": "amd.com/gpu", "count": 8}})
    assert "the pool's accelerators are `nvidia.com/gpu`" in found["advertised"]
    mig = {"resource": "nvidia.com/mig-1g.10gb", "count": 56}
    assert MachinePool.resolve("pool", {**base, "advertised": mig}).node_accelerator.count == 56
