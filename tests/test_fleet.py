"""Fleet config: validated whole, with config paths, before anything is created."""

from __future__ import annotations

import pytest
from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import ProgramError, run
from nodepools.specs import SpecError

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
    # The OKE GpuSpotPool autoscales (0..3 by default): its cluster gets the add-on.
    assert sorted(c.name for c in capture.components()) == ["cpu", "gpu", "oke-autoscaler"]


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
    assert found["nodepools:clusters.broken.subnet_ids"] == "is required"
    # Optional: without one, each EKS pool creates its own NodeRole.
    assert "nodepools:clusters.broken.node_role_arn" not in found
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


ROSA_MULTI_AZ = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291", "multi_az": True}


@pytest.mark.parametrize(
    ("entry", "path", "fragment"),
    [
        # The entry name becomes the pool name: checked before anything is built.
        (
            {
                "component": "MachinePool",
                "name": "cpu_general",
                "cluster": "eks",
                "instance_type": "m5.large",
                "replicas": 1,
            },
            "nodepools:pools[1].name",
            "'cpu_general' is not a valid pool name",
        ),
        (
            {
                "component": "KarpenterNodePool",
                "name": "Bad_Name",
                "node_class_name": "default",
                "limits": {"cpu": 10},
            },
            "nodepools:pools[1].name",
            "'Bad_Name' is not a valid pool name",
        ),
        # A shared pool's size on a multi-AZ ROSA cluster, reported at `size`.
        (
            {
                "component": "SharedNodePool",
                "name": "shared",
                "cluster": "rosa",
                "shape": "m5.xlarge",
                "size": 2,
            },
            "nodepools:pools[1].size",
            "2 must be a multiple of 3",
        ),
    ],
)
def test_entries_are_checked_with_their_real_name_before_anything_is_built(entry, path, fragment):
    config = fleet(
        {"component": "GpuSpotPool", "name": "gpu", "cluster": "eks", "instance_type": "g5.xlarge"},
        entry,
        clusters={"eks": EKS, "rosa": ROSA_MULTI_AZ},
    )
    with pytest.raises(ProgramError) as caught:
        run(lambda: deploy_fleet(config))
    assert caught.value.capture.resources == []
    issues = {issue.path: issue.message for issue in caught.value.cause.issues}
    assert fragment in issues[path]


def test_two_pools_of_one_name_on_one_cluster_are_refused():
    found = problems(
        fleet(
            {
                "component": "MachinePool",
                "name": "a",
                "cluster": "eks",
                "instance_type": "m5.large",
                "replicas": 1,
                "pool_name": "cpu",
            },
            {
                "component": "MachinePool",
                "name": "cpu",
                "cluster": "eks",
                "instance_type": "m5.large",
                "replicas": 1,
            },
            # The same name on another cluster is fine.
            {
                "component": "MachinePool",
                "name": "b",
                "cluster": "oke",
                "instance_type": "VM.GPU.A10.1",
                "replicas": 1,
                "pool_name": "cpu",
                "taints": ["nvidia.com/gpu=true:NoSchedule"],
            },
        )
    )
    assert found == {
        "nodepools:pools[1].name": "pool name 'cpu' is already used on the same cluster "
        "(eks ml-platform) by nodepools:pools[0]"
    }


def test_two_cluster_entries_for_one_real_cluster_cannot_both_have_pool_a():
    # Two entries naming the same EKS cluster would make two node groups labelled `a`.
    config = fleet(
        {
            "component": "MachinePool",
            "name": "a",
            "cluster": "one",
            "instance_type": "m5.large",
            "replicas": 1,
        },
        {
            "component": "MachinePool",
            "name": "b",
            "cluster": "two",
            "instance_type": "m5.large",
            "replicas": 1,
            "pool_name": "a",
        },
        clusters={"one": EKS, "two": {**EKS, "subnet_ids": ["subnet-c"]}},
    )
    assert problems(config) == {
        "nodepools:pools[1].pool_name": "pool name 'a' is already used on the same cluster "
        "(eks ml-platform) by nodepools:pools[0]"
    }
    # The same for ROSA and OKE clusters, known by id.
    for cluster in (OKE, {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}):
        shape = "VM.Standard.E4.Flex" if cluster["kind"] == "oke" else "m5.xlarge"
        flex = {"ocpus": 2, "memory_gb": 16} if cluster["kind"] == "oke" else {}
        config = fleet(
            *(
                {
                    "component": "MachinePool",
                    "name": name,
                    "cluster": name,
                    "instance_type": shape,
                    "replicas": 3,
                    "pool_name": "a",
                    **flex,
                }
                for name in ("one", "two")
            ),
            clusters={"one": cluster, "two": dict(cluster)},
        )
        assert list(problems(config)) == ["nodepools:pools[1].pool_name"]


def test_a_governance_entry_is_checked_whole_before_anything_is_built():
    config = {
        "clusters": {"eks": EKS},
        "pools": [
            {
                "component": "GpuSpotPool",
                "name": "gpu",
                "cluster": "eks",
                "instance_type": "g5.xlarge",
            }
        ],
        # Its Cohort is named after the entry: "Org Quotas" is no Kubernetes name.
        "governance": [
            {
                "component": "PoolQuotas",
                "name": "Org Quotas",
                "pools": ["gpu"],
                "departments": [
                    {
                        "name": "rnd",
                        "projects": [{"name": "research", "quotas": {"gpu": {"gpu": 1}}}],
                    }
                ],
            }
        ],
    }
    with pytest.raises(ProgramError) as caught:
        run(lambda: deploy_fleet(config))
    assert caught.value.capture.resources == []
    assert all(p.startswith("nodepools:governance[0]") for p in caught.value.cause.paths())


def test_governance_reads_a_shared_pool_of_the_fleet_by_name():
    config = {
        "clusters": {"oke": OKE},
        "pools": [
            {
                "component": "SharedNodePool",
                "name": "a10",
                "cluster": "oke",
                "shape": "BM.GPU.A10.4",
                "size": 2,
                "boot_volume_gb": 200,
            }
        ],
        "governance": [
            {
                "component": "PoolQuotas",
                "name": "org",
                "pools": ["a10"],
                "departments": [
                    {
                        "name": "rnd",
                        "projects": [{"name": "research", "quotas": {"a10": {"gpu": 8}}}],
                    }
                ],
            }
        ],
    }
    capture = run(lambda: deploy_fleet(config))
    flavor = capture.get("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "org-flavor-a10")
    assert flavor.inputs["spec"]["nodeLabels"] == {"nodepools.dev/pool": "a10"}
