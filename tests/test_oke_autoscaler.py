"""OKE pools scale: one Cluster Autoscaler add-on per cluster, fed by all its autoscaled pools."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.fleet.deploy import deploy_fleet
from nodepools.offline import run
from nodepools.pools.machine_pool import MachinePool
from nodepools.pools.oke_autoscaler import OkeClusterAutoscaler
from nodepools.specs import SpecError

from tests.conftest import EKS, OKE

ADDON = "oci:ContainerEngine/addon:Addon"
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
OTHER_OKE = {**OKE, "cluster_id": "ocid1.cluster.oc1..other"}


def pool(name: str, cluster: str = "oke", low: int = 0, high: int = 4) -> dict[str, Any]:
    return {
        "component": "MachinePool",
        "name": name,
        "cluster": cluster,
        "instance_type": "VM.Standard.E4.Flex",
        "ocpus": 2,
        "memory_gb": 16,
        "autoscaling": {"min_replicas": low, "max_replicas": high},
    }


def fleet(*pools: dict[str, Any], clusters: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"clusters": clusters or {"oke": OKE}, "pools": list(pools)}


def addons(config: dict[str, Any]) -> tuple[Any, list[Any]]:
    capture = run(lambda: deploy_fleet(config))
    return capture, capture.by_type(ADDON)


def configuration(addon: Any) -> dict[str, str]:
    return {c["key"]: c["value"] for c in addon.inputs["configurations"]}


def node_pool_id(capture: Any, name: str) -> str:
    (found,) = [r for r in capture.by_type(NODE_POOL) if r.name == f"{name}-node-pool"]
    return found.outputs["id"]


def test_two_pools_of_one_cluster_make_one_addon_with_both_ranges():
    capture, found = addons(fleet(pool("b-gpu", low=1, high=8), pool("a-cpu", low=0, high=3)))
    (addon,) = found
    assert addon.inputs["addonName"] == "ClusterAutoscaler"
    assert addon.inputs["clusterId"] == OKE["cluster_id"]
    assert addon.inputs["removeAddonResourcesOnDelete"] is True
    a, b = node_pool_id(capture, "a-cpu"), node_pool_id(capture, "b-gpu")
    assert configuration(addon) == {
        "authType": "instance",
        "nodes": f"0:3:{a},1:8:{b}",
        "numOfReplicas": "1",
    }
    assert addon.parent.endswith("nodepools:index:OkeClusterAutoscaler::oke-autoscaler")


def test_the_addon_does_not_depend_on_the_order_of_the_entries():
    first, _ = addons(fleet(pool("a"), pool("b"), pool("c")))
    second, _ = addons(fleet(pool("c"), pool("a"), pool("b")))
    assert first.by_type(ADDON)[0].inputs == second.by_type(ADDON)[0].inputs


def test_one_addon_per_cluster_and_none_where_nothing_autoscales_or_it_is_declined():
    clusters = {
        "oke": OKE,
        "other": OTHER_OKE,
        "own-autoscaler": {
            **OKE,
            "cluster_id": "ocid1.cluster.oc1..own",
            "cluster_autoscaler": None,
        },
        "eks": EKS,
    }
    fixed = {**pool("fixed", "oke"), "autoscaling": None, "replicas": 2}
    config = fleet(
        pool("a", "oke"), pool("b", "other"), pool("c", "own-autoscaler"), fixed,
        {"component": "MachinePool", "name": "e", "cluster": "eks", "instance_type": "m5.large", "autoscaling": {"min_replicas": 0, "max_replicas": 2}},
        clusters=clusters,
    )  # fmt: skip
    _, found = addons(config)
    assert sorted(a.inputs["clusterId"] for a in found) == sorted(
        [OKE["cluster_id"], OTHER_OKE["cluster_id"]]
    )
    by_cluster = {a.inputs["clusterId"]: configuration(a)["nodes"] for a in found}
    assert (
        by_cluster[OKE["cluster_id"]].count(":ocid") + by_cluster[OKE["cluster_id"]].count(":") // 2
        >= 1
    )
    assert len(by_cluster[OKE["cluster_id"]].split(",")) == 1  # `fixed` is not autoscaled


def test_workload_identity_and_replicas_are_passed_and_checked():
    clusters = {
        "oke": {**OKE, "cluster_autoscaler": {"auth_type": "workload", "num_of_replicas": 2}}
    }
    _, (addon,) = addons(fleet(pool("a"), clusters=clusters))
    assert configuration(addon)["authType"] == "workload"
    assert configuration(addon)["numOfReplicas"] == "2"
    bad = {"oke": {**OKE, "cluster_autoscaler": {"auth_type": "magic"}}}
    with pytest.raises(Exception, match=r"cluster_autoscaler\.auth_type"):
        run(lambda: deploy_fleet(fleet(pool("a"), clusters=bad)))


def test_for_pools_refuses_pools_it_cannot_scale():
    def program():
        eks_pool = MachinePool("e", {"cluster": EKS, "instance_type": "m5.large", "autoscaling": {"min_replicas": 0, "max_replicas": 2}})  # fmt: skip
        with pytest.raises(SpecError, match="is not an autoscaled OKE pool"):
            OkeClusterAutoscaler.for_pools("x", [eks_pool])

    run(program)
