"""The objects a plan rendered held against the objects the files said: every field that
differs, with its path, both values and the reason the importer recorded for it.

Numbers are compared as numbers (the plan captures every number as a float); with
`quantities`, a Kubernetes quantity written as a number equals the same digits as a
string (`9` and `"9"` are one quantity to the API server).
"""

from __future__ import annotations

import json
from typing import Any

from nodepools.importers.model import Difference, Imported
from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.base import format_path

ABSENT = None


def normal(value: Any) -> Any:
    """`value` with integral floats as ints (as its author wrote them)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if is_dict(value):
        return {key: normal(item) for key, item in value.items()}
    if is_list(value):
        return [normal(item) for item in value]
    return value


def show(value: Any) -> str:
    """A value as one line: JSON with sorted keys; `(none)` for an absent one."""
    if value is ABSENT:
        return "(none)"
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _same(a: Any, b: Any, quantities: bool) -> bool:
    if a == b and type(a) is type(b):
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if quantities and {type(a), type(b)} <= {int, str}:
        return str(a) == str(b)
    return False


def field_differences(
    upstream: Any, ours: Any, path: tuple[Any, ...] = (), *, quantities: bool = False
) -> list[tuple[tuple[Any, ...], Any, Any]]:
    """(path, upstream value, our value) of every leaf that differs. Lists of one length
    are compared item by item; otherwise the items only one side has are listed."""
    # An absent mapping is an empty one: compare inside it, so each key is its own line.
    if is_dict(upstream) and _empty(ours):
        ours = {}
    elif is_dict(ours) and _empty(upstream):
        upstream = {}
    if is_dict(upstream) and is_dict(ours):
        found: list[tuple[tuple[Any, ...], Any, Any]] = []
        for key in sorted({*upstream, *ours}, key=str):
            found += field_differences(
                upstream.get(key, ABSENT),
                ours.get(key, ABSENT),
                (*path, key),
                quantities=quantities,
            )
        return found
    if is_list(upstream) and is_list(ours):
        left, right = upstream, ours
        if len(left) == len(right):
            found = []
            for index, (a, b) in enumerate(zip(left, right, strict=True)):
                found += field_differences(a, b, (*path, index), quantities=quantities)
            return found
        extra = [(i, item) for i, item in enumerate(right) if not _contains(left, item, quantities)]
        missing = [
            (i, item) for i, item in enumerate(left) if not _contains(right, item, quantities)
        ]
        return [((*path, i), item, ABSENT) for i, item in missing] + [
            ((*path, i), ABSENT, item) for i, item in extra
        ]
    if _empty(upstream) and _empty(ours):
        return []
    return [] if _same(upstream, ours, quantities) else [(path, upstream, ours)]


def _empty(value: Any) -> bool:
    """Absent, null, `[]` or `{}`: the same to an API that omits empty fields."""
    return value is None or value == [] or value == {}


def _contains(items: list[Any], item: Any, quantities: bool) -> bool:
    return any(not field_differences(candidate, item, quantities=quantities) for candidate in items)


def compare(
    imported: Imported, rendered: dict[str, dict[str, Any]], *, quantities: bool = False
) -> list[Difference]:
    """Every difference between the objects the input said and those the plan rendered,
    the importer's refusals first; sorted, so the report is the same on every run."""
    found: list[Difference] = list(imported.refused)
    ours = {key: normal(value) for key, value in rendered.items()}
    for key, upstream in sorted(imported.upstream.items()):
        if key not in ours:
            found.append(Difference(key, "present", ABSENT, imported.why(key)))
            continue
        for path, a, b in field_differences(normal(upstream), ours[key], quantities=quantities):
            where = f"{key} {format_path(path)}"
            found.append(Difference(where, a, b, imported.why(where)))
    for key in sorted(set(ours) - set(imported.upstream)):
        found.append(Difference(key, ABSENT, "present", imported.why(key)))
    return sorted(found, key=lambda d: (d.where, show(d.upstream), show(d.ours)))


def difference_line(difference: Difference) -> str:
    return (
        f"{difference.where}: upstream {show(difference.upstream)}, ours "
        f"{show(difference.ours)} ({difference.why})"
    )
