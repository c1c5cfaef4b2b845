"""Fleet hooks for the `governance` section: fleet pool names -> pool descriptions.

In stack config, PoolQuotas `pools` and PoolPlatforms `pool` may name pools of the
`nodepools:pools` section (`pools: [gpu-spot, {name: default, gpus: 80}]`); a name becomes
the description of that pool as it will be built (identity label, taints, accelerators
at its maximum size, or up to its `limits` for a Karpenter pool). A PoolPlatforms `pool`
that names no fleet pool is a pool that exists outside this stack (an OSMO pool) and stays
a plain name.

Each hook also renders the entry once (without registering anything), so the fleet's
validation reports every problem of a governance entry, with its config path, before the
first resource of the stack is created.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from nodepools._lazy import deferred
from nodepools.fleet.context import FleetContext
from nodepools.governance.kueue import render_quotas
from nodepools.governance.platform_objects import render_platforms
from nodepools.specs.core.base import Issue, SpecError, SpecModel
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.devices.advertised_pools import advertise_governed
from nodepools.specs.governance.governed_pool import describe_karpenter, describe_resolved
from nodepools.specs.governance.osmo_platforms import OsmoPlatformsArgs, is_osmo_form
from nodepools.specs.governance.platforms import PoolPlatformsArgs
from nodepools.specs.governance.quotas import PoolQuotasArgs

# Each kind's resolve function is imported when a pool of that kind is described: a stack
# with such a pool has loaded it already, one governing only pools described by hand never
# builds those specs.
_resolve_karpenter = deferred("nodepools.specs.karpenter.resolve", "resolve_karpenter_pool")


def _karpenter(args: Any, name: str) -> tuple[dict[str, Any], Any]:
    # The fleet checked the entry already, so resolving it again raises nothing. A Karpenter
    # pool lives in the cluster of the Kubernetes provider, not in one the fleet declares:
    # its cluster is unknown (None), which matches any other pool's.
    return describe_karpenter(_resolve_karpenter(args, name), name), None


def _managed(
    resolve: Callable[[Any, str], Any],
) -> Callable[[Any, str], tuple[dict[str, Any], Any]]:
    def describe(args: Any, name: str) -> tuple[dict[str, Any], Any]:
        resolved = resolve(args, name)
        return describe_resolved(resolved, name), resolved.cluster

    return describe


# Pool kinds whose built pool can be described from their args alone:
# kind -> (args, name) -> (description, cluster or None when unknown).
DESCRIBERS: dict[str, Callable[[Any, str], tuple[dict[str, Any], Any]]] = {
    "MachinePool": _managed(deferred("nodepools.specs.pools.resolve", "resolve_pool")),
    "GpuSpotPool": _managed(deferred("nodepools.specs.pools.resolve", "resolve_gpu_spot_pool")),
    "SharedNodePool": _managed(deferred("nodepools.specs.pools.shared", "resolve_shared_pool")),
    "KarpenterNodePool": _karpenter,
}


def _describe_fleet_pool(
    name: str, ctx: FleetContext, path: str
) -> tuple[dict[str, Any], Any] | Issue:
    """(description, cluster) of fleet pool `name`, or the Issue explaining why not."""
    entry = ctx.entries.get(name)
    if entry is None:
        known = ", ".join(sorted(n for n, (kind, _) in ctx.entries.items() if kind in DESCRIBERS))
        return Issue(path, f"unknown fleet pool {name!r} (pools: {known or 'none declared'})")
    component, args = entry
    describe = DESCRIBERS.get(component)
    if describe is None:
        return Issue(
            path,
            f"{name!r} is a {component}, which governance can't read by name; describe "
            "it ({name, node_labels, taints, gpus, cpu, memory})",
        )
    description, cluster = describe(args, name)
    # Quota in the resource its nodes advertise (MIG slices, time-sliced GPUs).
    return advertise_governed(description, ctx.advertised.get(name)), cluster


def _dry_run(
    model: type[SpecModel],
    render: Callable[[str, Any], Any],
    args: dict[str, Any],
    ctx: FleetContext,
    path: str,
) -> dict[str, Any]:
    """Validate and render the entry (registering nothing); problems carry config paths."""
    spec = parse_spec(model, args, "fleet", prefix=path)
    try:
        render(ctx.current_entry or "", spec)
    except SpecError as error:
        issues = [
            Issue(f"{path}.{issue.path}" if issue.path else path, issue.message)
            for issue in error.issues
        ]
        raise SpecError("fleet", issues) from None
    return args


def prepare_quotas(args: dict[str, Any], ctx: FleetContext, path: str) -> dict[str, Any]:
    pools: Any = args.get("pools")
    if isinstance(pools, list):
        issues: list[Issue] = []
        described: list[Any] = []
        clusters: list[tuple[str, Any]] = []
        for i, pool in enumerate(cast("list[Any]", pools)):
            if not isinstance(pool, str):
                described.append(pool)
                continue
            found = _describe_fleet_pool(pool, ctx, f"{path}.pools[{i}]")
            if isinstance(found, Issue):
                issues.append(found)
                continue
            description, cluster = found
            # Kueue objects live in one cluster; quota can't span clusters (no MultiKueue).
            for other, other_cluster in clusters:
                if None not in (cluster, other_cluster) and other_cluster != cluster:
                    issues.append(
                        Issue(
                            f"{path}.pools[{i}]",
                            f"pool {pool!r} is on another cluster than {other!r}; one "
                            "PoolQuotas governs the pools of one cluster",
                        )
                    )
                    break
            clusters.append((pool, cluster))
            described.append(description)
        if issues:
            raise SpecError("fleet", issues)
        args = {**args, "pools": described}
    return _dry_run(PoolQuotasArgs, render_quotas, args, ctx, path)


def prepare_platforms(args: dict[str, Any], ctx: FleetContext, path: str) -> dict[str, Any]:
    pool = args.get("pool")
    if isinstance(pool, str) and pool in ctx.entries:
        found = _describe_fleet_pool(pool, ctx, f"{path}.pool")
        if isinstance(found, Issue):
            raise SpecError("fleet", [found])
        args = {**args, "pool": found[0]}
    if is_osmo_form(args):
        # The Kubernetes target's pool may name a fleet pool too.
        target: Any = args.get("kubernetes")
        target = cast("dict[str, Any]", target) if isinstance(target, dict) else None
        named = target.get("pool") if target is not None else None
        if isinstance(named, str) and named in ctx.entries:
            found = _describe_fleet_pool(named, ctx, f"{path}.kubernetes.pool")
            if isinstance(found, Issue):
                raise SpecError("fleet", [found])
            args = {**args, "kubernetes": {**(target or {}), "pool": found[0]}}
        return _dry_run(OsmoPlatformsArgs, _build_osmo, args, ctx, path)
    return _dry_run(PoolPlatformsArgs, render_platforms, args, ctx, path)


def _build_osmo(name: str, spec: OsmoPlatformsArgs) -> Any:
    from nodepools.governance.pool_platforms import build_platforms

    return build_platforms(name, spec)
