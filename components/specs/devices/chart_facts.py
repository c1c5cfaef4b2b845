"""What the pinned charts accept, as data: `data/chart_values_keys.json`, derived from the
charts by `scripts/chart_values_keys.py` (value key paths, the paths under which any key is
allowed, the JSON-schema facts of `values.schema.json`, and the placement defaults)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

CHART_FACTS = Path(__file__).resolve().parent / "data" / "chart_values_keys.json"


@cache
def chart_facts() -> dict[str, Any]:
    """chart -> {version, keys, open, schema, defaults}: the pinned charts' value paths, the
    paths taking any key, what their schema requires of a path, and the defaults of the
    values that place their pods."""
    facts: dict[str, Any] = json.loads(CHART_FACTS.read_text())
    return facts


def chart_default(chart: str, path: str) -> Any:
    """The pinned chart's default for a placement value (dotted path)."""
    return chart_facts()[chart]["defaults"][path]
