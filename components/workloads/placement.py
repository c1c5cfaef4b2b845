"""Deterministic placement of recipes onto shared pools. Pure: no pulumi import.

The rules follow OCI AI Blueprints' shared node pools:

- A recipe **matches** a shared pool when their shapes are equal and, if the recipe gives
  a selector, the pool's selector equals it (a recipe without one may use any pool of its
  shape, with or without a selector).
- **Capacity**: the accelerators requested by the recipes placed on a pool
  (`gpus x replicas` each) never exceed `gpus_per_node x size`. One replica runs on one
  node, so a recipe asking for more than `gpus_per_node` per replica is an error (naming
  `gpus`) rather than something to wait for.
- A recipe that fits no pool is **waiting**, not an error: it is still deployed, with a
  node selector for its shape (and selector) so its pods stay Pending until a matching
  pool has room, as in OCI AI Blueprints.

**The choice is deterministic.** Among the matching pools with room, a recipe goes to the
one with the most free accelerators, ties broken by pool name, where OCI AI Blueprints
picks one at random: in infrastructure as code a random choice would be made again on
every `pulumi up` and move workloads between pools (a rollout each time, and a diff in
every preview); here the same recipes and pools always give the same placement.

**Order.** Recipes pinned to a pool are counted first, then the others are placed one by
one in order of name, so the result doesn't depend on the order they were declared in.
Most-free-first spreads load, leaving room on every pool for the next recipe.

**What is counted.** Capacity is counted per pool, not per node: the Kubernetes scheduler
chooses nodes (its default scoring ignores extended resources), so which node of a
multi-node pool a replica lands on can't be predicted, and fragmentation across nodes can
still leave a replica Pending. With `size` 1, the usual shared pool, the count is exact.

Pools are indexed by (shape, selector) and by shape, each group a heap keyed by
(-free accelerators, name) with lazy deletion, so a recipe costs O(log pools), not a scan.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from nodepools.specs.core.base import Issue, SpecError

if TYPE_CHECKING:  # annotations only: the plan's report places recipes without their specs
    from nodepools.specs.pools.shared import SharedPoolDescription
    from nodepools.specs.workloads.recipe import ResolvedRecipe, Status

Pin = str | Literal[False] | None


@dataclass(frozen=True, slots=True)
class SharedPool:
    """What placement knows of a shared pool."""

    name: str
    shape: str
    size: int
    gpus_per_node: int
    selector: str | None = None

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_node * self.size


@dataclass(frozen=True, slots=True)
class RecipeDemand:
    """What placement knows of a recipe.

    `candidates`: the pools (by name) it may use; None for every pool given to placement.
    `pin`: a pool it must go on, `False` to keep it waiting, None to let placement choose.
    """

    name: str
    shape: str
    gpus: int
    replicas: int = 1
    selector: str | None = None
    candidates: frozenset[str] | None = None
    pin: Pin = None

    @property
    def total_gpus(self) -> int:
        return self.gpus * self.replicas


def matches(recipe: RecipeDemand, pool: SharedPool) -> bool:
    return pool.shape == recipe.shape and (
        recipe.selector is None or pool.selector == recipe.selector
    )


@dataclass(frozen=True)
class PlacementProblem:
    """Why a recipe (or the pool list, when `recipe` is None) can't be placed at all."""

    recipe: str | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"recipe {self.recipe!r} `{self.field}`" if self.recipe else f"`{self.field}`"
        return f"{where}: {self.message}"


class PlacementError(ValueError):
    """Every problem found, raised once before anything is placed."""

    def __init__(self, problems: Iterable[PlacementProblem]):
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {problem}" for problem in self.problems)
        super().__init__(f"recipes can't be placed:\n{lines}")


@dataclass(frozen=True)
class PlacementResult:
    """Recipe -> pool name (None: waiting), and the accelerators used on each pool."""

    assignments: Mapping[str, str | None]
    pools: Mapping[str, SharedPool]
    used: Mapping[str, int]
    demands: Mapping[str, RecipeDemand] = field(repr=False)

    def pool_of(self, recipe: str) -> str | None:
        return self.assignments[recipe]

    def status(self, recipe: str) -> Status:
        return "placed" if self.assignments[recipe] is not None else "waiting"

    def waiting(self) -> list[str]:
        return [name for name, pool in self.assignments.items() if pool is None]

    def recipes_on(self, pool: str) -> list[str]:
        return [name for name, placed in self.assignments.items() if placed == pool]

    def free(self, pool: str) -> int:
        return self.pools[pool].total_gpus - self.used[pool]

    def reason(self, recipe: str) -> str | None:
        """Why a waiting recipe waits (None for a placed one)."""
        if self.assignments[recipe] is not None:
            return None
        return explain_waiting(self.demands[recipe], self.pools.values(), self.used)


