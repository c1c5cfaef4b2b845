"""AcceleratorStack `pools`: pool components as users pass them, ServedPool mappings, and
clear errors for anything else; identifiers (namespaces, chart versions) in their format
(issue 29 items 8 and 15)."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import AcceleratorStack, GpuSpotPool, KarpenterNodePool
from nodepools.offline import ProgramError, run
from nodepools.specs import SpecError
from nodepools.specs.catalog.accelerators import lookup_accelerator

from tests.conftest import EKS

RELEASE = "kubernetes:helm.sh/v3:Release"
GPU_POOL = {
    "cluster": EKS,
    "instance_type": "g5.2xlarge",
    "autoscaling": {"min_replicas": 0, "max_replicas": 2},
}
KARPENTER_POOL = {"instance_types": ["p5.48xlarge"], "node_class_name": "x"}


def test_pool_components_are_served_as_given():
    def program() -> None:
        gpu = GpuSpotPool("gpu", GPU_POOL)
        stack = AcceleratorStack("devices", {"platform": "eks", "pools": [gpu]})
        by_served = AcceleratorStack(
            "devices-2", {"platform": "eks", "pools": AcceleratorStack.served([gpu])}
        )
        assert stack.spec.pools == by_served.spec.pools

    capture = run(program)
    assert len(capture.by_type(RELEASE)) == 2


def test_karpenter_pools_and_mappings_mix():
    def program() -> None:
        karpenter = KarpenterNodePool("k", KARPENTER_POOL)
        cpu = {"name": "cpu"}
        stack = AcceleratorStack("devices", {"platform": "eks", "pools": [karpenter, cpu]})
        assert [p.name for p in stack.spec.pools] == ["k", "cpu"]

    run(program)


@pytest.mark.parametrize("entry", ["gpu", 3, None, object()])
def test_anything_else_names_the_entry_and_served(entry: Any):
    with pytest.raises(SpecError) as raised:
        AcceleratorStack.preflight("devices", {"platform": "eks", "pools": [{"name": "a"}, entry]})
    [issue] = raised.value.issues
    assert issue.path == "pools[1]"
    assert repr(entry) in issue.message
    assert "AcceleratorStack.served" in issue.message


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        ({"namespace": "GPU_Operator"}, "namespace", "'GPU_Operator' is not a DNS label"),
        ({"namespace": ""}, "namespace", "'' is not a DNS label"),
        ({"efa": {"namespace": "kube.system"}}, "efa.namespace", "'kube.system' is not a DNS label"),
        ({"nvidia": {"version": "latest"}}, "nvidia.version", "'latest' is not a SemVer version"),
        ({"nvidia": {"version": "26.7"}}, "nvidia.version", "'26.7' is not a SemVer version"),
        ({"efa": {"version": ""}}, "efa.version", "'' is not a SemVer version"),
    ],
)  # fmt: skip
def test_identifiers_in_their_format(args: dict[str, Any], path: str, fragment: str):
    pools = [{"name": "gpu", "accelerator": lookup_accelerator("p5.48xlarge")}]
    with pytest.raises(SpecError) as raised:
        AcceleratorStack.preflight("devices", {"platform": "eks", "pools": pools, **args})
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    assert fragment in found[path]


@pytest.mark.parametrize("version", ["v26.7.0", "0.21.0", "1.0.0-rc.1", "v1.2.3+build.5"])
def test_semver_versions_pass(version: str):
    pools = [{"name": "gpu", "accelerator": lookup_accelerator("p5.48xlarge")}]
    AcceleratorStack.preflight(
        "devices", {"platform": "eks", "pools": pools, "nvidia": {"version": version}}
    )


def test_a_program_error_carries_the_path():
    with pytest.raises(ProgramError, match=r"pools\[0\]"):
        run(lambda: AcceleratorStack("devices", {"platform": "eks", "pools": ["gpu"]}))
