"""The benchmark harness runs and writes its table; numbers are never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import run

from benchmarks.__main__ import main
from benchmarks.bench_fleet import fit_exponent
from benchmarks.bench_import import CLOUD_SDKS
from benchmarks.fleet_generator import availability, generate_fleet
from benchmarks.floors import BASELINE, ONE_MODEL, check_same, floor_program, plan_records
from benchmarks.harness import Row, Section
from benchmarks.programs import FIRST_USE, IMPORT
from benchmarks.report import END, START, render, rewrite_readme

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_floor_registers_what_the_plan_registered_through_the_typed_sdk_classes():
    config, _ = generate_fleet(len(availability().included))
    records = plan_records(run(lambda: deploy_fleet(config)))
    replayed = run(floor_program(records))
    check_same(records, replayed)  # inputs, parent, dependencies and options, one by one
    assert {r.urn for r in replayed.resources} == {r["urn"] for r in records}


def test_the_floor_is_a_hand_written_program_of_the_provider_sdks():
    """Every provider type is made by its typed SDK class, as a user's program makes it."""
    code = (
        "import json, sys\n"
        "from nodepools.offline import run\n"
        "from benchmarks.floors import floor_program\n"
        "records = json.loads(sys.stdin.read())\n"
        "import pulumi\n"
        "made = {}\n"
        "init = pulumi.CustomResource.__init__\n"
        "def spy(self, t, name, *args, **kwargs):\n"
        "    made[t] = type(self).__module__ + '.' + type(self).__name__\n"
        "    init(self, t, name, *args, **kwargs)\n"
        "pulumi.CustomResource.__init__ = spy\n"
        "run(floor_program(records))\n"
        "print(json.dumps(made))\n"
    )
    config, _ = generate_fleet(len(availability().included))
    records = plan_records(run(lambda: deploy_fleet(config)))
    made = json.loads(
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            input=json.dumps(records),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert made["aws:eks/nodeGroup:NodeGroup"] == "pulumi_aws.eks.node_group.NodeGroup"
    assert made["aws:autoscaling/tag:Tag"] == "pulumi_aws.autoscaling.tag.Tag"
    assert made["oci:ContainerEngine/nodePool:NodePool"].startswith("pulumi_oci.containerengine.")
    assert made["kubernetes:core/v1:Namespace"].startswith("pulumi_kubernetes.core.v1.")
    assert made["kubernetes:karpenter.sh/v1:NodePool"] == (
        "pulumi_kubernetes.apiextensions.CustomResource.CustomResource"
    )
    no_sdk = {
        t
        for t, cls in made.items()
        if not cls.startswith(("pulumi_aws.", "pulumi_oci.", "pulumi_kubernetes."))
    }
    assert no_sdk <= {"pulumi-python:dynamic/ocm:MachinePool"}, no_sdk


def test_a_floor_that_registers_something_else_is_refused():
    config, _ = generate_fleet(len(availability().included))
    records = plan_records(run(lambda: deploy_fleet(config)))
    replayed = run(floor_program(records))
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
        "first use (`from nodepools import MachinePool` + one `MachinePoolArgs`) / one "
        "pydantic model (`import pulumi, pydantic` + one one-field model built), timed | ",
        "| <= 1.2x |",
        "| **Fleet plan** | mixed fleet of 10 pools",
        "cold (fresh process): plan / provider-SDK floor, timed | ",
        "warm: plan / provider-SDK floor, CPU time | ",
        "| <= 1.15x |",
        "fitted exponent of warm CPU time",
        "| **Validation** | 1,000 custom resources validated after one compile |",
        "| **Placement** |",
        "Machine: ",
    ):
        assert expected in text, expected


def test_the_instruction_counts_children_plan_and_replay(tmp_path):
    from benchmarks.instructions import child, prepare

    config, records = prepare(4, tmp_path)  # checks the floor against the plan
    planned = json.loads(records.read_text())
    assert planned and {r["type"] for r in planned} >= {"aws:eks/nodeGroup:NodeGroup"}
    for mode in ("plan", "floor"):
        child(mode, 1, config, records)
    assert json.loads(records.read_text()) == planned


@pytest.mark.parametrize("statement", [BASELINE, ONE_MODEL, IMPORT, FIRST_USE])
def test_the_statements_of_import_and_first_use_run(statement):
    subprocess.run([sys.executable, "-c", statement], cwd=ROOT, check=True, timeout=120)


def test_no_benchmark_module_imports_another_that_imports_it_back():
    """The benchmarks' modules form no import circle, function-level imports included."""
    import ast

    folder = ROOT / "benchmarks"
    names = {path.stem for path in folder.glob("*.py")}
    edges: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        found = edges.setdefault(path.stem, set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                module = (node.module or "").removeprefix("benchmarks").lstrip(".")
                if node.level or (node.module or "").startswith("benchmarks"):
                    found |= {module} & names if module else {a.name for a in node.names} & names
            elif isinstance(node, ast.Import):
                found |= {a.name.removeprefix("benchmarks.") for a in node.names} & names

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
            for nxt in edges.get(start, ())
        )

    circles = sorted(name for name in names if reaches(name, name, {name}))
    assert circles == []
