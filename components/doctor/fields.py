"""Typed reads of API objects (plain JSON): a missing field is an empty value of its type,
so each check reads `field(node, "status", "allocatable")` instead of chains of
`.get(...) or {}`, and the strict type check knows what it got."""

from __future__ import annotations

from typing import Any

from nodepools.json_values import is_dict, is_list

Obj = dict[str, Any]


def field(data: object, *path: str) -> Obj:
    """The object at `path`, or {} where the path ends early or holds something else."""
    for key in path:
        data = data.get(key) if is_dict(data) else None
    return data if is_dict(data) else {}


def entries(data: object, *path: str) -> list[Obj]:
    """The objects of the list at `path` ([] where there is none)."""
    for key in path:
        data = data.get(key) if is_dict(data) else None
    return [item for item in data if is_dict(item)] if is_list(data) else []


def text(data: object, *path: str) -> str:
    """The value at `path` as a string ("" where there is none)."""
    for key in path:
        data = data.get(key) if is_dict(data) else None
    return "" if data is None else str(data)


def strings(data: object, *path: str) -> dict[str, str]:
    """The string map at `path` (labels, annotations, a node selector)."""
    return {str(k): str(v) for k, v in field(data, *path).items()}


def name(obj: object) -> str:
    return text(obj, "metadata", "name")


def namespace(obj: object) -> str:
    return text(obj, "metadata", "namespace")


def condition(obj: object, kind: str) -> Obj | None:
    """The status condition of type `kind`, if the object has one."""
    return next((c for c in entries(obj, "status", "conditions") if c.get("type") == kind), None)
