"""Recipes in a fleet: pool references looked up, then every recipe placed together.

Stack config::

    nodepools:recipes:
      - {component: Recipe, name: echo, image: hashicorp/http-echo, node_shape: BM.GPU.MI300X.8,
         shared_pool_selector: selector_1, pools: [mi300x-a, mi300x-b]}

`pools` names SharedNodePool entries of the `pools` section (or gives descriptions of
pools created elsewhere); left out, it is every SharedNodePool of the stack. The recipes
become plain descriptions, so they are validated before anything is created and never
depend on the pool resources. All recipes of the stack are then placed together
(`place_recipes`: deterministic, each sees the accelerators the others use) and each
entry is pinned to its result (`placement`: a pool name, or `false` to wait).
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from nodepools.fleet.context import FleetContext, FleetEntry
from nodepools.specs.core.base import Issue, SpecError
from nodepools.specs.devices.advertised_pools import advertise_shared
from nodepools.specs.pools.shared import (
    SharedPoolDescription,
    describe_shared_pool,
    resolve_shared_pool,
)
from nodepools.specs.workloads.recipe import resolve_recipe
from nodepools.workloads.placement import (
    PlacementError,
    RecipeDemand,
    SharedPool,
    place_recipes,
    recipe_demand,
    shared_pool,
)

SHARED_POOL_COMPONENT = "SharedNodePool"
RECIPE_COMPONENT = "Recipe"


def _shared_pools(ctx: FleetContext) -> dict[str, Any]:
    return {
        name: args
        for name, (component, args) in ctx.entries.items()
        if component == SHARED_POOL_COMPONENT
    }


def _cluster_entry_name(ctx: FleetContext, cluster: Any) -> str:
    """The `nodepools:clusters` entry declaring `cluster`, for messages."""
    for name, declared in ctx.clusters.items():
        if declared == cluster:
            return name
    return "an inline cluster"


def prepare_recipe(args: dict[str, Any], ctx: FleetContext, path: str) -> dict[str, Any]:
    """Turn `pools: [names]` into descriptions of SharedNodePool entries declared earlier."""
    if args.get("use_shared_pool", True) is False:
        return args
    shared = _shared_pools(ctx)
    given = "pools" in args
    references: Any = args["pools"] if given else sorted(shared)
    if not isinstance(references, list):
        return args  # the model reports the type
    issues: list[Issue] = []
    pools: list[Any] = []
    clusters: dict[str, list[str]] = {}
    for index, reference in enumerate(cast("list[Any]", references)):
        where = f"{path}.pools[{index}]" if given else f"{path}.pools"
        if not isinstance(reference, str):
            pools.append(reference)  # a description of a pool created elsewhere
            continue
        if reference not in shared:
            known = ", ".join(sorted(shared)) or "none declared"
            issues.append(
                Issue(where, f"unknown shared pool {reference!r} (SharedNodePools: {known})")
            )
            continue
        pool_args = shared[reference]
        try:
            # In the resource its nodes advertise (MIG slices, time-sliced GPUs).
            description: SharedPoolDescription = advertise_shared(
                describe_shared_pool(resolve_shared_pool(pool_args, reference)),
                ctx.advertised.get(reference),
            )
        except SpecError as exc:
            issues.extend(Issue(where, f"pool {reference!r}: {issue}") for issue in exc.issues)
            continue
        pools.append(description)
        clusters.setdefault(_cluster_entry_name(ctx, pool_args.cluster), []).append(reference)
    if len(clusters) > 1:
        spread = "; ".join(f"{c}: {', '.join(names)}" for c, names in sorted(clusters.items()))
        issues.append(
            Issue(
                f"{path}.pools",
                f"the pools are in {len(clusters)} clusters ({spread}); a recipe deploys into "
                "one cluster, so list only pools of that cluster"
                + ("" if given else " (left out, `pools` is every SharedNodePool of the stack)"),
            )
        )
    if issues:
        raise SpecError("fleet", issues)
    return {**args, "pools": pools}


def place_fleet_recipes(entries: list[FleetEntry]) -> list[FleetEntry]:
    """Place every recipe entry together and pin each to its result."""
    recipes = [e for e in entries if e.component == RECIPE_COMPONENT]
    issues: list[Issue] = []
    demands: list[RecipeDemand] = []
    pools: list[SharedPool] = []
    paths: dict[str, str] = {}
    for entry in recipes:
        try:
            recipe = resolve_recipe(entry.args, entry.name)
        except SpecError as exc:
            issues.extend(Issue(f"{entry.path}.{i.path}", i.message) for i in exc.issues)
            continue
        if not recipe.use_shared_pool:
            continue
        paths[entry.name] = entry.path
        demands.append(recipe_demand(recipe))
        pools.extend(shared_pool(description) for description in recipe.pools)
    if issues:
        raise SpecError("fleet", issues)
    try:
        result = place_recipes(demands, pools)
    except PlacementError as exc:
        raise SpecError(
            "fleet",
            [
                Issue(
                    f"{paths[p.recipe]}.{p.field}"
                    if p.recipe
                    else f"nodepools:recipes ({p.field})",
                    p.message,
                )
                for p in exc.problems
            ],
        ) from None
    placed: list[FleetEntry] = []
    for entry in entries:
        if entry.name in result.assignments:
            pin = result.pool_of(entry.name) or False
            entry = dataclasses.replace(
                entry, args=entry.args.model_copy(update={"placement": pin})
            )
        placed.append(entry)
    return placed
