"""`OkeClusterAutoscaler.for_pools` reports each pool it can't scale at that pool's index."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.offline import run
from nodepools.pools.machine_pool import MachinePool
from nodepools.pools.oke_autoscaler import OkeClusterAutoscaler
from nodepools.specs import SpecError

from tests.conftest import EKS, OKE

AUTOSCALED = {"autoscaling": {"min_replicas": 1, "max_replicas": 2}}
FLEX = {"instance_type": "VM.Standard.E4.Flex", "ocpus": 2, "memory_gb": 16}


def refused(pools: list[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    found: dict[str, str] = {}

    def program() -> None:
        built = [MachinePool(name, args) for name, args in pools]
        with pytest.raises(SpecError) as caught:
            OkeClusterAutoscaler.for_pools("x", built)
        found.update({issue.path: issue.message for issue in caught.value.issues})

    run(program)
    return found


def test_each_pool_it_cannot_scale_is_reported_at_its_index():
    found = refused(
        [
            ("a", {"cluster": OKE, **FLEX, **AUTOSCALED}),
            ("e", {"cluster": EKS, "instance_type": "m5.large", **AUTOSCALED}),
            ("f", {"cluster": OKE, **FLEX, "replicas": 1}),
        ]
    )
    assert found == {
        "pools[1]": "'e' is not an autoscaled OKE pool",
        "pools[2]": "'f' is not an autoscaled OKE pool",
    }


def test_pools_of_two_clusters_are_refused_together():
    other = {**OKE, "cluster_id": "ocid1.cluster.oc1..other"}
    found = refused(
        [
            ("a", {"cluster": OKE, **FLEX, **AUTOSCALED}),
            ("b", {"cluster": other, **FLEX, **AUTOSCALED}),
        ]
    )
    assert found == {"pools": "the pools are on 2 clusters; one add-on per cluster"}


@pytest.mark.parametrize("pools", [[], "gpu", None, ("gpu",)])
def test_no_list_of_pools_is_a_clear_error(pools: Any):
    with pytest.raises(SpecError) as raised:
        OkeClusterAutoscaler.for_pools("a", pools)
    [issue] = raised.value.issues
    if pools == ("gpu",):
        assert issue.path == "pools[0]"
        assert "'gpu' is not a managed pool component" in issue.message
    else:
        assert issue.path == "pools"
        assert repr(pools) in issue.message and "for_pools('a', [pool])" in issue.message
