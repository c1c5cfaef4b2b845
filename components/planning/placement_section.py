"""The plan's placement section: accelerator use per shared pool, where each recipe went,
and which recipes wait (and why).

It reads what the components registered: SharedNodePool outputs, and each Recipe's
registered spec (with its candidate pools, so pools created elsewhere show too) and
outputs. A pool whose recipes ask for more than it has counts as a failure: that happens
when standalone Recipes are each placed alone against the same pools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nodepools.offline import Capture
from nodepools.planning.report import Section
from nodepools.workloads.placement import RecipeDemand, SharedPool, explain_waiting

SHARED_POOL_TYPE = "nodepools:index:SharedNodePool"
RECIPE_TYPE = "nodepools:index:Recipe"


@dataclass
class _Pool:
    pool: SharedPool
    resource: str | None
    in_stack: bool
    used: int = 0
    recipes: list[str] = field(default_factory=list)


def _int(value: Any) -> int:
    return int(value or 0)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _stack_pools(capture: Capture) -> dict[str, _Pool]:
    pools: dict[str, _Pool] = {}
    for component in capture.components(SHARED_POOL_TYPE):
        outputs = capture.outputs_of(component)
        spec: dict[str, Any] = component.inputs.get("spec") or {}
        name = outputs.get("pool_name") or spec.get("poolName") or component.name
        pools[name] = _Pool(
            SharedPool(
                name=name,
                shape=outputs.get("shape") or spec.get("instanceType", "?"),
                size=_int(spec.get("maxNodes")),
                gpus_per_node=_int(outputs.get("gpus_per_node")),
                selector=outputs.get("selector"),
            ),
            spec.get("acceleratorResource"),
            in_stack=True,
        )
    return pools


def _described_pool(description: dict[str, Any]) -> _Pool:
    return _Pool(
        SharedPool(
            name=description["name"],
            shape=description.get("shape", "?"),
            size=_int(description.get("size")),
            gpus_per_node=_int(description.get("gpusPerNode")),
            selector=description.get("selector"),
        ),
        description.get("acceleratorResource"),
        in_stack=False,
    )


@dataclass
class _Recipe:
    name: str
    status: str
    placement: str | None
    demand: RecipeDemand
    resource: str | None


def _collect(capture: Capture) -> tuple[dict[str, _Pool], list[_Recipe]]:
    """The shared pools (of this stack, and those recipes name from elsewhere) with the
    accelerators their placed recipes use, and every recipe, sorted by name."""
    pools = _stack_pools(capture)
    recipes: list[_Recipe] = []
    for recipe in sorted(capture.components(RECIPE_TYPE), key=lambda r: r.name):
        spec: dict[str, Any] = recipe.inputs.get("spec") or {}
        outputs = capture.outputs_of(recipe)
        for description in spec.get("pools") or ():
            pools.setdefault(description["name"], _described_pool(description))
        demand = RecipeDemand(
            name=recipe.name,
            shape=spec.get("nodeShape", "?"),
            gpus=_int(spec.get("gpus")),
            replicas=_int(spec.get("replicas")),
            selector=spec.get("sharedPoolSelector"),
            candidates=frozenset(p["name"] for p in spec.get("pools") or ()),
        )
        placement = outputs.get("placement")
        if placement in pools:
            pools[placement].used += demand.total_gpus
            pools[placement].recipes.append(f"{recipe.name} ({demand.replicas}x{demand.gpus})")
        recipes.append(
            _Recipe(
                recipe.name,
                outputs.get("status", "?"),
                placement,
                demand,
                spec.get("acceleratorResource"),
            )
        )
    return pools, recipes


def placement_data(capture: Capture) -> dict[str, list[dict[str, Any]]]:
    """The placement of the plan as data (the JSON plan's `placement`)."""
    pools, recipes = _collect(capture)
    return {
        "shared_pools": [
            {
                "name": name,
                "in_stack": entry.in_stack,
                "shape": entry.pool.shape,
                "selector": entry.pool.selector,
                "resource": entry.resource,
                "used": entry.used,
                "total": entry.pool.total_gpus,
                "recipes": entry.recipes,
            }
            for name, entry in sorted(pools.items())
        ],
        "recipes": [
            {
                "name": recipe.name,
                "status": recipe.status,
                "pool": recipe.placement,
                "shape": recipe.demand.shape,
                "selector": recipe.demand.selector,
                "replicas": recipe.demand.replicas,
                "accelerators_per_replica": recipe.demand.gpus,
                "resource": recipe.resource,
            }
            for recipe in recipes
        ],
    }


def placement_section(capture: Capture) -> Section | None:
    pools, recipes = _collect(capture)
    if not recipes and not pools:
        return None
    section = Section("Shared pools and recipes")
    rows: list[tuple[str, ...]] = [("recipe", "status", "pool", "shape", "selector", "asks for")]
    waiting: list[tuple[str, RecipeDemand]] = []
    for recipe in recipes:
        demand = recipe.demand
        if recipe.status == "waiting":
            waiting.append((recipe.name, demand))
        asks = f"{demand.replicas} x {demand.gpus}" + (
            f" {recipe.resource}" if recipe.resource else ""
        )
        rows.append(
            (
                recipe.name,
                recipe.status,
                recipe.placement or "-",
                demand.shape,
                demand.selector or "-",
                asks,
            )
        )

    section.lines.append("Accelerators used / total per shared pool:")
    pool_rows: list[tuple[str, ...]] = [
        ("pool", "shape", "selector", "accelerator", "used/total", "recipes")
    ]
    for name, entry in sorted(pools.items()):
        total = entry.pool.total_gpus
        over = entry.used > total
        if over:
            section.failures += 1
        pool_rows.append(
            (
                name if entry.in_stack else f"{name} (elsewhere)",
                entry.pool.shape,
                entry.pool.selector or "-",
                entry.resource or "-",
                f"{entry.used}/{total}" + (" OVER CAPACITY" if over else ""),
                ", ".join(entry.recipes) or "-",
            )
        )
    section.lines.extend(f"  {line}" for line in _table(pool_rows))
    for name, entry in sorted(pools.items()):
        if entry.used > entry.pool.total_gpus:
            section.lines.append(
                f"  {name}: recipes ask for {entry.used} accelerators and it has "
                f"{entry.pool.total_gpus}; Recipes placed alone can't see each other: declare "
                "them in one fleet (`nodepools:recipes`) or pin `placement`"
            )
    if len(rows) > 1:
        section.lines.append("Recipes:")
        section.lines.extend(f"  {line}" for line in _table(rows))
    if waiting:
        section.lines.append(
            "Waiting recipes (deployed; their pods stay Pending until a matching shared pool "
            "has room):"
        )
        used = {name: entry.used for name, entry in pools.items()}
        everything = [entry.pool for entry in pools.values()]
        for name, demand in waiting:
            section.lines.append(f"  {name}: {explain_waiting(demand, everything, used)}")
    return section
