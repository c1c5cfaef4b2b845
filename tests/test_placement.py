"""Placement of recipes onto shared pools: matching, capacity, waiting, determinism."""

from __future__ import annotations

import random

import pytest
from nodepools.workloads.placement import (
    PlacementError,
    RecipeDemand,
    SharedPool,
    explain_waiting,
    place_recipes,
)

MI300X = "BM.GPU.MI300X.8"
A10 = "BM.GPU.A10.4"


def pool(name: str, shape: str = MI300X, size: int = 1, per_node: int = 8, selector=None):
    return SharedPool(name, shape, size, per_node, selector)


def recipe(name: str, gpus: int = 1, replicas: int = 1, shape: str = MI300X, **kwargs):
    return RecipeDemand(name, shape, gpus, replicas, **kwargs)


def test_a_recipe_never_lands_on_a_pool_of_another_shape():
    result = place_recipes([recipe("r", shape=A10)], [pool("mi300x")])
    assert result.pool_of("r") is None
    assert result.status("r") == "waiting"
    assert result.used == {"mi300x": 0}
    assert result.reason("r") == f"no shared pool of shape {A10}"


def test_a_recipe_with_a_selector_lands_only_on_the_pool_with_that_selector():
    pools = [pool("a-open"), pool("b-selected", selector="selector_1")]
    result = place_recipes([recipe("r", selector="selector_1")], pools)
    assert result.pool_of("r") == "b-selected"


def test_a_selector_no_pool_has_waits():
    pools = [pool("a-open"), pool("b-selected", selector="selector_1")]
    result = place_recipes([recipe("r", selector="selector_2")], pools)
    assert result.waiting() == ["r"]
    assert result.reason("r") == f"no shared pool of shape {MI300X} has selector 'selector_2'"


def test_a_recipe_without_a_selector_may_use_a_pool_that_has_one():
    result = place_recipes([recipe("r")], [pool("only", selector="selector_1")])
    assert result.pool_of("r") == "only"


def test_capacity_exactly_full_places_everything():
    result = place_recipes([recipe("a", gpus=4), recipe("b", gpus=2, replicas=2)], [pool("p")])
    assert result.assignments == {"a": "p", "b": "p"}
    assert result.used == {"p": 8}
    assert result.free("p") == 0
    assert result.recipes_on("p") == ["a", "b"]


def test_over_capacity_goes_to_the_next_pool_with_room():
    # a fills most of p1 (ties go by name); b doesn't fit the 2 left there, so it takes p2.
    result = place_recipes([recipe("a", gpus=6), recipe("b", gpus=6)], [pool("p1"), pool("p2")])
    assert result.assignments == {"a": "p1", "b": "p2"}


def test_over_capacity_everywhere_waits_and_says_why():
    recipes = [recipe("a", gpus=4), recipe("b", gpus=4), recipe("c", gpus=2, replicas=2)]
    result = place_recipes(recipes, [pool("p")])
    assert result.assignments == {"a": "p", "b": "p", "c": None}
    assert result.used == {"p": 8}
    assert result.reason("c") == (
        "needs 4 accelerators (2 x 2); the most free matching pool, p, has 0 of 8 free"
    )


def test_capacity_counts_every_node_of_the_pool():
    result = place_recipes([recipe("r", gpus=8, replicas=3)], [pool("p", size=3)])
    assert result.pool_of("r") == "p"
    assert result.used == {"p": 24}


def test_a_pool_of_size_zero_holds_nothing():
    result = place_recipes([recipe("r")], [pool("p", size=0)])
    assert result.pool_of("r") is None


def test_a_replica_larger_than_a_node_is_an_error_naming_gpus():
    with pytest.raises(PlacementError) as caught:
        place_recipes([recipe("big", gpus=16), recipe("ok", gpus=8)], [pool("p", size=4)])
    [problem] = caught.value.problems
    assert (problem.recipe, problem.field) == ("big", "gpus")
    assert "16 per replica is more than one node of a matching BM.GPU.MI300X.8 pool has (8)" in (
        problem.message
    )
    assert "recipe 'big' `gpus`" in str(caught.value)


def test_a_replica_larger_than_a_node_with_no_matching_pool_just_waits():
    # Nothing to compare with: the Recipe spec checks the catalog instead.
    result = place_recipes([recipe("r", gpus=16, selector="s")], [pool("p", selector="other")])
    assert result.pool_of("r") is None


def test_most_free_pool_wins_then_the_name():
    pools = [pool("c"), pool("b"), pool("a", per_node=4)]
    result = place_recipes([recipe("first", gpus=2), recipe("second", gpus=2)], pools)
    # b and c both have 8 free: b by name. Then c (8 free) beats b (6) and a (4).
    assert result.assignments == {"first": "b", "second": "c"}


