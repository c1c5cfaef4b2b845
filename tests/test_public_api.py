"""What users import and what their state records stays put when modules move.

The public API is every name `nodepools` and `nodepools.specs` export, every import
written in the README, the docs, the examples and the stack program, and every
component's type token (part of each resource's URN: a changed token replaces the
resource). The URN goldens (tests/golden/urns) pin the child names.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import nodepools
import nodepools.specs
import pytest

ROOT = Path(__file__).resolve().parent.parent

TYPE_TOKENS = {
    "AcceleratorStack": "nodepools:index:AcceleratorStack",
    "GpuSpotPool": "nodepools:index:GpuSpotPool",
    "KarpenterNodePool": "nodepools:index:KarpenterNodePool",
    "KueueQueues": "nodepools:index:KueueQueues",
    "MachinePool": "nodepools:index:MachinePool",
    "NodeRole": "nodepools:index:NodeRole",
    "OkeClusterAutoscaler": "nodepools:index:OkeClusterAutoscaler",
    "PoolPlatforms": "nodepools:index:PoolPlatforms",
    "PoolQuotas": "nodepools:index:PoolQuotas",
    "Recipe": "nodepools:index:Recipe",
    "SharedNodePool": "nodepools:index:SharedNodePool",
}


@pytest.mark.parametrize("package", [nodepools, nodepools.specs], ids=lambda p: p.__name__)
def test_every_exported_name_resolves(package: object) -> None:
    names: list[str] = package.__all__  # type: ignore[attr-defined]
    assert names
    missing = [name for name in names if getattr(package, name, None) is None]
    assert missing == []


def _documented_imports() -> set[tuple[str, str]]:
    """(module, name) of every `from nodepools... import ...` in the docs and examples."""
    found: set[tuple[str, str]] = set()
    texts = [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md")]
    for path in texts:
        for block in re.findall(r"```python\n(.*?)```", path.read_text(), re.S):
            for line in block.splitlines():
                match = re.match(r"\s*from (nodepools[\w.]*) import ([\w, ]+)", line)
                if match:
                    for name in match.group(2).split(","):
                        found.add((match.group(1), name.strip()))
    for path in [*(ROOT / "examples").rglob("*.py"), *(ROOT / "stacks").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nodepools"):
                found.update((node.module or "", alias.name) for alias in node.names)
    return found


def test_every_documented_import_works() -> None:
    documented = _documented_imports()
    assert ("nodepools", "MachinePool") in documented
    broken = sorted(
        f"from {module} import {name}"
        for module, name in documented
        if not hasattr(importlib.import_module(module), name)
    )
    assert broken == []


def test_every_component_in_the_reference_is_exported_with_its_type_token() -> None:
    reference = (ROOT / "docs" / "reference.md").read_text()
    documented = set(re.findall(r"^## (\w+)$", reference, re.M))
    assert documented <= set(TYPE_TOKENS)
    for name, token in TYPE_TOKENS.items():
        assert token == getattr(nodepools, name).TYPE
