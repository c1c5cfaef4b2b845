"""A fleet's OKE clusters get their Cluster Autoscaler add-on: one per cluster, every
autoscaled pool of the cluster in it, whatever order the entries came in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nodepools.fleet.context import FleetContext

if TYPE_CHECKING:
    from nodepools.pools.pool_component import PoolComponent
    from nodepools.specs.pools.resolve import ResolvedPool


def autoscaled_oke_pools(ctx: FleetContext) -> dict[str, list[PoolComponent[ResolvedPool]]]:
    """Built OKE pool components that autoscale, by the cluster entry that names their
    cluster (the first by name, when two entries name one cluster), sorted by pool name."""
    # Imported here: only a deploy has built components, and they are pulumi resources.
    from nodepools.pools.pool_component import is_managed_pool

    entry_of: dict[str, str] = {}
    for entry_name in sorted(ctx.clusters):
        target = ctx.clusters[entry_name]
        if target.kind == "oke" and isinstance(target.cluster_id, str):
            entry_of.setdefault(target.cluster_id, entry_name)
    groups: dict[str, list[PoolComponent[ResolvedPool]]] = {}
    for component in ctx.built.values():
        if not is_managed_pool(component):
            continue
        pool = component.resolved
        cluster = pool.cluster
        if cluster.kind != "oke" or not pool.autoscaled:
            continue
        if cluster.cluster_autoscaler is None:
            continue  # the cluster runs its own autoscaler
        key = entry_of.get(cluster.cluster_id) if isinstance(cluster.cluster_id, str) else None
        groups.setdefault(key or f"oke-{pool.pool_name}", []).append(component)
    return {
        key: sorted(pools, key=lambda c: c.resolved.pool_name)
        for key, pools in sorted(groups.items())
    }


def build_oke_autoscalers(ctx: FleetContext) -> None:
    """One `OkeClusterAutoscaler` per OKE cluster with autoscaled pools: `<cluster>-autoscaler`."""
    groups = autoscaled_oke_pools(ctx)
    if not groups:
        return
    from nodepools.pools.oke_autoscaler import OkeClusterAutoscaler

    for cluster_entry, pools in groups.items():
        addon = pools[0].resolved.cluster.cluster_autoscaler
        name = f"{cluster_entry}-autoscaler"
        # Its own resource type, so its URN can't collide with an entry of the same name;
        # in the returned mapping it then takes a key no entry name can have.
        key = name if name not in ctx.built else f"{name} (add-on)"
        ctx.built[key] = OkeClusterAutoscaler.for_pools(name, pools, addon=addon)
