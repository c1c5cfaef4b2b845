"""What `nodepools diff` reads of a JSON plan, checked before it reads it: a plan missing a
key or holding a value of another type is refused with the key's path, never a traceback.

Only the fields the diff reads are checked, and other keys are let through, so a plan
written by another version of the same `schema_version` (which may carry more) still reads.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from nodepools.specs.core.base import format_path
from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypedDict

Number = float  # strict, yet an int is a float to pydantic: one type, no union in paths


class _Range(TypedDict):
    min: Number | None
    max: Number | None


class _Accelerator(TypedDict):
    resource: str
    model: str | None


class _PoolCost(TypedDict, total=False):
    hourly: _Range


class _Pool(TypedDict):
    name: str
    backend: str
    instance_types: list[str]
    nodes: _Range
    accelerator: _Accelerator | None
    accelerators: _Range | None
    cost: _PoolCost


class _Cost(TypedDict):
    hourly: _Range
    monthly: _Range
    unknown_price: list[str]


class _Recipe(TypedDict):
    name: str
    pool: str | None
    status: str


class _Placement(TypedDict):
    recipes: list[_Recipe]


class _Quota(TypedDict):
    quotas: str
    department: str
    project: str
    pool: str


class _Finding(TypedDict):
    policy: str
    level: str
    resource: str
    message: str


class _Resource(TypedDict):
    type: str
    name: str
    key_inputs: dict[str, Any]


class _Plan(TypedDict):
    schema_version: int
    stack: str
    status: str
    error: str | None
    resources: list[_Resource]
    pools: list[_Pool]
    cost: _Cost
    placement: _Placement
    quotas: list[_Quota]
    policy: list[_Finding]


@cache
def _adapter() -> TypeAdapter[_Plan]:
    return TypeAdapter(_Plan)


def plan_problems(document: Any) -> list[str]:
    """What is wrong with `document` as a plan the diff reads: `path: problem` lines."""
    try:
        _adapter().validate_python(document, strict=True)
    except ValidationError as exc:
        problems: list[str] = []
        for error in exc.errors(include_url=False):
            path = format_path(error["loc"]) or "the document"
            if error["type"] == "missing":
                problems.append(f"`{path}` is missing")
            else:
                got = repr(error["input"])
                got = got if len(got) <= 60 else got[:57] + "..."
                problems.append(
                    f"`{path}`: {error['msg'][0].lower()}{error['msg'][1:]} (got {got})"
                )
        return problems
    return []
