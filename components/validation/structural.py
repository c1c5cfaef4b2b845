"""Structural schema validation: what kube-openapi checks before any CEL rule runs.

One walk over the (pruned, defaulted) manifest checks types, ``int-or-string``,
``format``, ``required``, ``enum``, ``pattern``, numeric bounds, lengths and sizes, and
the uniqueness that ``x-kubernetes-list-type: set|map`` promises. Each error is worded
as the API server words it (go-openapi's detail, apimachinery's error kind), and the
kinds that make the API server skip CEL (type, required, enum, too long, too many)
are marked blocking in the `Collector`.

Integers arriving as integral floats (``3.0``, as Pulumi's mocks hand them back) are
integers to the API server too; the walk rewrites them as ``int`` in the working copy
so CEL sees ``int``, as it would after Go's JSON decoding.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.validation.schema import SchemaNode
from nodepools.validation.violations import Collector, child, index, key

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# strfmt's date-time: RFC 3339 with an optional fraction; the zone may be omitted.
DATE_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?\Z"
)


def is_date_time(value: str) -> bool:
    match = DATE_TIME.match(value)
    if not match:
        return False
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, min(second, 59))
    except ValueError:
        return False
    return True


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_integer(value: Any) -> int | None:
    """``value`` as a JSON integer, or None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if INT64_MIN <= value <= INT64_MAX else None
    if isinstance(value, float) and value.is_integer() and INT64_MIN <= value <= INT64_MAX:
        return int(value)
    return None


def _hashable(value: Any) -> Any:
    """A key under which JSON-equal values collide (and ``1`` differs from ``True``)."""
    if is_dict(value):
        return ("object", tuple(sorted((str(k), _hashable(v)) for k, v in value.items())))
    if is_list(value):
        return ("array", tuple(_hashable(v) for v in value))
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    return (type(value).__name__, value)


def validate(node: SchemaNode, value: Any, path: str, out: Collector) -> Any:
    """Validate ``value`` against ``node``; returns the value, ints normalised."""
    if value is None:
        if not node.nullable:
            out.type_invalid(path, None, node.type or "integer or string")
        return value
    if node.int_or_string:
        if isinstance(value, str):
            _check_string(node, value, path, out)
        else:
            number = _as_integer(value)
            if number is None:
                out.type_invalid(path, value, "integer or string")
                return value
            _check_number(node, number, path, out)
            value = number
        _check_enum(node, value, path, out)
        return value

    kind = node.type
    if kind == "object":
        if not is_dict(value):
            out.type_invalid(path, value, "object")
            return value
        _check_object(node, value, path, out)
    elif kind == "array":
        if not is_list(value):
            out.type_invalid(path, value, "array")
            return value
        _check_array(node, value, path, out)
    elif kind == "string":
        if not isinstance(value, str):
            out.type_invalid(path, value, "string")
            return value
        _check_string(node, value, path, out)
    elif kind == "integer":
        number = _as_integer(value)
        if number is None:
            out.type_invalid(path, value, "integer")
            return value
        value = number
        _check_number(node, value, path, out)
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            out.type_invalid(path, value, "number")
            return value
        _check_number(node, value, path, out)
    elif kind == "boolean" and not isinstance(value, bool):
        out.type_invalid(path, value, "boolean")
        return value
    _check_enum(node, value, path, out)
    return value


def _check_enum(node: SchemaNode, value: Any, path: str, out: Collector) -> None:
    if node.enum is None:
        return
    if node.enum_strings is not None:
        if isinstance(value, str) and value in node.enum_strings:
            return
    elif any(_hashable(value) == _hashable(choice) for choice in node.enum):
        return
    out.unsupported(path, value, node.enum)


def _check_object(node: SchemaNode, value: dict[Any, Any], path: str, out: Collector) -> None:
    for name in node.required:
        if name not in value:
            out.required(child(path, name))
    count = len(value)
    if node.max_properties is not None and count > node.max_properties:
        out.too_many(path, count, node.max_properties, "properties")
    if node.min_properties is not None and count < node.min_properties:
        out.invalid(path, value, f"should have at least {node.min_properties} properties")
    if node.properties:
        for name, sub in node.properties.items():
            if name in value:
                item = value[name]
                checked = validate(sub, item, child(path, name), out)
                if checked is not item:
                    value[name] = checked
    if node.additional is not None:
        sub = node.additional
        for name in sorted(value, key=str):
            if node.properties and name in node.properties:
                continue
            item = value[name]
            checked = validate(sub, item, key(path, name), out)
            if checked is not item:
                value[name] = checked


def _check_array(node: SchemaNode, value: list[Any], path: str, out: Collector) -> None:
    count = len(value)
    if node.max_items is not None and count > node.max_items:
        out.too_many(path, count, node.max_items)
    if node.min_items is not None and count < node.min_items:
        out.invalid(path, value, f"should have at least {node.min_items} items")
    sub = node.items
    if sub is not None:
        for i, item in enumerate(value):
            checked = validate(sub, item, index(path, i), out)
            if checked is not item:
                value[i] = checked
    if node.list_type == "set":
        seen: set[Any] = set()
        for i, item in enumerate(value):
            marker = _hashable(item)
            if marker in seen:
                out.duplicate(index(path, i), item)
            seen.add(marker)
    elif node.list_type == "map" and node.list_map_keys:
        seen_keys: set[Any] = set()
        for i, item in enumerate(value):
            if not is_dict(item):
                continue
            marker = tuple(_hashable(item.get(k)) for k in node.list_map_keys)
            if marker in seen_keys:
                out.duplicate(index(path, i), {k: item.get(k) for k in node.list_map_keys})
            seen_keys.add(marker)


def _check_string(node: SchemaNode, value: str, path: str, out: Collector) -> None:
    # go-openapi counts characters (runes), not bytes, for min/maxLength.
    if node.max_length is not None and len(value) > node.max_length:
        out.too_long(path, value, node.max_length)
    if node.min_length is not None and len(value) < node.min_length:
        out.invalid(path, value, f"should be at least {node.min_length} chars long")
    if node.pattern_re is not None and node.pattern_re.search(value) is None:
        out.invalid(path, value, f"should match '{node.pattern}'")
    if node.format == "date-time" and not is_date_time(value):
        out.type_invalid(path, value, "date-time")


def _check_number(node: SchemaNode, value: float, path: str, out: Collector) -> None:
    if node.minimum is not None:
        if node.exclusive_minimum and value <= node.minimum:
            out.invalid(path, value, f"should be greater than {_number(node.minimum)}")
        elif value < node.minimum:
            out.invalid(path, value, f"should be greater than or equal to {_number(node.minimum)}")
    if node.maximum is not None:
        if node.exclusive_maximum and value >= node.maximum:
            out.invalid(path, value, f"should be less than {_number(node.maximum)}")
        elif value > node.maximum:
            out.invalid(path, value, f"should be less than or equal to {_number(node.maximum)}")
