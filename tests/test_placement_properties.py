"""Properties of placement over generated pools and recipes (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from nodepools.workloads.placement import (
    PlacementError,
    RecipeDemand,
    SharedPool,
    matches,
    place_recipes,
)

# Few shapes and selectors, so pools compete for the same recipes.
SHAPES = ("BM.GPU.MI300X.8", "BM.GPU.A10.4")
SELECTORS = (None, "selector_1", "selector_2")


@st.composite
def pools(draw) -> list[SharedPool]:
    names = draw(st.lists(st.sampled_from("abcdefgh"), unique=True, max_size=8))
    return [
        SharedPool(
            name=f"pool-{name}",
            shape=draw(st.sampled_from(SHAPES)),
            size=draw(st.integers(0, 4)),
            gpus_per_node=draw(st.sampled_from((1, 2, 4, 8))),
            selector=draw(st.sampled_from(SELECTORS)),
        )
        for name in names
    ]


@st.composite
def recipes(draw, pool_names: list[str]) -> list[RecipeDemand]:
    names = draw(st.lists(st.text("xyzw", min_size=1, max_size=3), unique=True, max_size=16))
    found = []
    for name in names:
        candidates = draw(
            st.none() | st.frozensets(st.sampled_from(pool_names)) if pool_names else st.none()
        )
        found.append(
            RecipeDemand(
                name=name,
                shape=draw(st.sampled_from(SHAPES)),
                gpus=draw(st.integers(0, 5)),
                replicas=draw(st.integers(0, 3)),
                selector=draw(st.sampled_from(SELECTORS)),
                candidates=candidates,
            )
        )
    return found


@st.composite
def scenarios(draw) -> tuple[list[RecipeDemand], list[SharedPool]]:
    generated_pools = draw(pools())
    generated = draw(recipes([p.name for p in generated_pools]))
    return generated, generated_pools


def _allowed(recipe: RecipeDemand, pool: SharedPool) -> bool:
    return (recipe.candidates is None or pool.name in recipe.candidates) and matches(recipe, pool)


def _reference(recipes, pools) -> dict[str, str | None]:
    """The rule, written as plainly as possible: by name, the fitting pool with the most free."""
    free = {p.name: p.total_gpus for p in pools}
    chosen: dict[str, str | None] = {}
    for recipe in sorted(recipes, key=lambda r: r.name):
        fitting = [
            (-free[p.name], p.name)
            for p in pools
            if _allowed(recipe, p)
            and p.gpus_per_node >= recipe.gpus
            and free[p.name] >= recipe.total_gpus
        ]
        chosen[recipe.name] = min(fitting)[1] if fitting else None
        if fitting:
            free[min(fitting)[1]] -= recipe.total_gpus
    return chosen


def _too_big(recipe: RecipeDemand, pools: list[SharedPool]) -> bool:
    sizes = [p.gpus_per_node for p in pools if _allowed(recipe, p)]
    return bool(sizes) and recipe.gpus > max(sizes)


@settings(max_examples=120, deadline=None)
@given(scenarios(), st.randoms(use_true_random=False))
def test_placement_invariants(scenario, shuffler):
    generated, generated_pools = scenario
    try:
        result = place_recipes(generated, generated_pools)
    except PlacementError as exc:
        # Only a replica larger than every matching pool's nodes is an error.
        flagged = {(p.recipe, p.field) for p in exc.problems}
        expected = {(r.name, "gpus") for r in generated if _too_big(r, generated_pools)}
        assert flagged == expected and expected
        return
    assert not any(_too_big(r, generated_pools) for r in generated)
    by_name = {p.name: p for p in generated_pools}
    demands = {r.name: r for r in generated}

    # No pool over capacity, and `used` is exactly what its recipes ask for.
    for name, pool in by_name.items():
        on_pool = [demands[r] for r in result.recipes_on(name)]
        assert result.used[name] == sum(r.total_gpus for r in on_pool) <= pool.total_gpus

    # Every placed recipe matches its pool (and may use it); every waiting one had no room.
    for name, placed in result.assignments.items():
        recipe = demands[name]
        if placed is not None:
            assert _allowed(recipe, by_name[placed])
            assert recipe.gpus <= by_name[placed].gpus_per_node
        else:
            assert not any(
                _allowed(recipe, p)
                and p.gpus_per_node >= recipe.gpus
                and result.free(p.name) >= recipe.total_gpus
                for p in generated_pools
            )

    # The heap-indexed implementation makes exactly the plain rule's choices.
    assert dict(result.assignments) == _reference(generated, generated_pools)

    # Input order changes nothing.
    shuffled_recipes, shuffled_pools = generated[:], generated_pools[:]
    shuffler.shuffle(shuffled_recipes)
    shuffler.shuffle(shuffled_pools)
    again = place_recipes(shuffled_recipes, shuffled_pools)
    assert again.assignments == result.assignments
    assert again.used == result.used
