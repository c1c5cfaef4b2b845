"""Every resolved pool implements `ResolvedPoolProtocol`: what pool components and the fleet
read of a pool, whatever its kind, by typed attribute rather than by probing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from nodepools.pools.gpu_spot_pool import GpuSpotPool
from nodepools.pools.karpenter_node_pool import KarpenterNodePool, karpenter_scheduling
from nodepools.pools.machine_pool import MachinePool
from nodepools.pools.shared_node_pool import SharedNodePool
from nodepools.specs import ResolvedKarpenterPool, ResolvedPool
from nodepools.specs.pools.protocol import NodeClassPool, ResolvedPoolProtocol

from tests.conftest import EKS, OKE

REPO = Path(__file__).resolve().parents[1]
NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def managed_pools() -> dict[str, Any]:
    return {
        "MachinePool": MachinePool.resolve(
            "cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1}
        ),
        "GpuSpotPool": GpuSpotPool.resolve("gpu", {"cluster": EKS, "instance_type": "g5.xlarge"}),
        "SharedNodePool": SharedNodePool.resolve(
            "shared",
            {"cluster": OKE, "shape": "BM.GPU.MI300X.8", "size": 1, "boot_volume_gb": 500},
        ),
    }


def karpenter_pool(**args: Any) -> Any:
    return KarpenterNodePool.preflight("karp", {"node_class": NODE_CLASS, **args})


@pytest.mark.parametrize("kind", ["MachinePool", "GpuSpotPool", "SharedNodePool"])
def test_managed_pools_implement_the_protocol(kind: str):
    pool = managed_pools()[kind]
    assert isinstance(pool, ResolvedPool)
    assert isinstance(pool, ResolvedPoolProtocol)
    # Only Karpenter pools launch through an EC2NodeClass.
    assert not isinstance(pool, NodeClassPool)
    assert pool.cluster is not None
    assert isinstance(pool.instance_type, str)


def test_karpenter_pools_implement_the_protocol():
    pool = karpenter_pool(instance_families=["g5"], limits={"nvidia.com/gpu": 8})
    assert isinstance(pool, ResolvedKarpenterPool)
    assert isinstance(pool, ResolvedPoolProtocol)
    assert isinstance(pool, NodeClassPool)
    # In the cluster of the Kubernetes provider, with no single instance type.
    assert pool.cluster is None
    assert pool.instance_type is None
    assert pool.node_accelerator == pool.accelerator
    assert pool.accelerator is not None and pool.accelerator.resource == "nvidia.com/gpu"
    assert pool.extra_limits == {}
    assert (pool.node_class_name, pool.node_class.name) == ("karp", None)


def test_a_karpenter_efa_pool_asks_for_one_efa_device_per_pod():
    pool = karpenter_pool(instance_types=["p5.48xlarge"], efa=True, limits={"nvidia.com/gpu": 8})
    assert pool.extra_limits == {"vpc.amazonaws.com/efa": 1}
    # The scheduling info the component publishes asks for it.
    assert karpenter_scheduling(pool).limits == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 1}


def test_something_without_every_member_is_not_a_resolved_pool():
    class NameOnly:
        pool_name = "p"

    assert not isinstance(NameOnly(), ResolvedPoolProtocol)
    assert not isinstance(NameOnly(), NodeClassPool)


# What the strict checker must accept (both resolved forms, and the form the Karpenter
# component is built from) and refuse (a class missing members): line numbers matter.
STATIC_CHECK = """\
from __future__ import annotations

from nodepools.pools.karpenter_node_pool import CheckedKarpenterPool
from nodepools.specs import ResolvedKarpenterPool, ResolvedPool
from nodepools.specs.pools.protocol import NodeClassPool, ResolvedPoolProtocol


def managed(pool: ResolvedPool) -> ResolvedPoolProtocol:
    return pool


def karpenter(pool: ResolvedKarpenterPool) -> tuple[ResolvedPoolProtocol, NodeClassPool]:
    return pool, pool


def checked(pool: CheckedKarpenterPool) -> ResolvedPoolProtocol:
    return pool


class NameOnly:
    pool_name: str = "p"


def incomplete(pool: NameOnly) -> ResolvedPoolProtocol:
    return pool  # line 25: refused
"""


def test_both_resolved_forms_satisfy_the_protocol_for_the_strict_checker(tmp_path: Path):
    checker = shutil.which("basedpyright", path=str(Path(sys.executable).parent))
    if checker is None:
        pytest.skip("basedpyright is not installed (pip install -e '.[test]')")
    # The package-dir mapping (components/ -> nodepools), as `make typecheck` builds it.
    (tmp_path / "nodepools").symlink_to(REPO / "components")
    (tmp_path / "check.py").write_text(STATIC_CHECK)
    config = {
        "include": ["check.py"],
        "typeCheckingMode": "strict",
        "pythonVersion": "3.11",
        "extraPaths": ["."],
    }
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    result = subprocess.run(
        [checker, "--pythonpath", sys.executable, "--outputjson"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(result.stdout)
    errors = [
        (d["range"]["start"]["line"] + 1, d["message"])
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert [line for line, _ in errors] == [25], textwrap.indent(json.dumps(errors), "  ")
    assert re.search(r"ResolvedPoolProtocol", errors[0][1])