def test_recipes_are_placed_in_name_order_whatever_the_input_order():
    recipes = [recipe(f"r{i:02d}", gpus=1 + i % 3, replicas=1 + i % 2) for i in range(30)]
    pools = [pool(f"p{i}", size=1 + i % 2, selector="s" if i % 3 == 0 else None) for i in range(7)]
    expected = place_recipes(recipes, pools)
    shuffler = random.Random(5)
    for _ in range(10):
        shuffled_recipes, shuffled_pools = recipes[:], pools[:]
        shuffler.shuffle(shuffled_recipes)
        shuffler.shuffle(shuffled_pools)
        result = place_recipes(shuffled_recipes, shuffled_pools)
        assert result.assignments == expected.assignments
        assert list(result.assignments) == sorted(result.assignments)
        assert result.used == expected.used


def test_pools_with_smaller_nodes_are_skipped_not_blocking():
    # Same shape, one pool described with fewer accelerators per node (an override):
    # the recipe needs 4 per replica, so it goes past the roomier small-node pool (10 free).
    pools = [pool("small", size=5, per_node=2), pool("large")]
    result = place_recipes([recipe("r", gpus=4)], pools)
    assert result.pool_of("r") == "large"
    # ... and a later recipe still sees the small-node pool.
    result = place_recipes([recipe("r", gpus=4), recipe("s", gpus=2)], pools)
    assert result.assignments == {"r": "large", "s": "small"}


def test_candidates_restrict_the_pools_a_recipe_may_use():
    pools = [pool("a"), pool("b")]
    result = place_recipes([recipe("r", candidates=frozenset({"b"}))], pools)
    assert result.pool_of("r") == "b"
    result = place_recipes([recipe("r", candidates=frozenset())], pools)
    assert result.pool_of("r") is None
    assert result.reason("r") == f"no shared pool of shape {MI300X} among its candidate pools"


def test_pinned_recipes_count_first_and_others_fill_around_them():
    recipes = [recipe("a", gpus=4), recipe("z", gpus=8, pin="p1")]
    result = place_recipes(recipes, [pool("p1"), pool("p2")])
    assert result.assignments == {"a": "p2", "z": "p1"}


def test_a_recipe_pinned_to_waiting_waits():
    result = place_recipes([recipe("r", pin=False)], [pool("p")])
    assert result.pool_of("r") is None
    assert result.reason("r") == "kept waiting (`placement: false`)"


def test_a_pin_that_does_not_hold_is_an_error():
    recipes = [
        recipe("a", gpus=8, pin="p"),
        recipe("b", gpus=1, pin="p"),
        recipe("c", pin="nowhere"),
        recipe("d", pin="q", selector="s"),
    ]
    with pytest.raises(PlacementError) as caught:
        place_recipes(recipes, [pool("p"), pool("q")])
    problems = {(p.recipe, p.field): p.message for p in caught.value.problems}
    assert problems == {
        ("b", "placement"): "'p' has 0 of 8 accelerators free after the other pinned recipes; "
        "this one needs 1",
        ("c", "placement"): "'nowhere' is not one of the recipe's pools",
        ("d", "placement"): "'q' (shape BM.GPU.MI300X.8, selector None) doesn't match the "
        "recipe's shape BM.GPU.MI300X.8 and selector 's'",
    }


def test_duplicate_names_are_errors():
    with pytest.raises(PlacementError) as caught:
        place_recipes([recipe("r"), recipe("r")], [pool("p"), pool("p", size=2)])
    assert {(p.recipe, p.field) for p in caught.value.problems} == {(None, "pools"), ("r", "name")}


def test_the_same_pool_described_twice_identically_is_one_pool():
    result = place_recipes([recipe("a", gpus=8), recipe("b", gpus=8)], [pool("p"), pool("p")])
    assert result.assignments == {"a": "p", "b": None}


def test_zero_demand_recipes_are_placed_without_using_capacity():
    result = place_recipes([recipe("idle", replicas=0), recipe("full", gpus=8)], [pool("p")])
    assert result.assignments == {"full": "p", "idle": "p"}
    assert result.used == {"p": 8}


def test_explain_waiting_names_the_roomiest_matching_pool():
    pools = [pool("a"), pool("b")]
    message = explain_waiting(recipe("r", gpus=8, replicas=2), pools, {"a": 2, "b": 0})
    assert (
        message == "needs 16 accelerators (2 x 8); the most free matching pool, b, has 8 of 8 free"
    )
