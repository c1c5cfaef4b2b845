"""The README's Python examples run, as written, under the offline engine."""

from __future__ import annotations

import re
from pathlib import Path

from nodepools.offline import run

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 6


def test_readme_examples_run_offline():
    namespace: dict = {}
    program_blocks = [b for b in BLOCKS if "nodepools.offline" not in b]
    capture = run(lambda: [exec(block, namespace) for block in program_blocks])
    names = {r.name for r in capture.components()}
    assert {
        "batch-workers",
        "ml-training",
        "trainium-trn1",
        "mi300x",
        "echo",
        "org",
        "osmo",
        "devices-eks",
        "devices-rosa",
        "devices-trn1",
        "devices-mi300x",
    } <= names
    # The unit-testing example runs its own offline program.
    for block in BLOCKS:
        if "nodepools.offline" in block:
            exec(block, dict(namespace))
