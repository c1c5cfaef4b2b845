"""Bad inputs that used to get through: each refused with its path, before any registration."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from hypothesis import given
from hypothesis import strategies as st
from nodepools.pools.gpu_spot_pool import GpuSpotPool
from nodepools.pools.karpenter_node_pool import KarpenterNodePool
from nodepools.pools.machine_pool import MachinePool
from nodepools.pools.shared_node_pool import SharedNodePool
from nodepools.specs import SpecError
from nodepools.specs.core.labels import label_key_problem, label_value_problem
from nodepools.specs.pools.names import pool_name_problem

from tests.conftest import EKS, OKE

ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291", "multi_az": False}
NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def eks(**args: Any) -> dict[str, Any]:
    return {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, **args}


def oke_flex(**args: Any) -> dict[str, Any]:
    base = {"cluster": OKE, "instance_type": "VM.Standard.E4.Flex", "replicas": 1}
    return {**base, "ocpus": 2, "memory_gb": 16, **args}


def karpenter(**args: Any) -> dict[str, Any]:
    return {"node_class": NODE_CLASS, **args}


# (component, name, args, path of the problem, fragment of its message)
CASES: list[tuple[Any, str, dict[str, Any], str, str]] = [
    # Full-match names: a trailing newline passed every `^...$` check.
    (MachinePool, "gpu-pool\n", eks(), "pool_name", "'gpu-pool\\n' is not a valid pool name"),
    (MachinePool, "a", eks(labels={"team": "ml\n"}), "labels.team", "label value 'ml\\n'"),
    (MachinePool, "a", eks(labels={"team\n": "ml"}), 'labels["team\\n"]', "not a qualified name"),
    (MachinePool, "a", eks(taints=["dedicated=ml\n:NoSchedule"]), "taints[0].value", "taint value 'ml\\n'"),
    (MachinePool, "a", {**eks(), "cluster": {**ROSA, "cluster_id": "abc\n"}}, "cluster.cluster_id", ""),
    # Upper bounds, each cloud's.
    (MachinePool, "a", eks(replicas=10**9), "replicas", "more than the 5,000 nodes"),
    (MachinePool, "a", eks(replicas=None, autoscaling={"min_replicas": 0, "max_replicas": 10**12}), "autoscaling.max_replicas", "Kubernetes cluster supports at most 5,000"),
    (MachinePool, "a", {**eks(), "cluster": ROSA, "instance_type": "m5.xlarge", "replicas": 181}, "replicas", "180 compute nodes"),
    (MachinePool, "a", oke_flex(replicas=2001), "replicas", "2,000 managed nodes"),
    (SharedNodePool, "a", {"cluster": OKE, "shape": "BM.GPU.MI300X.8", "size": 10**7, "boot_volume_gb": 500}, "size", "2,000"),
    (MachinePool, "a", oke_flex(memory_gb=1e12), "memory_gb", "1,760 GB per VM"),
    (MachinePool, "a", oke_flex(ocpus=500), "ocpus", "114 OCPUs per VM"),
    (MachinePool, "a", oke_flex(ocpus=1, memory_gb=100), "memory_gb", "64 GB per OCPU"),
    # Strict types: a stack's YAML gives real numbers and booleans.
    (MachinePool, "a", eks(replicas="3"), "replicas", "valid integer (got '3')"),
    (MachinePool, "a", eks(replicas=True), "replicas", "valid integer (got True)"),
    (MachinePool, "a", {**eks(), "cluster": {**ROSA, "multi_az": "yes"}}, "cluster.multi_az", "valid boolean (got 'yes')"),
    (MachinePool, "a", {**eks(), "cluster": {**ROSA, "multi_az": 1}}, "cluster.multi_az", "valid boolean (got 1)"),
    # Duplicate taints: Kubernetes refuses two of one key and effect.
    (MachinePool, "a", eks(taints=["a=b:NoSchedule", "a=c:NoSchedule"]), "taints[1]", "same key and effect as [0]"),
    # Non-finite numbers.
    (MachinePool, "a", oke_flex(ocpus=float("inf")), "ocpus", "finite number"),
    (MachinePool, "a", oke_flex(memory_gb=float("nan")), "memory_gb", "finite number"),
    # OKE has no preemptible bare metal; GpuSpotPool's default spot included.
    (GpuSpotPool, "a", {"cluster": OKE, "instance_type": "BM.GPU.A10.4"}, "spot", "set `spot: null` for on-demand"),
    # A field that decides what is built can't be an Output.
    (MachinePool, "a", eks(instance_type=pulumi.Output.from_input("m5.large")), "instance_type", "an Output is not allowed here"),
    # Karpenter requirements no instance can satisfy.
    (KarpenterNodePool, "k", karpenter(gpu_manufacturers=["amd"], gpu_names=["a10g"], limits={"amd.com/gpu": 8}), "gpu_names", "none is made by `gpu_manufacturers` ['amd']"),
    (KarpenterNodePool, "k", karpenter(instance_types=["g5.2xlarge"], instance_families=["m5"], limits={"nvidia.com/gpu": 8}), "instance_types", "none of them is in `instance_families`"),
    (KarpenterNodePool, "k", karpenter(instance_families=["m5"], instance_categories=["c"]), "instance_families", "`instance_categories`"),
    (KarpenterNodePool, "k", karpenter(instance_types=["p5.48xlarge"], gpu_names=["a10g"], limits={"nvidia.com/gpu": 8}), "gpu_names", "they carry h100"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("component", "name", "args", "path", "fragment"),
    CASES,
    ids=[f"{c[0].__name__}-{c[3]}-{i}" for i, c in enumerate(CASES)],
)
def test_refused_with_its_path(component, name, args, path, fragment):
    with pytest.raises(SpecError) as caught:
        component.preflight(name, args)
    found = {issue.path: issue.message for issue in caught.value.issues}
    assert path in found, found
    assert fragment in found[path]


@pytest.mark.parametrize(
    ("component", "args"),
    [
        (MachinePool, eks(replicas=5000)),
        (MachinePool, oke_flex(ocpus=114, memory_gb=1760)),
        (GpuSpotPool, {"cluster": OKE, "instance_type": "BM.GPU.A10.4", "spot": None}),
        (GpuSpotPool, {"cluster": OKE, "instance_type": "VM.GPU.A10.2"}),
        (KarpenterNodePool, karpenter(instance_types=["g5.2xlarge"], instance_families=["g5", "m5"], limits={"nvidia.com/gpu": 8})),
        (KarpenterNodePool, karpenter(gpu_manufacturers=["nvidia"], gpu_names=["a100"], limits={"nvidia.com/gpu": 8})),
        (KarpenterNodePool, karpenter(instance_types=["p4d.24xlarge"], gpu_names=["a100"], limits={"nvidia.com/gpu": 8})),
    ],
)  # fmt: skip
def test_the_limits_themselves_pass(component, args):
    component.preflight("ok", args)


NAME = st.from_regex(r"[a-z]([-a-z0-9]{0,20}[a-z0-9])?", fullmatch=True)
LABEL_VALUE = st.from_regex(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?", fullmatch=True)


@given(name=NAME, value=LABEL_VALUE, tail=st.sampled_from(["\n", "\r\n", " ", "\t"]))
def test_a_valid_name_with_trailing_whitespace_is_refused(name, value, tail):
    assert pool_name_problem(name) is None and pool_name_problem(name + tail) is not None
    assert label_value_problem(value) is None and label_value_problem(value + tail) is not None
    assert label_key_problem(name) is None and label_key_problem(name + tail) is not None
