"""AcceleratorStack in a fleet: pool names looked up, the pools labelled, the advertised
resources handed to recipes and quotas.

Stack config::

    nodepools:devices:
      - {component: AcceleratorStack, name: gpu-software, pools: [gpu-spot, oke-a10]}

`pools` names entries of the `pools` section (or gives `ServedPool` descriptions of pools
created elsewhere); left out, it is every accelerator pool of the stack, which must then
be on one cluster. `platform` defaults to the pools' cluster kind (`eks` for Karpenter
pools) and, on OKE, `oke_cluster_id` to their cluster's id. The labels the software needs
on a pool's nodes (`AcceleratorStack.node_labels`: device-plugin config, MIG layout, the
AMD and EFA charts' selectors) are added to that pool entry's `labels`, and what one node
then advertises (MIG slices, time-sliced GPUs) to its `advertised`, before anything is
built; recipes and quotas naming the pool see the resource and count it advertises.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, cast

from nodepools.fleet.context import FleetContext, FleetEntry, cluster_handle
from nodepools.specs.catalog.accelerators import AdvertisedAccelerators
from nodepools.specs.core.base import Issue, SpecError
from nodepools.specs.devices.advertised_pools import AdvertisedPool
from nodepools.specs.devices.args import AcceleratorStackArgs, node_labels, vendors_of
from nodepools.specs.devices.placement import advertised_overrides, advertised_resource
from nodepools.specs.devices.served_pools import served_pool
from nodepools.specs.pools.protocol import ResolvedPoolProtocol

if TYPE_CHECKING:
    from nodepools.specs.clusters.targets import ClusterTarget

STACK_COMPONENT = "AcceleratorStack"
# Platforms that are a cloud's clusters (`generic` is any Kubernetes, so it fits every one).
CLOUD_PLATFORMS = ("eks", "oke", "rosa")
POOL_KINDS = ("MachinePool", "GpuSpotPool", "SharedNodePool", "KarpenterNodePool")


def _checked_pool(ctx: FleetContext, name: str) -> ResolvedPoolProtocol | None:
    """The pool entry `name` as its preflight resolved it; None when it has none."""
    for (_, entry_name), (_, result) in ctx.preflights.items():
        if entry_name == name and isinstance(result, ResolvedPoolProtocol):
            return result
    return None


def _pool_entries(ctx: FleetContext) -> list[str]:
    return sorted(name for name, (kind, _) in ctx.entries.items() if kind in POOL_KINDS)


def prepare_devices(args: dict[str, Any], ctx: FleetContext, path: str) -> dict[str, Any]:
    """`pools: [names]` -> ServedPool descriptions; platform and OKE cluster from them."""
    given = "pools" in args
    references: Any = args["pools"] if given else None
    if references is None:
        references = [
            name
            for name in _pool_entries(ctx)
            if (pool := _checked_pool(ctx, name)) is not None and pool.accelerator is not None
        ]
    if not isinstance(references, list):
        return args  # the model reports the type
    issues: list[Issue] = []
    served: list[Any] = []
    clusters: dict[str, ClusterTarget | None] = {}
    entry_of: dict[str, str] = {}
    for index, reference in enumerate(cast("list[Any]", references)):
        where = f"{path}.pools[{index}]" if given else f"{path}.pools"
        if not isinstance(reference, str):
            served.append(reference)
            continue
        pool = _checked_pool(ctx, reference) if reference in _pool_entries(ctx) else None
        if pool is None:
            known = ", ".join(_pool_entries(ctx)) or "none declared"
            issues.append(Issue(where, f"unknown or invalid pool {reference!r} (pools: {known})"))
            continue
        entry = served_pool(pool)
        entry_of[entry["name"]] = reference
        served.append(entry)
        clusters[_cluster_key(pool.cluster)] = pool.cluster
    if len(clusters) > 1:
        # A Karpenter pool is in the cluster of the Kubernetes provider: any of the others.
        clusters.pop(_cluster_key(None), None)
    if len(clusters) > 1:
        issues.append(
            Issue(
                f"{path}.pools",
                f"the pools are in {len(clusters)} clusters ({', '.join(sorted(clusters))}); "
                "one AcceleratorStack serves the pools of one cluster"
                + ("" if given else " (left out, `pools` is every accelerator pool of the stack)"),
            )
        )
    cluster = next(iter(clusters.values()), None) if len(clusters) == 1 else None
    # Karpenter pools (no declared cluster) run on EKS.
    kind = cluster.kind if cluster is not None else ("eks" if len(clusters) == 1 else None)
    platform = args.get("platform")
    if kind is not None and platform in CLOUD_PLATFORMS and platform != kind:
        # Installed as told, the software would fit another cloud's nodes (an OKE add-on on
        # an EKS cluster) and never serve these pools.
        issues.append(
            Issue(
                f"{path}.platform",
                f"{platform!r}, but the pools it serves are on {next(iter(clusters))} "
                f"(platform {kind!r}); leave `platform` out to take it from the pools, or "
                "serve pools of that platform",
            )
        )
    if issues:
        raise SpecError("fleet", issues)
    prepared = {**args, "pools": served}
    if "platform" not in args and kind is not None:
        prepared["platform"] = kind
    if cluster is not None and cluster.kind == "oke":
        if "oke_cluster_id" not in args:
            prepared["oke_cluster_id"] = cluster.cluster_id
        if "oke_cluster_type" not in args:
            prepared["oke_cluster_type"] = cluster.cluster_type
    entry_name = ctx.current_entry or ""
    ctx.device_pools[entry_name] = entry_of
    ctx.device_clusters[entry_name] = next(iter(clusters), "the Kubernetes provider's")
    _note_advertised(prepared, ctx, entry_of)
    return prepared


def _cluster_key(cluster: ClusterTarget | None) -> str:
    if cluster is None:
        return "the Karpenter cluster"
    handle = cluster_handle(cluster)
    return f"{cluster.kind} {handle}" if isinstance(handle, str) else f"{cluster.kind} (an Output)"


def _note_advertised(prepared: dict[str, Any], ctx: FleetContext, entry_of: dict[str, str]) -> None:
    """What each named pool advertises, for the recipes and quotas validated after."""
    try:
        spec = AcceleratorStackArgs.model_validate(prepared)
    except Exception:
        return
    for pool in spec.pools:
        if pool.name not in entry_of or pool.accelerator is None:
            continue
        resource, count = advertised_resource(spec, pool)
        ctx.advertised[entry_of[pool.name]] = AdvertisedPool(
            resource, count, pool.accelerator.resource, pool.accelerator.count
        )


def label_served_pools(entries: list[FleetEntry], ctx: FleetContext) -> list[FleetEntry]:
    """Add each AcceleratorStack's node labels and advertised resources to the pool entries
    it serves, and check those pools again with them (their preflight results replaced)."""
    wanted: dict[str, dict[str, str]] = {}
    advertised: dict[str, dict[str, Any]] = {}
    issues: list[Issue] = _overlaps(entries, ctx)
    for entry in entries:
        if entry.component != STACK_COMPONENT:
            continue
        entry_of = ctx.device_pools.get(entry.name, {})
        for pool, labels in node_labels(entry.args).items():
            if pool in entry_of:
                wanted.setdefault(entry_of[pool], {}).update(labels)
        for pool, offered in advertised_overrides(entry.args).items():
            if pool in entry_of:
                advertised[entry_of[pool]] = offered
    out: list[FleetEntry] = []
    for entry in entries:
        extra = wanted.get(entry.name) or {}
        offered = advertised.get(entry.name)
        # Pools without the field (Karpenter, SharedNodePool) keep the hardware's resource.
        if offered is not None and not hasattr(entry.args, "advertised"):
            offered = None
        if not extra and offered is None:
            out.append(entry)
            continue
        own_offer = getattr(entry.args, "advertised", None)
        if offered is not None and own_offer is not None and own_offer.model_dump() != offered:
            issues.append(
                Issue(
                    f"{entry.path}.advertised",
                    f"{own_offer.model_dump()!r}, but with the AcceleratorStack serving this "
                    f"pool one node advertises {offered!r}",
                )
            )
            out.append(entry)
            continue
        own: dict[str, str] = dict(entry.args.labels)
        clashes = [k for k, v in extra.items() if k in own and own[k] != v]
        for key in clashes:
            issues.append(
                Issue(
                    f"{entry.path}.labels.{key}",
                    f"{own[key]!r}, but the AcceleratorStack serving this pool needs {extra[key]!r}",
                )
            )
        if clashes:
            out.append(entry)
            continue
        update: dict[str, Any] = {"labels": dict(sorted({**own, **extra}.items()))}
        if offered is not None:
            update["advertised"] = AdvertisedAccelerators.model_validate(offered)
        args = entry.args.model_copy(update=update)
        key = next(k for k in ctx.preflights if k[1] == entry.name)
        component_class: Any = key[0]
        ctx.preflights[key] = (args, component_class.preflight(entry.name, args))
        out.append(dataclasses.replace(entry, args=args))
    if issues:
        raise SpecError("fleet", issues)
    return out


def _overlaps(entries: list[FleetEntry], ctx: FleetContext) -> list[Issue]:
    """Two AcceleratorStacks may not serve one pool, nor one vendor on one cluster: the
    charts name their DaemonSets and cluster roles after themselves, and two GPU
    Operators would fight over the same nodes."""
    issues: list[Issue] = []
    pools: dict[str, str] = {}
    vendors: dict[tuple[str, str], str] = {}
    for entry in entries:
        if entry.component != STACK_COMPONENT:
            continue
        for pool in sorted(ctx.device_pools.get(entry.name, {}).values()):
            if pool in pools:
                issues.append(
                    Issue(f"{entry.path}.pools", f"pool {pool!r} is served by {pools[pool]!r} too")
                )
            pools.setdefault(pool, entry.name)
        cluster = ctx.device_clusters.get(entry.name, "")
        # The EFA device plugin counts as one more vendor: one release per cluster.
        efa = {"efa"} if entry.args.efa_pools else set[str]()
        for vendor in sorted(vendors_of(entry.args.pools) | efa):
            where = (cluster, vendor)
            if where in vendors:
                issues.append(
                    Issue(
                        f"{entry.path}.pools",
                        f"{vendors[where]!r} already installs the {vendor} software on "
                        f"{cluster} cluster; serve all its {vendor} pools from one AcceleratorStack",
                    )
                )
            vendors.setdefault(where, entry.name)
    return issues
