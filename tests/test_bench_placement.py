"""The placement benchmark runs and accounts for every recipe. Its time is recorded by
`python -m benchmarks` against its target, never asserted here: a loaded machine would
make such a test fail for no fault of the code."""

from __future__ import annotations

from benchmarks.bench_placement import RECIPES, run


def test_ten_thousand_recipes_on_a_thousand_pools_are_all_placed_or_waiting():
    figures = run(repeats=1)
    assert figures["recipes"] == RECIPES and figures["pools"] == 1000
    assert figures["placed"] + figures["waiting"] == RECIPES
    assert figures["placed"] > 0
    assert figures["accelerators_used"] <= figures["accelerators_total"]
    assert figures["cpu_seconds"] >= 0 and figures["candidates_cpu_seconds"] >= 0
