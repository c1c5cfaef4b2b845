"""The benchmarks other modules own (validation, placement), each run in a fresh process.

Their `run() -> dict` is called in a child so one benchmark's caches and imports never
flatter another's numbers.
"""

from __future__ import annotations

from typing import Any

from .harness import ROOT, Row, Section, fmt_seconds, run_child

VALIDATION_TARGET_S = 1.0
PLACEMENT_TARGET_S = 1.0

CHILD = """\
from benchmarks.harness import emit
from benchmarks.{module} import run
emit(run({arguments}))
"""


def _run_in_child(module: str, arguments: str = "") -> dict[str, Any]:
    return run_child(["-c", CHILD.format(module=module, arguments=arguments)])


def validation_section(quick: bool) -> Section:
    result = _run_in_child("bench_validation", "repeats=1" if quick else "")
    seconds = result["validate_s"]
    rows = [
        Row(
            f"{result['manifests']:,} custom resources validated after one compile",
            f"{fmt_seconds(seconds)} ({result['manifests_per_s']:,}/s)",
            f"< {VALIDATION_TARGET_S:g} s",
            seconds < VALIDATION_TARGET_S,
        ),
        Row(
            "the same, each with a violation",
            f"{fmt_seconds(result['invalid_validate_s'])} "
            f"({result['invalid_manifests_per_s']:,}/s, "
            f"{result['invalid_violations']:,} violations)",
        ),
        Row(
            f"compile ({result['kinds']} kinds, {result['cel_rules']} CEL rules)",
            fmt_seconds(result["compile_s"]),
        ),
    ]
    return Section(
        key="validation",
        title="Validation",
        command="python -m benchmarks --only validation",
        rows=rows,
        raw=result,
        notes=["`benchmarks/bench_validation.py`, best of its rounds, in a fresh process."],
    )


def placement_available() -> bool:
    return (ROOT / "benchmarks" / "bench_placement.py").is_file() and (
        ROOT / "components" / "workloads" / "placement.py"
    ).is_file()


def placement_section(quick: bool) -> Section:
    if not placement_available():
        return Section(
            key="placement",
            title="Placement",
            command="python -m benchmarks --only placement",
            rows=[
                Row(
                    "10,000 recipes on 1,000 shared pools",
                    "not available (no `components/workloads/placement.py` and "
                    "`benchmarks/bench_placement.py` on this checkout)",
                    f"< {PLACEMENT_TARGET_S:g} s",
                    None,
                )
            ],
        )
    result = _run_in_child("bench_placement", "repeats=1" if quick else "")
    rows = [
        Row(
            f"{result['recipes']:,} recipes on {result['pools']:,} shared pools, any pool",
            f"{fmt_seconds(result['seconds'])} ({result['recipes_per_s']:,}/s)",
            f"< {PLACEMENT_TARGET_S:g} s",
            result["seconds"] < PLACEMENT_TARGET_S,
        ),
        Row(
            "the same, each recipe listing 20 candidate pools (a fleet's path)",
            fmt_seconds(result["candidates_seconds"]),
            f"< {PLACEMENT_TARGET_S:g} s",
            result["candidates_seconds"] < PLACEMENT_TARGET_S,
        ),
        Row(
            "outcome",
            f"{result['placed']:,} placed, {result['waiting']:,} waiting; "
            f"{result['accelerators_used']:,} of {result['accelerators_total']:,} "
            "accelerators used",
        ),
    ]
    return Section(
        key="placement",
        title="Placement",
        command="python -m benchmarks --only placement",
        rows=rows,
        raw=result,
        notes=["`benchmarks/bench_placement.py`, best of its rounds, in a fresh process."],
    )
