"""A fleet of adopted node groups (`identity_label: false`, issue 32): a pool selected by its
labels must select only its own nodes, so no other pool on its cluster may carry them all."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.fleet.deploy import validate_fleet
from nodepools.specs import SpecError

from tests.conftest import EKS


def pool(
    name: str, labels: dict[str, str], identity_label: bool = False, **more: Any
) -> dict[str, Any]:
    return {
        "component": "MachinePool",
        "name": name,
        "cluster": "eks",
        "instance_type": "m5.large",
        "replicas": 1,
        "labels": labels,
        "identity_label": identity_label,
        **more,
    }


def problems(*pools: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        validate_fleet(
            {
                "clusters": {"eks": EKS, "other": {**EKS, "cluster_name": "other"}},
                "pools": list(pools),
            }
        )
    return {issue.path: issue.message for issue in caught.value.issues}


def test_pools_told_apart_by_their_labels_are_valid():
    entries, _ = validate_fleet(
        {
            "clusters": {"eks": EKS},
            "pools": [pool("a", {"team": "ml"}), pool("b", {"team": "web"}), pool("c", {"team": "data"}, True)],
        }
    )  # fmt: skip
    assert [entry.name for entry in entries] == ["a", "b", "c"]


def test_a_pool_whose_labels_another_pools_nodes_carry_is_refused():
    found = problems(pool("a", {"team": "ml", "tier": "gpu"}, True), pool("b", {"team": "ml"}))
    assert (
        "nodepools:pools[0] on the same cluster carry all of them"
        in found["nodepools:pools[1].identity_label"]
    )


def test_an_earlier_pool_selected_by_labels_a_later_pool_carries_is_refused():
    found = problems(pool("a", {"team": "ml"}), pool("b", {"team": "ml", "tier": "gpu"}, True))
    assert (
        "nodepools:pools[0] has `identity_label: false`"
        in found["nodepools:pools[1].identity_label"]
    )


def test_the_same_labels_on_another_cluster_are_fine():
    validate_fleet(
        {
            "clusters": {"eks": EKS, "other": {**EKS, "cluster_name": "other"}},
            "pools": [pool("a", {"team": "ml"}), {**pool("b", {"team": "ml"}), "cluster": "other"}],
        }
    )
