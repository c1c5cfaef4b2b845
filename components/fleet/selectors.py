"""Pools without an identity label (`identity_label: false`) are selected by their labels:
within one fleet, no other pool on the same cluster may give its nodes all of them, or the
scheduling info of the first would also land pods on the second's nodes. (Pools with an
identity label select it alone, and their names are unique per cluster already.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ClaimedLabels:
    """A managed pool of the fleet: its cluster, entry path, node labels and selector."""

    cluster: str
    path: str
    labels: Mapping[str, str]
    selector: Mapping[str, str]
    identity_label: bool


def _selects(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def shared_selector_problem(pool: ClaimedLabels, claimed: list[ClaimedLabels]) -> str | None:
    """Why `pool`'s selection, or an earlier pool's, would also pick the other's nodes."""
    for other in claimed:
        if other.cluster != pool.cluster:
            continue
        if not pool.identity_label and _selects(pool.selector, other.labels):
            return (
                f"`identity_label: false` selects this pool by its labels {dict(pool.selector)}, "
                f"and the nodes of {other.path} on the same cluster carry all of them: give "
                "this pool a label that pool's nodes lack, or keep the identity label"
            )
        if not other.identity_label and _selects(other.selector, pool.labels):
            return (
                f"{other.path} has `identity_label: false` and is selected by its labels "
                f"{dict(other.selector)}, which this pool's nodes carry too: give one of "
                "them a label the other lacks"
            )
    return None
