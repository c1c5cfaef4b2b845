"""Validation of policy config against a policy's `config_schema` (a JSON Schema subset).

The CLI validates `--policy-pack-config` with a full JSON Schema implementation before the
pack sees it; the in-process runner has to reach the same verdict without one. The pack's
schemas use only the keywords below, and a schema using any other keyword is refused rather
than half-checked (a test keeps every shipped schema inside this set).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from nodepools.json_values import is_mapping

ANNOTATIONS = frozenset({"default", "description", "title"})
ASSERTIONS = frozenset(
    {
        "type",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
    }
)
SUPPORTED_KEYWORDS = ANNOTATIONS | ASSERTIONS


def unsupported_keywords(schema: Mapping[str, Any]) -> set[str]:
    """Keywords in `schema` (nested schemas included) this validator does not implement."""
    found = set(schema) - SUPPORTED_KEYWORDS
    for nested in _subschemas(schema):
        found |= unsupported_keywords(nested)
    return found


def _subschemas(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    nested = list(schema.get("properties", {}).values())
    for keyword in ("items", "additionalProperties"):
        if isinstance(schema.get(keyword), Mapping):
            nested.append(schema[keyword])
    return nested


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "integer" if float(value).is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Sequence):
        return "array"
    return type(value).__name__


def _has_type(value: Any, expected: str) -> bool:
    actual = _json_type(value)
    # JSON Schema counts 3.0 as an integer, and every integer as a number.
    return actual == expected or (expected == "number" and actual == "integer")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def validate(schema: Mapping[str, Any], value: Any, path: str = "") -> list[str]:
    """Every way `value` breaks `schema`, each prefixed with the path of the offending value."""
    where = f"{path}: " if path else ""
    unknown = set(schema) - SUPPORTED_KEYWORDS
    if unknown:
        raise ValueError(
            f"{where}config schema keyword(s) not supported: {', '.join(sorted(unknown))}"
        )
    shown = json.dumps(value, default=str)
    if "type" in schema:
        types = [schema["type"]] if isinstance(schema["type"], str) else list(schema["type"])
        if not any(_has_type(value, t) for t in types):
            return [f"{where}expected {' or '.join(types)}, got {_json_type(value)} {shown}"]
    errors: list[str] = []
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(json.dumps(o) for o in schema["enum"])
        errors.append(f"{where}must be one of {options}, got {shown}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}must be at least {schema['minimum']}, got {shown}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}must be at most {schema['maximum']}, got {shown}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{where}must be at least {schema['minLength']} characters, got {shown}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{where}must be at most {schema['maxLength']} characters, got {shown}")
    if _json_type(value) == "array":
        array = cast("list[Any]", value)
        if "minItems" in schema and len(array) < schema["minItems"]:
            errors.append(f"{where}must have at least {schema['minItems']} items, got {shown}")
        if "maxItems" in schema and len(array) > schema["maxItems"]:
            errors.append(f"{where}must have at most {schema['maxItems']} items, got {shown}")
        if isinstance(schema.get("items"), Mapping):
            for index, item in enumerate(array):
                errors += validate(schema["items"], item, f"{path}[{index}]")
    if is_mapping(value):
        properties: Mapping[str, Any] = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{where}`{name}` is required")
        for name, item in value.items():
            child = f"{path}.{name}" if path else str(name)
            if name in properties:
                errors += validate(properties[name], item, child)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{child}: is not allowed")
            elif isinstance(schema.get("additionalProperties"), Mapping):
                errors += validate(schema["additionalProperties"], item, child)
    return errors
