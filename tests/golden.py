"""Golden files: rendered artifacts reviewed in diffs. `UPDATE_GOLDEN=1 make test` rewrites them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).parent / "golden"


def _ints(value: Any) -> Any:
    # The engine sends numbers as floats; goldens read better (and diff less) as ints.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_ints(v) for v in value]
    return value


def render(data: Any) -> str:
    if isinstance(data, str):
        return data if data.endswith("\n") else data + "\n"
    return json.dumps(_ints(data), indent=2, sort_keys=True) + "\n"


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
