"""The benchmark harness runs and writes its table; numbers are never asserted."""

from __future__ import annotations

import json
import subprocess
import sys

from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import run

from benchmarks.__main__ import main
from benchmarks.bench_fleet import _records, replay_program
from benchmarks.bench_import import CLOUD_SDKS
from benchmarks.fleet_generator import availability, generate_fleet
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


def test_replay_registers_the_same_resources_with_the_same_parents():
    config, _ = generate_fleet(len(availability().included))
    planned = run(lambda: deploy_fleet(config))
    replayed = run(replay_program(_records(planned)))

    def shape(capture):
        return sorted((r.urn, r.type, r.name, r.custom, r.parent) for r in capture.resources)

    assert shape(replayed) == shape(planned)
    assert replayed.component_outputs.keys() == planned.component_outputs.keys()


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
        "| **Fleet plan** | fleet kinds included |",
        "overhead ratio plan / raw replay, warm, CPU time",
        "CPU time per registration across N",
        "| **Validation** | 1,000 custom resources validated after one compile |",
        "| **Placement** |",
        "Machine: ",
    ):
        assert expected in text, expected
