"""Type guards for JSON-like data (manifests, config, API bodies, CRD schemas) walked as data.

`isinstance(value, dict)` narrows a value of unknown shape to `dict[Unknown, Unknown]`, which
the strict type check (`make typecheck`) refuses to let flow any further. Such data really is
"any keys, any values": these guards say so once, narrowing to `dict[Any, Any]` and
`list[Any]`, and behave exactly as the `isinstance` checks they stand for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard


def is_dict(value: object) -> TypeGuard[dict[Any, Any]]:
    """`isinstance(value, dict)`."""
    return isinstance(value, dict)


def is_list(value: object) -> TypeGuard[list[Any]]:
    """`isinstance(value, list)`."""
    return isinstance(value, list)


def is_sequence(value: object) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """`isinstance(value, list | tuple)`."""
    return isinstance(value, list | tuple)


def is_mapping(value: object) -> TypeGuard[Mapping[Any, Any]]:
    """`isinstance(value, Mapping)`."""
    return isinstance(value, Mapping)


def dig(data: Any, path: str) -> Any:
    """The value at dotted `path` in nested mappings, or None where the path ends early."""
    for part in path.split("."):
        if not is_dict(data):
            return None
        data = data.get(part)
    return data
