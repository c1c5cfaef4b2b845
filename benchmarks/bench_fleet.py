"""Fleet plan: N generated pools planned offline, against the provider-SDK floor.

For each fleet, two fresh processes:

- plan: `deploy_fleet(config)` under `nodepools.offline.run` (Pulumi's mock monitor, every
  registration captured), timed cold (the first plan in the process, which imports the
  library as a user's program does) and warm (best of the following plans in the process);
- floor: the captured registrations made again the way a hand-written program makes them,
  through the typed provider SDK classes (`benchmarks/floors.py`), timed the same way (its
  cold run imports the provider SDK modules it uses).

Targets: the mixed fleet (120 EKS MachinePools and GpuSpotPools, OKE pools and Karpenter
pools) plans in <= 1.15x the floor, cold and warm, counted in instructions when valgrind is
installed (`benchmarks/instructions.py`), timed otherwise; and the cost stays linear in N
from 10 to 2,000 pools of every kind (the fitted exponent of warm CPU time in N <= 1.1).
Peak memory is each child's `ru_maxrss` right after its first (cold) run.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .floors import check_same, floor_program, plan_records
from .harness import Row, Section, Table, emit, fmt_seconds, median, peak_rss_mb, run_child
from .instructions import have_valgrind
from .instructions import measure as count_instructions
from .programs import MIXED_KINDS, MIXED_POOLS, plan_program

MODES = ("plan", "floor")
MIXED_ROUNDS = 5
# Runs in each process of the mixed fleet: one cold, then warm ones (the best counts).
MIXED_REPEATS = 4
PLAN_TARGET = 1.15  # plan / provider-SDK floor, cold and warm
# Sizes of the every-kind fleet over which the cost must stay linear.
SIZES = (10, 50, 200, 1000, 2000)
QUICK_SIZES = (4, 8)
EXPONENT_TARGET = 1.1


def _timed_runs(program, repeats: int) -> dict[str, Any]:
    """Cold and best warm wall and CPU seconds, peak RSS after the cold run, first capture.

    CPU time (all threads of the process) is recorded beside wall time because it is
    far less disturbed by other work on a shared machine.
    """
    from nodepools.offline import run

    wall: list[float] = []
    cpu: list[float] = []
    result: dict[str, Any] = {}
    for attempt in range(repeats):
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        capture = run(program)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if attempt == 0:
            result["rss_mb"] = peak_rss_mb()
            result["capture"] = capture
    result.update(
        cold_s=wall[0],
        cold_cpu_s=cpu[0],
        warm_s=min(wall[1:]) if repeats > 1 else None,
        warm_cpu_s=min(cpu[1:]) if repeats > 1 else None,
    )
    return result


def child_plan(repeats: int, config_path: Path, records_path: Path) -> dict[str, Any]:
    """Plan the fleet config of `config_path` cold and warm; its registrations go to
    `records_path` for the floor."""
    import nodepools.offline  # noqa: F401  (the engine, imported before timing, as in the floor)

    config = json.loads(config_path.read_text())
    rss_before = peak_rss_mb()
    timings = _timed_runs(plan_program(config), repeats)
    records = plan_records(timings.pop("capture"))
    records_path.write_text(json.dumps(records))
    return {
        "registrations": len(records),
        "components": sum(1 for r in records if not r["custom"]),
        "rss_before_mb": rss_before,
        **timings,
    }


def child_floor(repeats: int, records_path: Path) -> dict[str, Any]:
    """Replay the floor of the records of `records_path` cold and warm, and check that it
    registered exactly those."""
    import nodepools.offline  # noqa: F401  (the engine, imported before timing, as in the plan)

    records = json.loads(records_path.read_text())
    rss_before = peak_rss_mb()
    timings = _timed_runs(floor_program(records), repeats)
    check_same(records, timings.pop("capture"))
    return {"registrations": len(records), "rss_before_mb": rss_before, **timings}


def measure(pool_count: int, repeats: int, kinds: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plan and its floor in fresh processes; `kinds` narrows the fleet (see
    generate_fleet)."""
    from .fleet_generator import generate_fleet

    config, counts = generate_fleet(pool_count, **(kinds or {}))
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        config_path, records = Path(tmp) / "config.json", Path(tmp) / "records.json"
        config_path.write_text(json.dumps(config))
        common = ["-m", "benchmarks.bench_fleet", "--repeats", str(repeats)]
        files = ["--config", str(config_path), "--records", str(records)]
        plan = run_child([*common, "--child", "plan", *files])
        floor = run_child([*common, "--child", "floor", *files])
    return {"plan": {"pools": pool_count, "kinds": counts, **plan}, "floor": floor}


