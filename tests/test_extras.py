"""Per-cloud extras: a component whose cloud SDK is missing refuses before it registers
anything, in one line naming the `pip install` that fixes it; the core needs neither SDK.

The SDKs are hidden here with `None` in `sys.modules` (what Python does for a module it must
not import). tests/extras installs the built wheel with each extra alone, for real.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from nodepools import (
    AcceleratorStack,
    GpuSpotPool,
    KarpenterNodePool,
    MachinePool,
    NodeRole,
    OkeClusterAutoscaler,
    SharedNodePool,
)
from nodepools.backends.extras import AWS, EXTRAS_BY_KIND, OCI, MissingExtra, installed
from nodepools.offline import ProgramError, run
from nodepools.planning import plan_stack

from tests.conftest import EKS, OKE

ROOT = Path(__file__).resolve().parent.parent
SDKS = ("pulumi_aws", "pulumi_oci")
AWS_LINE = "pip install 'nodepools[aws]'"
OCI_LINE = "pip install 'nodepools[oci]'"
KARPENTER = {
    "instance_types": ["g5.12xlarge"],
    "node_class": {
        "role": "KarpenterNodeRole-ml",
        "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
        "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
    },
    "limits": {"nvidia.com/gpu": 8},
}


@pytest.fixture
def no_sdks(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in SDKS:
        monkeypatch.setitem(sys.modules, module, None)


def _refused(program: Callable[[], Any]) -> tuple[MissingExtra, list[str]]:
    with pytest.raises(ProgramError) as info:
        run(program)
    error = info.value.cause
    assert isinstance(error, MissingExtra), repr(error)
    return error, [r.type for r in info.value.capture.resources]


CASES: list[tuple[str, Callable[[], Any], str]] = [
    (
        "MachinePool 'cpu': cluster.kind 'eks' needs pulumi-aws",
        lambda: MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1}),
        AWS_LINE,
    ),
    (
        "GpuSpotPool 'gpu': cluster.kind 'eks' needs pulumi-aws",
        lambda: GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g5.xlarge"}),
        AWS_LINE,
    ),
    (
        "NodeRole 'nodes': an IAM role needs pulumi-aws",
        lambda: NodeRole("nodes", {"name_prefix": "nodes"}),
        AWS_LINE,
    ),
    (
        "MachinePool 'flex': cluster.kind 'oke' needs pulumi-oci",
        lambda: MachinePool(
            "flex",
            {
                "cluster": OKE,
                "instance_type": "VM.Standard.E4.Flex",
                "ocpus": 2,
                "memory_gb": 16,
                "replicas": 1,
            },
        ),
        OCI_LINE,
    ),
    (
        "SharedNodePool 'mi300x': cluster.kind 'oke' needs pulumi-oci",
        lambda: SharedNodePool(
            "mi300x",
            {"cluster": OKE, "shape": "BM.GPU.MI300X.8", "size": 1, "boot_volume_gb": 500},
        ),
        OCI_LINE,
    ),
    (
        "OkeClusterAutoscaler 'scaler': an OKE cluster add-on needs pulumi-oci",
        lambda: OkeClusterAutoscaler(
            "scaler",
            {
                "cluster_id": OKE["cluster_id"],
                "pools": [
                    {
                        "name": "a",
                        "node_pool_id": "ocid1.nodepool.oc1..a",
                        "min_nodes": 0,
                        "max_nodes": 2,
                    }
                ],
            },
        ),
        OCI_LINE,
    ),
]


@pytest.mark.parametrize(("start", "program", "line"), CASES, ids=[c[0] for c in CASES])
def test_a_component_without_its_extra_refuses_in_one_line_before_registering(
    no_sdks: None, start: str, program: Callable[[], Any], line: str
):
    error, registered = _refused(program)
    assert registered == []
    assert str(error) == f"{start}, which is not installed: {line}"
    assert "\n" not in str(error)
    assert error.name in SDKS  # a ModuleNotFoundError naming the module, for `except` clauses


def test_device_software_on_oke_needs_the_oci_extra_for_its_add_ons(
    monkeypatch: pytest.MonkeyPatch,
):
    def program() -> None:
        pool = SharedNodePool(
            "a10", {"cluster": OKE, "shape": "BM.GPU.A10.4", "size": 1, "boot_volume_gb": 500}
        )
        monkeypatch.setitem(sys.modules, "pulumi_oci", None)
        AcceleratorStack(
            "devices",
            {
                "platform": "oke",
                "oke_cluster_id": OKE["cluster_id"],
                "pools": AcceleratorStack.served([pool]),
            },
        )

    error, registered = _refused(program)
    assert "nodepools:index:AcceleratorStack" not in registered
    assert str(error).startswith("AcceleratorStack 'devices': an OKE cluster add-on needs")
    assert str(error).endswith(OCI_LINE)


def test_karpenter_and_device_software_on_eks_need_no_cloud_sdk(no_sdks: None):
    def program() -> None:
        pool = KarpenterNodePool("gpu", KARPENTER)
        AcceleratorStack("devices", {"platform": "eks", "pools": AcceleratorStack.served([pool])})

    capture = run(program)
    assert "kubernetes:karpenter.sh/v1:NodePool" in {r.type for r in capture.resources}


def test_a_stack_with_a_pool_whose_extra_is_missing_creates_nothing(no_sdks: None):
    result = plan_stack("eks-training", stacks_dir=ROOT / "stacks")
    assert not result.ok
    assert AWS_LINE in result.render()
    assert "nothing would be created" in result.render()


def test_installed_says_no_for_a_module_python_must_not_import(no_sdks: None):
    assert not installed(AWS) and not installed(OCI)


def test_installed_says_yes_for_the_test_environment():
    assert installed(AWS) and installed(OCI)


def test_the_extras_are_declared_as_the_backends_name_them():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    extras = project["optional-dependencies"]
    for extra in EXTRAS_BY_KIND.values():
        assert extra.distribution not in core
        assert [d.split(">")[0] for d in extras[extra.name]] == [extra.distribution]
    assert extras["all"] == ["nodepools[aws,oci]"]
    assert "kubernetes-validate" not in core  # 108 MB of schemas: the facts are derived
    assert "nodepools[all]" in extras["test"]


# Planned in a fresh interpreter that can't import either SDK or kubernetes_validate: the
# modules the core loads must not import them at any depth.
CORE_ONLY = """
import sys
for module in ("pulumi_aws", "pulumi_oci", "kubernetes_validate"):
    sys.modules[module] = None
from nodepools.planning.cli import main
sys.exit(main(["plan", "--stack", sys.argv[1], "--stacks-dir", sys.argv[2]]))
"""


@pytest.mark.parametrize("stack", ["eks-karpenter-llm", "org-quotas", "osmo-platforms", "rosa-gpu"])
def test_the_core_alone_plans_karpenter_kueue_osmo_and_rosa_stacks(stack: str, tmp_path: Path):
    result = subprocess.run(
        [sys.executable, "-c", CORE_ONLY, stack, str(ROOT / "stacks")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stdout.rstrip().endswith("Plan OK"), result.stdout[-2000:]


def test_the_pod_template_schema_facts_are_those_the_script_derives():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "extract_pod_schema.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_component_provider_and_doctor_load_without_either_sdk(tmp_path: Path):
    program = """
import sys
for module in ("pulumi_aws", "pulumi_oci", "kubernetes_validate"):
    sys.modules[module] = None
import json
from nodepools.provider.host import NodepoolsProvider, package_version
import nodepools.doctor.command, nodepools.policies.pack
schema = json.loads(NodepoolsProvider(package_version()).schema)
print(len(schema["resources"]))
"""
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert int(result.stdout) >= 11  # every component's schema, EKS and OKE ones included