class _PoolIndex:
    """Free accelerators per pool, with a heap per (shape, selector) and per shape."""

    def __init__(self, pools: Mapping[str, SharedPool]):
        self.pools = pools
        self.free = {name: pool.total_gpus for name, pool in pools.items()}
        self.heaps: dict[tuple[str, str | None], list[tuple[int, str]]] = {}
        self.most_per_node: dict[tuple[str, str | None], int] = {}
        self._matching: dict[str, list[SharedPool]] = {}
        members: dict[tuple[str, str | None], set[str]] = {}
        for pool in pools.values():
            for key in self._keys(pool):
                members.setdefault(key, set()).add(pool.name)
                self.heaps.setdefault(key, []).append((-pool.total_gpus, pool.name))
                self.most_per_node[key] = max(self.most_per_node.get(key, 0), pool.gpus_per_node)
        for heap in self.heaps.values():
            heapq.heapify(heap)
        self.names = {key: frozenset(names) for key, names in members.items()}

    @staticmethod
    def _keys(pool: SharedPool) -> tuple[tuple[str, str | None], ...]:
        # Recipes without a selector look at every pool of the shape: key (shape, None).
        if pool.selector is None:
            return ((pool.shape, None),)
        return ((pool.shape, None), (pool.shape, pool.selector))

    def _candidates(self, recipe: RecipeDemand) -> list[SharedPool]:
        # Asked twice per recipe (node size check, then the choice): computed once.
        found = self._matching.get(recipe.name)
        if found is None:
            assert recipe.candidates is not None
            # The group of (shape, selector) holds exactly the pools the recipe matches.
            group = self.names.get((recipe.shape, recipe.selector), frozenset())
            found = self._matching[recipe.name] = [
                self.pools[name] for name in recipe.candidates & group
            ]
        return found

    def most_per_node_for(self, recipe: RecipeDemand) -> int | None:
        """The most accelerators one node of a matching pool has; None when none matches."""
        if recipe.candidates is not None:
            found = self._candidates(recipe)
            return max((pool.gpus_per_node for pool in found), default=None)
        return self.most_per_node.get((recipe.shape, recipe.selector))

    def best(self, recipe: RecipeDemand) -> str | None:
        """The matching pool with room and the most free accelerators (then by name)."""
        need = recipe.total_gpus
        if recipe.candidates is not None:
            fitting = [
                (-self.free[pool.name], pool.name)
                for pool in self._candidates(recipe)
                if pool.gpus_per_node >= recipe.gpus and self.free[pool.name] >= need
            ]
            return min(fitting)[1] if fitting else None
        heap = self.heaps.get((recipe.shape, recipe.selector))
        if not heap:
            return None
        skipped: list[tuple[int, str]] = []
        chosen = None
        while heap:
            negative_free, name = heap[0]
            if -negative_free != self.free[name]:
                heapq.heappop(heap)  # stale: the pool has been used since
                continue
            if -negative_free < need:
                break  # the most free pool left has no room, so none has
            if self.pools[name].gpus_per_node < recipe.gpus:
                skipped.append(heapq.heappop(heap))  # a pool with smaller nodes
                continue
            chosen = name
            break
        for entry in skipped:
            heapq.heappush(heap, entry)
        return chosen

    def take(self, name: str, amount: int) -> None:
        if amount == 0:
            return
        self.free[name] -= amount
        entry = (-self.free[name], name)
        for key in self._keys(self.pools[name]):
            heapq.heappush(self.heaps[key], entry)


def place_recipes(recipes: Iterable[RecipeDemand], pools: Iterable[SharedPool]) -> PlacementResult:
    """Place every recipe together, deterministically; raise PlacementError for recipes
    that could never fit (a replica larger than a node, a pin that doesn't hold)."""
    problems: list[PlacementProblem] = []
    pools_by_name: dict[str, SharedPool] = {}
    for pool in pools:
        if pool.name in pools_by_name and pools_by_name[pool.name] != pool:
            problems.append(
                PlacementProblem(
                    None, "pools", f"pool {pool.name!r} is described twice, differently"
                )
            )
        pools_by_name[pool.name] = pool
    pools_by_name = dict(sorted(pools_by_name.items()))
    demands: dict[str, RecipeDemand] = {}
    for recipe in recipes:
        if recipe.name in demands:
            problems.append(PlacementProblem(recipe.name, "name", "is used by two recipes"))
        demands[recipe.name] = recipe
    demands = dict(sorted(demands.items()))

    index = _PoolIndex(pools_by_name)
    for recipe in demands.values():
        most = index.most_per_node_for(recipe)
        if most is not None and recipe.gpus > most:
            problems.append(
                PlacementProblem(
                    recipe.name,
                    "gpus",
                    f"{recipe.gpus} per replica is more than one node of a matching "
                    f"{recipe.shape} pool has ({most}); a replica runs on one node",
                )
            )
    assignments: dict[str, str | None] = {}
    for recipe in demands.values():
        if isinstance(recipe.pin, str):
            problem = _pin_problem(recipe, index)
            if problem:
                problems.append(PlacementProblem(recipe.name, "placement", problem))
            else:
                index.take(recipe.pin, recipe.total_gpus)
                assignments[recipe.name] = recipe.pin
    if problems:
        raise PlacementError(problems)

    for recipe in demands.values():
        if recipe.name in assignments:
            continue
        chosen = None if recipe.pin is False else index.best(recipe)
        if chosen is not None:
            index.take(chosen, recipe.total_gpus)
        assignments[recipe.name] = chosen
    used = {name: pool.total_gpus - index.free[name] for name, pool in pools_by_name.items()}
    return PlacementResult(dict(sorted(assignments.items())), pools_by_name, used, demands)


