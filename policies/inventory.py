"""The pools of a whole stack, by the identity label that Kueue flavors and workloads select."""

from __future__ import annotations

from collections.abc import Iterable

from nodepools.policies.pool_model import PoolView
from nodepools.policies.resources import pool_view
from nodepools.specs.core.labels import POOL_LABEL
from pulumi_policy import PolicyResource


def pools_by_name(resources: Iterable[PolicyResource]) -> dict[str, PoolView]:
    """Pools carrying `nodepools.dev/pool`, keyed by its value.

    A pool without the label can't be selected by a flavor or a nodeSelector, so it has no
    place here; the first pool claiming a name wins (the components never emit two).
    """
    pools: dict[str, PoolView] = {}
    for resource in resources:
        pool = pool_view(resource.resource_type, resource.props, resource.name)
        if pool is not None and POOL_LABEL in pool.labels:
            pools.setdefault(pool.labels[POOL_LABEL], pool)
    return pools


def accelerator_capacity(pool: PoolView, resource: str) -> float | None:
    """How many of `resource` the pool can offer at most, or None when it can't be known."""
    accelerator = next((a for a in pool.accelerators if a.resource == resource), None)
    if accelerator is None:
        return None
    if pool.limits is not None and resource in pool.limits:
        return pool.limits[resource]
    if pool.max_nodes is None or accelerator.count is None:
        return None
    return pool.max_nodes * accelerator.count
