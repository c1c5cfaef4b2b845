"""Fleet config: validated whole, with config paths, before anything is created."""

from __future__ import annotations

import pytest

from components.fleet import deploy_fleet, validate_fleet
from components.offline import ProgramError, run
from components.specs import SpecError
from tests.conftest import EKS, OKE


def fleet(*pools, clusters=None):
    return {
        "clusters": clusters if clusters is not None else {"eks": EKS, "oke": OKE},
        "pools": list(pools),
    }


def problems(config) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        validate_fleet(config)
    return {issue.path: issue.message for issue in caught.value.issues}


def test_valid_fleet_builds_every_pool():
    config = fleet(
        {
            "component": "MachinePool",
            "name": "cpu",
            "cluster": "eks",
            "instance_type": "m5.large",
            "replicas": 1,
        },
        {
            "component": "GpuSpotPool",
            "name": "gpu",
            "cluster": "oke",
            "instance_type": "VM.GPU.A10.1",
        },
    )
    capture = run(lambda: deploy_fleet(config))
    assert sorted(c.name for c in capture.components()) == ["cpu", "gpu"]


def test_errors_name_config_paths_and_are_collected():
    found = problems(
        fleet(
            {
                "component": "MachinePool",
                "name": "a",
                "cluster": "nope",
                "instance_type": "m5.large",
                "replicas": 1,
            },
            {
                "component": "MachinePool",
                "name": "b",
                "cluster": "eks",
                "instance_type": "m5.large",
                "autoscaling": {"min_replicas": 4, "max_replicas": 2},
            },
            {"component": "NodeThing", "name": "c"},
            {
                "component": "MachinePool",
                "name": "b",
                "cluster": "eks",
                "instance_type": "m5.large",
                "replicas": 1,
            },
            {"component": "MachinePool", "cluster": "eks"},
            {
                "component": "MachinePool",
                "name": "e",
                "cluster": "broken",
                "instance_type": "m5.large",
                "replicas": 1,
            },
            clusters={"eks": EKS, "broken": {"kind": "eks", "cluster_name": "x"}},
        )
    )
    assert "unknown cluster 'nope' (known: eks)" in found["nodepools:pools[0].cluster"]
    assert "`min_replicas` 4" in found["nodepools:pools[1].autoscaling.max_replicas"]
    assert "'NodeThing' is not one of" in found["nodepools:pools[2].component"]
    assert "'b' is already used by nodepools:pools[1]" in found["nodepools:pools[3].name"]
    assert "name is required" in found["nodepools:pools[4].name"]
    assert found["nodepools:clusters.broken.node_role_arn"] == "is required"
    assert "cluster 'broken' is invalid" in found["nodepools:pools[5].cluster"]


def test_unknown_config_key_is_reported():
    found = problems({"clusters": {}, "pool": []})
    assert "unknown config key" in found["nodepools:pool"]


def test_a_bad_pool_means_nothing_is_created():
    config = fleet(
        {
            "component": "MachinePool",
            "name": "good",
            "cluster": "eks",
            "instance_type": "m5.large",
            "replicas": 1,
        },
        {
            "component": "MachinePool",
            "name": "bad",
            "cluster": "eks",
            "instance_type": "m5.large",
            "replicas": -1,
        },
    )
    with pytest.raises(ProgramError) as caught:
        run(lambda: deploy_fleet(config))
    assert caught.value.capture.resources == []
    assert "nodepools:pools[1].replicas" in str(caught.value.cause)
