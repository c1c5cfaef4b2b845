"""Placement of recipes onto shared pools: 10,000 recipes on 1,000 pools.

``run()`` builds a seeded, reproducible fleet (1,000 pools over eight accelerator shapes,
a third of them under one of ten selectors, 2 to 8 nodes; 10,000 recipes asking 1 to half
a node's accelerators a replica, 1 or 2 replicas, a quarter with a selector: demand close
to capacity, so most recipes are placed and pools fill up) and times ``place_recipes``
over all of it, best of ``repeats`` rounds:

- ``seconds`` / ``recipes_per_s``: every recipe free to use any pool (the heap-indexed path);
- ``candidates_seconds``: each recipe restricted to 20 candidate pools of its shape (the
  path of a fleet, where each recipe lists its pools);
- ``cpu_seconds`` / ``candidates_cpu_seconds``: the same in this process's CPU time, which
  other work on a shared machine does not inflate;
- ``placed`` / ``waiting`` / ``accelerators_used`` of ``accelerators_total``: the outcome.

Target: under 1 second for 10,000 recipes on 1,000 pools, each way.

Run it as a script (``python benchmarks/bench_placement.py``) for the numbers; the recorded
ones are in benchmarks/README.md.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nodepools.specs.catalog.accelerators import lookup_accelerator  # noqa: E402
from nodepools.workloads.placement import RecipeDemand, SharedPool, place_recipes  # noqa: E402

RECIPES = 10_000
POOLS = 1_000
CANDIDATES = 20
SHAPES = (
    "BM.GPU.MI300X.8",
    "BM.GPU.H100.8",
    "BM.GPU.A100-v2.8",
    "BM.GPU.A10.4",
    "BM.GPU.L40S.4",
    "VM.GPU.A10.2",
    "p5.48xlarge",
    "g5.12xlarge",
)
SELECTORS = tuple(f"selector_{i}" for i in range(10))


def fleet(seed: int = 7) -> tuple[list[RecipeDemand], list[SharedPool]]:
    rng = random.Random(seed)
    pools = []
    for i in range(POOLS):
        shape = rng.choice(SHAPES)
        accelerator = lookup_accelerator(shape)
        assert accelerator is not None
        pools.append(
            SharedPool(
                name=f"pool-{i:04d}",
                shape=shape,
                size=rng.randint(2, 8),
                gpus_per_node=accelerator.count,
                selector=rng.choice(SELECTORS) if rng.random() < 1 / 3 else None,
            )
        )
    recipes = []
    for i in range(RECIPES):
        shape = rng.choice(SHAPES)
        accelerator = lookup_accelerator(shape)
        assert accelerator is not None
        recipes.append(
            RecipeDemand(
                name=f"recipe-{i:05d}",
                shape=shape,
                gpus=rng.randint(1, max(1, accelerator.count // 2)),
                replicas=rng.randint(1, 2),
                selector=rng.choice(SELECTORS) if rng.random() < 0.25 else None,
            )
        )
    return recipes, pools


def _with_candidates(recipes: list[RecipeDemand], pools: list[SharedPool], seed: int = 11):
    rng = random.Random(seed)
    by_shape: dict[str, list[str]] = {}
    for pool in pools:
        by_shape.setdefault(pool.shape, []).append(pool.name)
    return [
        RecipeDemand(
            r.name,
            r.shape,
            r.gpus,
            r.replicas,
            r.selector,
            candidates=frozenset(rng.sample(by_shape[r.shape], CANDIDATES)),
        )
        for r in recipes
    ]


def _best_of(repeats: int, recipes, pools):
    """Best wall and best CPU seconds of `repeats` placements, and the last result."""
    best = best_cpu = float("inf")
    result = None
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = place_recipes(recipes, pools)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu, result


def run(repeats: int = 3) -> dict[str, Any]:
    recipes, pools = fleet()
    seconds, cpu_seconds, result = _best_of(repeats, recipes, pools)
    candidates_seconds, candidates_cpu_seconds, _ = _best_of(
        repeats, _with_candidates(recipes, pools), pools
    )
    waiting = len(result.waiting())
    return {
        "recipes": len(recipes),
        "pools": len(pools),
        "seconds": round(seconds, 4),
        "cpu_seconds": round(cpu_seconds, 4),
        "recipes_per_s": round(len(recipes) / seconds),
        "candidates_seconds": round(candidates_seconds, 4),
        "candidates_cpu_seconds": round(candidates_cpu_seconds, 4),
        "placed": len(recipes) - waiting,
        "waiting": waiting,
        "accelerators_used": sum(result.used.values()),
        "accelerators_total": sum(p.total_gpus for p in pools),
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:>20}: {value}")