def _warm(timings: dict[str, Any], kind: str = "") -> float:
    """Warm seconds (wall, or CPU with kind="cpu_"), the cold ones when there was no rerun."""
    return timings[f"warm_{kind}s"] or timings[f"cold_{kind}s"]


def fit_exponent(points: dict[int, float]) -> float:
    """Least-squares slope of log(cost) on log(N): 1 is linear, 2 quadratic."""
    xs = [math.log(n) for n in points]
    ys = [math.log(cost) for cost in points.values()]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )


def _best_of(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Per process kind, the best cold and the best warm figures over the rounds."""
    best: dict[str, Any] = {}
    for kind in rounds[0]:
        runs = [r[kind] for r in rounds]
        merged = dict(runs[0])
        for key in ("cold_s", "cold_cpu_s", "warm_s", "warm_cpu_s"):
            values = [run[key] for run in runs if run.get(key) is not None]
            merged[key] = min(values) if values else None
        best[kind] = merged
    return best


def _mixed(quick: bool, repeats: int) -> tuple[list[Row], dict[str, Any]]:
    """The mixed fleet, cold and warm, against its floor.

    Plan and floor run in alternation, several rounds of fresh processes (plan, floor,
    plan, ...). Each ratio is taken within a round, between processes that ran next to each
    other under the same load, and the median of the rounds is reported with their range:
    one lucky or unlucky process on a shared machine then moves the figure by nothing, where
    a best-of-all-rounds ratio would move with it."""
    pools = 10 if quick else MIXED_POOLS
    kinds = {"only": list(MIXED_KINDS), "extras": []}
    repeats = repeats if quick else MIXED_REPEATS
    rounds = [measure(pools, repeats, kinds) for _ in range(1 if quick else MIXED_ROUNDS)]
    result = _best_of(rounds)
    plan, floor = result["plan"], result["floor"]

    def ratio(phase: str) -> tuple[float, float, float]:
        values = sorted(
            (r["plan"]["cold_s"] / r["floor"]["cold_s"])
            if phase == "cold"
            else _warm(r["plan"], "cpu_") / _warm(r["floor"], "cpu_")
            for r in rounds
        )
        return median(values), values[0], values[-1]

    cold, cold_low, cold_high = ratio("cold")
    warm, warm_low, warm_high = ratio("warm")
    result["ratios"] = {
        "cold": [cold, cold_low, cold_high],
        "warm": [warm, warm_low, warm_high],
        "rounds": len(rounds),
    }
    spread = f"median of {len(rounds)} rounds"
    counted = None if quick or not have_valgrind() else count_instructions(pools)
    if counted is not None:
        result["instructions"] = counted
    what = f"mixed fleet of {pools} pools ({plan['registrations']} registrations)"
    timed_cold = (
        f"{cold:.2f}x ({spread}, {cold_low:.2f}x to {cold_high:.2f}x; best "
        f"{fmt_seconds(plan['cold_s'])} vs {fmt_seconds(floor['cold_s'])})"
    )
    timed_warm = (
        f"{warm:.2f}x ({spread}, {warm_low:.2f}x to {warm_high:.2f}x; best "
        f"{fmt_seconds(_warm(plan, 'cpu_'))} vs {fmt_seconds(_warm(floor, 'cpu_'))})"
    )
    target = f"<= {PLAN_TARGET}x"
    cold_label = f"{what}, cold (fresh process): plan / provider-SDK floor"
    warm_label = f"{what}, warm: plan / provider-SDK floor"
    if counted is None:  # no valgrind: the timed ratios decide
        return [
            Row(f"{cold_label}, timed", timed_cold, target, cold <= PLAN_TARGET),
            Row(f"{warm_label}, CPU time", timed_warm, target, warm <= PLAN_TARGET),
        ], result
    plan_i, floor_i = counted["plan"], counted["floor"]

    def counted_value(phase: str) -> str:
        return (
            f"{counted[f'plan/floor {phase}']:.3f}x ({plan_i[phase] / 1e6:,.0f} M vs "
            f"{floor_i[phase] / 1e6:,.0f} M)"
        )

    return [
        Row(
            f"{cold_label}, in instructions",
            counted_value("cold"),
            target,
            counted["plan/floor cold"] <= PLAN_TARGET,
        ),
        Row(
            f"{warm_label}, in instructions",
            counted_value("warm"),
            target,
            counted["plan/floor warm"] <= PLAN_TARGET,
        ),
        Row(f"{cold_label}, timed", timed_cold),
        Row(f"{warm_label}, CPU time", timed_warm),
    ], result


def section(quick: bool) -> Section:
    from .fleet_generator import availability

    sizes = QUICK_SIZES if quick else SIZES
    repeats = 2 if quick else 3
    found = availability()
    mixed_rows, mixed = _mixed(quick, repeats)
    # The largest sizes plan once warm after the cold run: enough for a slope, and the
    # benchmark stays minutes, not tens of minutes.
    results = {n: measure(n, repeats if n <= 200 else 2) for n in sizes}

    table_rows = []
    per_registration_cpu: dict[int, float] = {}
    plan_cpu: dict[int, float] = {}
    warm_ratios: dict[int, float] = {}
    for n, result in results.items():
        plan, floor = result["plan"], result["floor"]
        registrations = plan["registrations"]
        plan_cpu[n] = _warm(plan, "cpu_")
        per_registration_cpu[n] = plan_cpu[n] / registrations
        warm_ratios[n] = plan_cpu[n] / _warm(floor, "cpu_")
        table_rows.append(
            [
                str(n),
                str(registrations),
                f"{fmt_seconds(plan['cold_s'])} / {fmt_seconds(_warm(plan))}",
                f"{fmt_seconds(floor['cold_s'])} / {fmt_seconds(_warm(floor))}",
                f"{fmt_seconds(plan_cpu[n])} / {fmt_seconds(_warm(floor, 'cpu_'))}",
                f"{plan['cold_s'] / floor['cold_s']:.2f}x",
                f"{warm_ratios[n]:.2f}x",
                f"{per_registration_cpu[n] * 1e6:,.0f} µs",
                f"{plan['rss_mb']:.0f} MB",
            ]
        )
    exponent = fit_exponent(plan_cpu)
    largest = max(sizes)
    plan_largest = results[largest]["plan"]
    kinds = ", ".join(f"{label} ({count})" for label, count in plan_largest["kinds"].items())
    sizes_text = ", ".join(map(str, sizes))
    rows = [
        *mixed_rows,
        Row(
            f"every-kind fleet, warm CPU: plan / provider-SDK floor (worst of N={sizes_text})",
            f"{max(warm_ratios.values()):.2f}x",
        ),
        Row(
            f"cost in N: fitted exponent of warm CPU time, N = {sizes_text}",
            f"{exponent:.3f} (per registration "
            + " / ".join(f"{per_registration_cpu[n] * 1e6:,.0f}" for n in sizes)
            + " µs)",
            f"<= {EXPONENT_TARGET} (linear)",
            exponent <= EXPONENT_TARGET,
        ),
        Row(
            "fleet kinds included",
            ", ".join(found.labels)
            + (f"; not on this checkout: {', '.join(found.missing)}" if found.missing else ""),
        ),
        Row(f"peak RSS at N={largest}", f"{plan_largest['rss_mb']:.0f} MB"),
    ]
    detail = Table(
        "Every-kind fleet by size (plan = `deploy_fleet` under `nodepools.offline.run`; "
        "floor = the same registrations through the typed provider SDK classes, under the "
        "same monitor)",
        [
            "N pools",
            "registrations",
            "plan wall cold / warm",
            "floor wall cold / warm",
            "CPU warm plan / floor",
            "ratio cold",
            "ratio warm (CPU)",
            "plan CPU per registration",
            "plan peak RSS",
        ],
        table_rows,
    )
    tables = [detail]
    if not quick:
        tables.append(_by_kind(found, repeats))
    return Section(
        key="fleet",
        title="Fleet plan",
        command="python -m benchmarks --only fleet",
        rows=rows,
        tables=tables,
        raw={"mixed": mixed, **{str(n): r for n, r in results.items()}},
        notes=[
            f"Mixed fleet: {', '.join(MIXED_KINDS)}, dealt round-robin. Every-kind fleet at "
            f"N={largest}: {kinds}.",
            "Cold = the first plan in a fresh process (the library's imports included, as "
            "the floor's cold run includes the provider SDKs'); warm = best of the plans "
            "that follow it. CPU time counts every thread of the process and is the steadier "
            "number on a shared machine.",
            "Floor (benchmarks/floors.py): the plan's registrations made as a hand-written "
            "program makes them, through the typed classes of pulumi_aws / pulumi_oci / "
            "pulumi_kubernetes, checked to register exactly the plan's inputs and options.",
        ],
    )


# Each kind alone: which of them the overhead comes from.
KIND_POOLS = 64


def _by_kind(found: Any, repeats: int) -> Table:
    groups: list[tuple[str, dict[str, Any]]] = [
        (kind.label, {"only": [kind.label], "extras": []}) for kind in found.included
    ]
    if "Recipe" in found.extras:
        groups.append(
            (
                "OKE SharedNodePool + 2 Recipes each",
                {"only": ["OKE SharedNodePool"], "extras": ["Recipe"]},
            )
        )
    governance = [label for label in ("PoolQuotas", "PoolPlatforms") if label in found.extras]
    if governance:
        groups.append(
            (
                f"EKS MachinePool + {' + '.join(governance)}",
                {"only": ["EKS MachinePool"], "extras": governance},
            )
        )
    rows = []
    for label, kinds in groups:
        result = measure(KIND_POOLS, repeats, kinds)
        plan, floor = result["plan"], result["floor"]
        registrations = plan["registrations"]
        rows.append(
            [
                label,
                str(registrations),
                f"{_warm(plan, 'cpu_') / registrations * 1e6:,.0f} µs",
                f"{_warm(floor, 'cpu_') / registrations * 1e6:,.0f} µs",
                f"{_warm(plan, 'cpu_') / _warm(floor, 'cpu_'):.2f}x",
            ]
        )
    return Table(
        f"Overhead by kind ({KIND_POOLS} pools of one kind, warm CPU time per registration)",
        ["kind", "registrations", "plan", "provider-SDK floor", "plan / floor"],
        rows,
    )


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", choices=MODES)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--records", type=Path)
    parser.add_argument("--kinds", type=json.loads, default={}, help='{"only": [labels]}')
    args = parser.parse_args(argv)
    if args.child == "plan":
        emit(child_plan(args.repeats, args.config, args.records))
    elif args.child == "floor":
        emit(child_floor(args.repeats, args.records))
    else:
        result = measure(args.n, args.repeats, args.kinds)
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
