"""`--python`: the program an importer prints makes the same resources, with the same inputs,
as a plan of the stack file it prints otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from nodepools.offline import Capture, run

from tests.importers.roundtrip import ROOT, plan_imported, run_import

CASES = {
    "eks": [
        "eks",
        "--cluster",
        "ml",
        *(
            str(ROOT / "tests/importers/eks_nodegroups" / f)
            for f in ("nvidia-gpu.json", "spot.json")
        ),
    ],
    "kueue-queues": [
        "kueue",
        str(ROOT / "tests/governance/upstream_kueue/admission-fair-sharing-setup.yaml"),
    ],
    "pool-quotas": [
        "kueue",
        "--as",
        "pool-quotas",
        str(ROOT / "tests/governance/upstream_kueue/manager-setup.yaml"),
    ],
    "karpenter": ["karpenter", str(ROOT / "tests/upstream_karpenter/multiple-arch.yaml")],
}


def _resources(capture: Capture) -> dict[tuple[str, str], object]:
    return {(r.type, r.name): r.inputs for r in capture.custom_resources()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_program_makes_what_the_stack_file_makes(case: str, capsys, tmp_path: Path):
    status, stack_file, _ = run_import(capsys, *CASES[case])
    assert status == 0
    status, program, _ = run_import(capsys, *CASES[case], "--python")
    assert status == 0 and program.startswith('"""Imported by `nodepools import ')
    path = tmp_path / "program" / "__main__.py"
    path.parent.mkdir()
    path.write_text(program)
    from_stack = _resources(plan_imported(stack_file, tmp_path / "stack"))
    assert from_stack and _resources(run(path)) == from_stack
