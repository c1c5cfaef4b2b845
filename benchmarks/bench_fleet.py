"""Fleet plan: N generated pools planned offline, against a raw replay of the same registrations.

For each N, two fresh processes:

- plan: `deploy_fleet(config)` under `nodepools.offline.run` (Pulumi's mock monitor,
  every registration captured), timed cold (the first plan in the process, which pays
  the one-off lazy imports of the cloud SDK modules a real `plan` pays too) and warm
  (best of the following plans in the same process);
- replay: the captured registrations re-registered as raw resources under the same
  monitor: components as plain `pulumi.ComponentResource(type, name, props)` (with
  their outputs registered), custom resources as `pulumi.CustomResource(type, name,
  inputs)`, with the same parents. That is the floor the Pulumi SDK sets; the overhead
  ratio is plan time over replay time.

Peak memory is each child's `ru_maxrss` right after its first (cold) run.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .harness import Row, Section, Table, emit, fmt_seconds, peak_rss_mb, run_child

SIZES = (50, 100, 200, 400)
QUICK_SIZES = (4, 8)
TARGET_RATIO = 1.2
# Per-registration time may vary this much across N and still count as linear.
LINEARITY_TOLERANCE = 1.25


def _records(capture: Any) -> list[dict[str, Any]]:
    return [
        {
            "urn": r.urn,
            "type": r.type,
            "name": r.name,
            "custom": r.custom,
            "parent": r.parent,
            "inputs": r.inputs,
            "outputs": capture.component_outputs.get(r.urn, {}) if not r.custom else {},
        }
        for r in capture.resources
    ]


def replay_program(records: list[dict[str, Any]]):
    """A Pulumi program that registers `records` again as raw resources, same parents."""
    import pulumi

    def program() -> None:
        created: dict[str, pulumi.Resource] = {}
        components: list[tuple[pulumi.ComponentResource, dict[str, Any]]] = []
        for record in records:
            parent = created.get(record["parent"]) if record["parent"] else None
            opts = pulumi.ResourceOptions(parent=parent) if parent is not None else None
            if record["custom"]:
                resource = pulumi.CustomResource(
                    record["type"], record["name"], dict(record["inputs"]), opts
                )
            else:
                resource = pulumi.ComponentResource(
                    record["type"], record["name"], dict(record["inputs"]), opts
                )
                components.append((resource, record["outputs"]))
            created[record["urn"]] = resource
        for component, outputs in components:
            component.register_outputs(outputs)

    return program


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


def child_plan(
    pool_count: int, repeats: int, records_path: Path, kinds: dict[str, Any] | None = None
) -> dict[str, Any]:
    from nodepools.fleet.deploy import deploy_fleet

    from benchmarks.fleet_generator import generate_fleet

    config, counts = generate_fleet(pool_count, **(kinds or {}))
    rss_before = peak_rss_mb()
    timings = _timed_runs(lambda: deploy_fleet(config), repeats)
    records = _records(timings.pop("capture"))
    records_path.write_text(json.dumps(records))
    return {
        "pools": pool_count,
        "kinds": counts,
        "registrations": len(records),
        "components": sum(1 for r in records if not r["custom"]),
        "rss_before_mb": rss_before,
        **timings,
    }


def child_replay(repeats: int, records_path: Path) -> dict[str, Any]:
    import nodepools.offline  # noqa: F401  (imported before timing, as in the plan child)

    records = json.loads(records_path.read_text())
    rss_before = peak_rss_mb()
    timings = _timed_runs(replay_program(records), repeats)
    replayed = len(timings.pop("capture").resources)
    if replayed != len(records):
        raise AssertionError(f"replayed {replayed} of {len(records)} resources")
    return {"registrations": len(records), "rss_before_mb": rss_before, **timings}


def measure(pool_count: int, repeats: int, kinds: dict[str, Any] | None = None) -> dict[str, Any]:
    """Plan and replay in fresh processes; `kinds` narrows the fleet (see generate_fleet)."""
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        records = Path(tmp) / "records.json"
        common = ["-m", "benchmarks.bench_fleet", "--repeats", str(repeats)]
        plan = run_child(
            [
                *common,
                *("--child", "plan", "--n", str(pool_count), "--records", str(records)),
                *("--kinds", json.dumps(kinds or {})),
            ]
        )
        replay = run_child([*common, "--child", "replay", "--records", str(records)])
    return {"plan": plan, "replay": replay}


def _ratio(plan: float | None, replay: float | None) -> float | None:
    return plan / replay if plan and replay else None


def _warm(timings: dict[str, Any], kind: str = "") -> float:
    """Warm seconds (wall, or CPU with kind="cpu_"), the cold ones when there was no rerun."""
    return timings[f"warm_{kind}s"] or timings[f"cold_{kind}s"]


def section(quick: bool) -> Section:
    from .fleet_generator import availability

    sizes = QUICK_SIZES if quick else SIZES
    repeats = 2 if quick else 4
    found = availability()
    results = {n: measure(n, repeats) for n in sizes}

    table_rows = []
    per_registration_cpu: dict[int, float] = {}
    ratios: dict[str, dict[int, float]] = {"wall": {}, "cpu": {}, "cold": {}}
    for n, result in results.items():
        plan, replay = result["plan"], result["replay"]
        registrations = plan["registrations"]
        per_registration_cpu[n] = _warm(plan, "cpu_") / registrations
        ratios["wall"][n] = _warm(plan) / _warm(replay)
        ratios["cpu"][n] = _warm(plan, "cpu_") / _warm(replay, "cpu_")
        ratios["cold"][n] = plan["cold_s"] / replay["cold_s"]
        table_rows.append(
            [
                str(n),
                str(registrations),
                f"{fmt_seconds(plan['cold_s'])} / {fmt_seconds(_warm(plan))}",
                f"{fmt_seconds(replay['cold_s'])} / {fmt_seconds(_warm(replay))}",
                f"{fmt_seconds(_warm(plan, 'cpu_'))} / {fmt_seconds(_warm(replay, 'cpu_'))}",
                f"{ratios['cold'][n]:.2f}x",
                f"{ratios['wall'][n]:.2f}x",
                f"{ratios['cpu'][n]:.2f}x",
                f"{_warm(plan) / registrations * 1e6:,.0f} / "
                f"{per_registration_cpu[n] * 1e6:,.0f} µs",
                f"{registrations / _warm(plan):,.0f}",
                f"{plan['rss_mb']:.0f} MB (+{plan['rss_mb'] - plan['rss_before_mb']:.0f})",
                f"{replay['rss_mb']:.0f} MB (+{replay['rss_mb'] - replay['rss_before_mb']:.0f})",
            ]
        )
    largest = max(sizes)
    worst = {kind: max(values.values()) for kind, values in ratios.items()}
    spread = max(per_registration_cpu.values()) / min(per_registration_cpu.values())
    plan_largest = results[largest]["plan"]
    kinds = ", ".join(f"{label} ({count})" for label, count in plan_largest["kinds"].items())
    sizes_text = ", ".join(map(str, sizes))

    def ratio_row(label: str, kind: str) -> Row:
        return Row(
            f"overhead ratio plan / raw replay, {label} (worst of N={sizes_text})",
            f"{worst[kind]:.2f}x",
            f"<= {TARGET_RATIO}x",
            worst[kind] <= TARGET_RATIO,
        )

    rows = [
        Row(
            "fleet kinds included",
            ", ".join(found.labels)
            + (f"; not on this checkout: {', '.join(found.missing)}" if found.missing else ""),
        ),
        ratio_row("warm, wall time", "wall"),
        ratio_row("warm, CPU time", "cpu"),
        ratio_row("cold (first plan in a process, one-off imports included)", "cold"),
        Row(
            "CPU time per registration across N (max / min)",
            " / ".join(f"{per_registration_cpu[n] * 1e6:,.0f}" for n in sizes)
            + f" µs ({spread:.2f}x)",
            f"linear: <= {LINEARITY_TOLERANCE}x",
            spread <= LINEARITY_TOLERANCE,
        ),
        Row(
            f"registrations/s at N={largest} (warm, wall)",
            f"{plan_largest['registrations'] / _warm(plan_largest):,.0f}",
        ),
        Row(f"peak RSS at N={largest}", f"{plan_largest['rss_mb']:.0f} MB"),
    ]
    detail = Table(
        "Fleet plan by size (plan = `deploy_fleet` under `nodepools.offline.run`; "
        "replay = the same registrations as raw resources under the same monitor)",
        [
            "N pools",
            "registrations",
            "plan wall cold / warm",
            "replay wall cold / warm",
            "CPU warm plan / replay",
            "ratio cold",
            "ratio warm (wall)",
            "ratio warm (CPU)",
            "per registration warm (wall / CPU)",
            "registrations/s (warm)",
            "plan peak RSS",
            "replay peak RSS",
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
        raw={str(n): r for n, r in results.items()},
        notes=[
            f"Fleet entries at N={largest}: {kinds}.",
            f"Cold = the first plan in a fresh process; warm = best of the {repeats - 1} "
            "that follow it. CPU time counts every thread of the process and is the "
            "steadier number on a shared machine. Peak RSS is the child's `ru_maxrss` "
            "after its first plan (+ its growth during that plan).",
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
        plan, replay = result["plan"], result["replay"]
        registrations = plan["registrations"]
        rows.append(
            [
                label,
                str(registrations),
                f"{_warm(plan, 'cpu_') / registrations * 1e6:,.0f} µs",
                f"{_warm(replay, 'cpu_') / registrations * 1e6:,.0f} µs",
                f"{_warm(plan, 'cpu_') / _warm(replay, 'cpu_'):.2f}x",
            ]
        )
    return Table(
        f"Overhead by kind ({KIND_POOLS} pools of one kind, warm CPU time per registration)",
        ["kind", "registrations", "plan", "raw replay", "ratio"],
        rows,
    )


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", choices=("plan", "replay"))
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--records", type=Path)
    parser.add_argument("--kinds", type=json.loads, default={}, help='{"only": [labels]}')
    args = parser.parse_args(argv)
    if args.child == "plan":
        emit(child_plan(args.n, args.repeats, args.records, args.kinds))
    elif args.child == "replay":
        emit(child_replay(args.repeats, args.records))
    else:
        result = measure(args.n, args.repeats, args.kinds)
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
