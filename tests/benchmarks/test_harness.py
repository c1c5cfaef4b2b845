"""The benchmark harness runs and writes its table; numbers are never asserted."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import run

from benchmarks.__main__ import main
from benchmarks.bench_fleet import _records, fit_exponent
from benchmarks.bench_import import CLOUD_SDKS
from benchmarks.fleet_generator import availability, generate_fleet
from benchmarks.floors import FLOORS, check_same, floor_program
from benchmarks.harness import Row, Section
from benchmarks.report import END, START, render, rewrite_readme


def test_import_components_loads_no_cloud_sdk():
    code = (
        "import sys, nodepools\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {CLOUD_SDKS!r}))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"


def test_generated_fleet_has_every_available_kind_round_robin():
    found = availability()
    kinds = found.included
    config, counts = generate_fleet(2 * len(kinds))
    assert list(counts) == list(found.labels)
    assert {counts[kind.label] for kind in kinds} == {2}
    assert all(counts[label] > 0 for label in found.extras)
    assert {entry["name"] for entry in config["pools"]} == {
        f"pool-{i:04d}" for i in range(2 * len(kinds))
    }


def test_generated_fleet_is_valid():
    config, _ = generate_fleet(2 * len(availability().included))
    entries, _ = validate_fleet(config)
    assert len(entries) == sum(len(config[key]) for key in config if key != "clusters")


@pytest.mark.parametrize("floor", FLOORS)
def test_each_floor_registers_what_the_plan_registered(floor):
    config, _ = generate_fleet(len(availability().included))
    records = _records(run(lambda: deploy_fleet(config)))
    replayed = run(floor_program(records, floor))
    check_same(records, replayed)  # inputs, parent, dependencies and options, one by one
    assert {r.urn for r in replayed.resources} == {r["urn"] for r in records}


def test_a_floor_that_registers_something_else_is_refused():
    config, _ = generate_fleet(len(availability().included))
    records = _records(run(lambda: deploy_fleet(config)))
    replayed = run(floor_program(records, "raw"))
    tampered = [dict(r) for r in records]
    first_custom = next(r for r in tampered if r["custom"])
    first_custom["options"] = {**first_custom["options"], "ignoreChanges": ["somethingElse"]}
    with pytest.raises(AssertionError, match="1 differ"):
        check_same(tampered, replayed)


def test_the_exponent_fit_reads_linear_and_quadratic_costs():
    assert fit_exponent({10: 1.0, 100: 10.0, 1000: 100.0}) == pytest.approx(1.0)
    assert fit_exponent({10: 1.0, 100: 100.0, 1000: 10000.0}) == pytest.approx(2.0)


def test_rewrite_replaces_only_the_generated_part(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Benchmarks\n\nHand-written.\n\n{START}\nold\n{END}\n\n## After\n")
    section = Section(
        "import", "Import cost", "python -m benchmarks", [Row("m", "1", "<= 2", True)]
    )
    rewrite_readme(readme, {"machine": {}, "sections": {"import": section}})
    text = readme.read_text()
    assert "Hand-written." in text and "## After" in text and "old" not in text
    assert "| **Import cost** | m | 1 | <= 2 | pass |" in text
    assert render({"machine": {}, "sections": {"import": section}}) in text


def test_quick_run_writes_a_table_with_every_benchmark(tmp_path):
    results, readme = tmp_path / "results.json", tmp_path / "README.md"
    assert (
        main(
            [
                "--quick",
                "--only",
                "import,fleet,validation,placement",
                "--results",
                str(results),
                "--readme",
                str(readme),
            ]
        )
        == 0
    )
    sections = json.loads(results.read_text())["sections"]
    assert list(sections) == ["import", "fleet", "validation", "placement"]
    assert all(section["quick"] for section in sections.values())
    text = readme.read_text()
    for expected in (
        "| **Import cost** | `import nodepools` time / `import pulumi, pydantic` |",
        "| cloud SDKs loaded by `import nodepools` | none |",
        "| **Fleet plan** | mixed fleet of 10 pools",
        "cold (fresh process): plan / raw floor",
        "warm CPU: plan / raw floor",
        "plan / provider-SDK floor",
        "fitted exponent of warm CPU time",
        "| **Validation** | 1,000 custom resources validated after one compile |",
        "| **Placement** |",
        "Machine: ",
    ):
        assert expected in text, expected


def test_the_instruction_counts_children_plan_and_replay(tmp_path):
    from benchmarks.instructions import child

    records = tmp_path / "records.json"
    child("plan", 4, 1, records)
    planned = json.loads(records.read_text())
    assert planned and {r["type"] for r in planned} >= {"aws:eks/nodeGroup:NodeGroup"}
    for floor in FLOORS:
        child(floor, 4, 1, records)  # replays the recorded plan (checked by the tests above)
    assert json.loads(records.read_text()) == planned
