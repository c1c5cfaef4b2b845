"""Property values as the engine hands them to a policy pack.

Numbers arrive as floats (the engine turns every int into one), and maps and lists may be
wrapped in pulumi_policy's unknown-checking proxies, so the rules read them through these
instead of `isinstance(value, dict)` checks that a proxy would fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast


def mapping(value: Any) -> Mapping[str, Any]:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else {}


def items(value: Any) -> Sequence[Any]:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return cast("Sequence[Any]", value)
    return ()


def number(value: Any) -> float | None:
    """A float for JSON numbers and numeric strings (OKE types some sizes as strings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def config_number(args: Any, key: str, default: float) -> float:
    """A numeric threshold from the policy's config (as the engine sends it), or `default`."""
    value = number(args.get_config().get(key))
    return default if value is None else value


def string_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in mapping(value).items()}


def fmt(value: float | None) -> str:
    """Numbers as people write them: 3, not 3.0 (the engine turns every int into a float)."""
    if value is None:
        return "unset"
    return str(int(value)) if float(value).is_integer() else str(value)
