"""Golden files: rendered artifacts reviewed in diffs. `UPDATE_GOLDEN=1 make test` rewrites them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from nodepools.planning.report import whole_numbers

GOLDEN_DIR = Path(__file__).parent / "golden"


def render(data: Any) -> str:
    if isinstance(data, str):
        return data if data.endswith("\n") else data + "\n"
    return json.dumps(whole_numbers(data), indent=2, sort_keys=True) + "\n"


def assert_golden(name: str, data: Any) -> None:
    """Compare `data` with tests/golden/<name> (a relative path with its extension)."""
    path = GOLDEN_DIR / name
    text = render(data)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.is_file(), f"missing golden file {path}; run with UPDATE_GOLDEN=1 to create it"
    expected = path.read_text()
    assert text == expected, (
        f"{path} differs from the rendered value; review and rerun with UPDATE_GOLDEN=1"
    )