def _pin_problem(recipe: RecipeDemand, index: _PoolIndex) -> str | None:
    name = recipe.pin
    assert isinstance(name, str)
    pool = index.pools.get(name)
    if pool is None or (recipe.candidates is not None and name not in recipe.candidates):
        return f"{name!r} is not one of the recipe's pools"
    if not matches(recipe, pool):
        wanted = f"shape {recipe.shape}" + (
            f" and selector {recipe.selector!r}" if recipe.selector is not None else ""
        )
        return (
            f"{name!r} (shape {pool.shape}, selector {pool.selector!r}) doesn't match the "
            f"recipe's {wanted}"
        )
    if pool.gpus_per_node < recipe.gpus:
        return f"{name!r} has {pool.gpus_per_node} accelerators per node; a replica needs {recipe.gpus}"
    if index.free[name] < recipe.total_gpus:
        return (
            f"{name!r} has {index.free[name]} of {pool.total_gpus} accelerators free after "
            f"the other pinned recipes; this one needs {recipe.total_gpus}"
        )
    return None


def explain_waiting(
    recipe: RecipeDemand, pools: Iterable[SharedPool], used: Mapping[str, int]
) -> str:
    """Why `recipe` fits no pool, given the accelerators `used` on each."""
    if recipe.pin is False:
        return "kept waiting (`placement: false`)"
    among = [p for p in pools if recipe.candidates is None or p.name in recipe.candidates]
    scope = " among its candidate pools" if recipe.candidates is not None else ""
    same_shape = [p for p in among if p.shape == recipe.shape]
    if not same_shape:
        return f"no shared pool of shape {recipe.shape}{scope}"
    matching = [p for p in same_shape if matches(recipe, p)]
    if not matching:
        return f"no shared pool of shape {recipe.shape} has selector {recipe.selector!r}{scope}"
    roomiest = min(matching, key=lambda p: (-(p.total_gpus - used.get(p.name, 0)), p.name))
    free = roomiest.total_gpus - used.get(roomiest.name, 0)
    return (
        f"needs {recipe.total_gpus} accelerators ({recipe.replicas} x {recipe.gpus}); the most "
        f"free matching pool, {roomiest.name}, has {free} of {roomiest.total_gpus} free"
    )


# --- from specs ----------------------------------------------------------------------------


def shared_pool(description: SharedPoolDescription) -> SharedPool:
    return SharedPool(
        name=description.name,
        shape=description.shape,
        size=description.size,
        gpus_per_node=description.gpus_per_node or 0,
        selector=description.selector,
    )


def recipe_demand(recipe: ResolvedRecipe, pin: Pin = None) -> RecipeDemand:
    """The recipe as placement sees it: its candidates are its `pools`."""
    return RecipeDemand(
        name=recipe.name,
        shape=recipe.shape,
        gpus=recipe.gpus,
        replicas=recipe.replicas,
        selector=recipe.selector,
        candidates=frozenset(pool.name for pool in recipe.pools),
        pin=recipe.placement if pin is None else pin,
    )


@dataclass(frozen=True)
class Decision:
    """Where one recipe goes: `status`, and the pool when placed."""

    status: Status
    pool: SharedPoolDescription | None = None

    @property
    def pool_name(self) -> str | None:
        return self.pool.name if self.pool is not None else None


def decide(recipe: ResolvedRecipe) -> Decision:
    """A standalone recipe's placement: its pin, or placed alone against its own `pools`.

    Alone, a recipe can't see the accelerators other recipes use on the same pools; a
    fleet places all its recipes together (`place_recipes`) and pins the results, and the
    plan flags a pool that standalone recipes over-commit.
    """
    if not recipe.use_shared_pool:
        return Decision("unshared")
    try:
        result = place_recipes([recipe_demand(recipe)], [shared_pool(p) for p in recipe.pools])
    except PlacementError as exc:
        # RecipeArgs validation catches these first; kept so no path raises anything else.
        raise SpecError(
            f"Recipe {recipe.name!r}", [Issue(p.field, p.message) for p in exc.problems]
        ) from None
    chosen = result.pool_of(recipe.name)
    if chosen is None:
        return Decision("waiting")
    return Decision("placed", recipe.pool(chosen))
