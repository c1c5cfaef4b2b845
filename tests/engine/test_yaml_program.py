"""A Pulumi YAML program through our component provider, with the real engine.

examples/yaml-cluster-governance (KarpenterNodePool, PoolQuotas, PoolPlatforms) runs with the
CLI and the YAML language host against the loopback control plane: `preview`, `up` (the objects
are on the API server, and the inputs the engine recorded for every child are those the same
components register from Python, offline), `destroy` (nothing left). The provider plugin is our
launcher of `python -m nodepools.provider` (tests/engine/tools.py); `pulumi package get-schema`
reads the package from it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.offline import run
from nodepools.provider.host import component_kinds

from tests.engine.lifecycle import (
    differences,
    engine_inputs,
    live_objects,
    offline_inputs,
    read_object,
)
from tests.engine.tools import REPO, EngineEnv

pytestmark = pytest.mark.xdist_group("engine")

EXAMPLE = REPO / "examples" / "yaml-cluster-governance"
STACK = "engine-yaml"
L40S: dict[str, Any] = {
    "name": "l40s",
    "node_labels": {"nodepools.dev/pool": "l40s"},
    "taints": ["nodepools.dev/pool=l40s:NoSchedule"],
    "gpus": 16,
}
QUOTA = {"l40s": {"gpu": 8, "cpu": 96, "memory": "768Gi"}}


def python_program() -> None:
    """The example's program in Python (its config at the default)."""
    from nodepools import KarpenterNodePool, PoolPlatforms, PoolQuotas

    tags = {"karpenter.sh/discovery": "ml"}
    KarpenterNodePool(
        "gpu",
        {
            "node_class": {
                "role": "KarpenterNodeRole-ml",
                "subnet_selector_tags": tags,
                "security_group_selector_tags": tags,
            },
            "instance_types": ["g6e.12xlarge"],
            "limits": {"cpu": "192", "memory": "1536Gi", "nvidia.com/gpu": 16},
        },
    )
    PoolQuotas(
        "quotas",
        {
            "pools": [{**L40S, "cpu": 192, "memory": "1536Gi"}],
            "departments": [
                {
                    "name": "research",
                    "projects": [
                        {"name": "training", "quotas": QUOTA},
                        {"name": "evaluation", "quotas": QUOTA},
                    ],
                }
            ],
        },
    )
    container = {
        "name": "user",
        "image": "nvcr.io/nvidia/pytorch:24.08-py3",
        "securityContext": {"allowPrivilegeEscalation": False},
    }
    PoolPlatforms(
        "platform",
        {
            "pool": L40S,
            "create_namespaces": True,
            "default_platform": "l40s",
            "common_pod_template": {"containers": [container]},
            "platforms": {
                "l40s": {
                    "description": "L40S nodes of the pool",
                    "node_selector": {"nvidia.com/gpu.product": "NVIDIA-L40S"},
                    "node_resources": {"cpu": 48, "gpu": 4, "memory": "384Gi", "storage": "3500Gi"},
                }
            },
            "roles": [{"name": "research", "pools": "l40s*", "groups": ["research"]}],
        },
    )


def _export(engine: EngineEnv, work: Path) -> list[dict[str, Any]]:
    exported = engine.cli("stack", "export", "--stack", STACK, cwd=work).stdout
    return json.loads(exported)["deployment"].get("resources") or []


def test_the_yaml_example_runs_through_our_component_provider(
    engine: EngineEnv, dynamic_client: Any, tmp_path: Path
) -> None:
    work = tmp_path / "yaml"
    shutil.copytree(EXAMPLE, work)
    # The package's source folder needs the Python language host (not served): the copy names
    # no package source, so the engine starts the `pulumi-resource-nodepools` launcher on PATH.
    project = yaml.safe_load((work / "Pulumi.yaml").read_text())
    project.pop("packages", None)
    (work / "Pulumi.yaml").write_text(yaml.safe_dump(project))
    engine.cli("stack", "init", STACK, cwd=work)
    objects: list[dict[str, Any]] = []
    try:
        engine.cli("preview", "--stack", STACK, cwd=work)
        engine.cli("up", "--stack", STACK, "--yes", "--skip-preview", cwd=work)
        resources = _export(engine, work)
        expected = offline_inputs(run(python_program, project=work.name, stack=STACK))
        recorded = engine_inputs(resources)
        assert sorted(recorded) == sorted(expected)
        mismatches = {k: differences(v, expected[k]) for k, v in recorded.items()}
        assert not {k: v for k, v in mismatches.items() if v}
        objects = live_objects(resources)
        assert len(objects) == len(expected)
        assert all(read_object(dynamic_client, o) is not None for o in objects)
        again = engine.cli("preview", "--stack", STACK, "--expect-no-changes", cwd=work)
        assert again.returncode == 0
    finally:
        engine.cli("destroy", "--stack", STACK, "--yes", "--skip-preview", cwd=work)
    assert all(read_object(dynamic_client, o) is None for o in objects)
    engine.cli("stack", "rm", STACK, "--yes", cwd=work)


def test_pulumi_package_get_schema_reads_our_provider(engine: EngineEnv, tmp_path: Path) -> None:
    launcher = engine.root / "bin" / "pulumi-resource-nodepools"
    schema = json.loads(engine.cli("package", "get-schema", str(launcher), cwd=tmp_path).stdout)
    # every component the provider host serves (the fleet's sections and the standalone ones,
    # NodeRole and Recipe among them)
    names = sorted(component.__name__ for component, _ in component_kinds())
    assert sorted(schema["resources"]) == [f"nodepools:index:{n}" for n in names]
    assert {
        "nodepools:index:KarpenterNodePool",
        "nodepools:index:PoolQuotas",
        "nodepools:index:PoolPlatforms",
    } <= set(schema["resources"])
