"""A fleet's OKE clusters get their Cluster Autoscaler add-on: one per cluster, every
autoscaled pool of the cluster in it, whatever order the entries came in."""

from __future__ import annotations

from typing import Any

from nodepools.fleet.context import FleetContext


def autoscaled_oke_pools(ctx: FleetContext) -> dict[str, list[Any]]:
    """Built OKE pool components that autoscale, by the cluster entry that names their
    cluster (the first by name, when two entries name one cluster), sorted by pool name."""
    entry_of: dict[str, str] = {}
    for entry_name in sorted(ctx.clusters):
        target = ctx.clusters[entry_name]
        if getattr(target, "kind", None) == "oke" and isinstance(target.cluster_id, str):
            entry_of.setdefault(target.cluster_id, entry_name)
    groups: dict[str, list[Any]] = {}
    for component in ctx.built.values():
        resolved = getattr(component, "resolved", None)
        cluster = getattr(resolved, "cluster", None)
        if (
            resolved is None
            or cluster is None
            or getattr(cluster, "kind", None) != "oke"
            or not resolved.autoscaled
        ):
            continue
        if cluster.cluster_autoscaler is None:
            continue  # the cluster runs its own autoscaler
        key = entry_of.get(cluster.cluster_id) if isinstance(cluster.cluster_id, str) else None
        groups.setdefault(key or f"oke-{resolved.pool_name}", []).append(component)
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
