"""Helm values a user adds to a chart (`<vendor>.values`), checked against the pinned chart
before anything is registered: every key must be one the chart has (its values.yaml, its
subcharts', or under a map that takes any key), every value what the chart's
values.schema.json requires of it (types, enum, bounds), and none may be one the stack sets
itself (from its options and the served pools: the stack's placement proofs rely on them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nodepools.json_values import is_dict
from nodepools.specs.core.base import Issue
from nodepools.specs.core.field_names import did_you_mean
from nodepools.specs.devices.chart_facts import chart_facts


def value_paths(tree: Any, prefix: str = "") -> list[str]:
    """Every key path of a values tree, dotted, parents before children."""
    paths: list[str] = []
    if is_dict(tree):
        for key, value in tree.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            paths.append(path)
            paths.extend(value_paths(value, path))
    return paths


def leaf_paths(tree: Any, prefix: str = "") -> list[str]:
    """The paths where a values tree sets something: a non-map value, an empty map, null."""
    if not is_dict(tree) or not tree:
        return [prefix] if prefix else []
    return [
        leaf
        for key, value in tree.items()
        for leaf in leaf_paths(value, f"{prefix}.{key}" if prefix else str(key))
    ]


def value_at(tree: Any, path: str) -> Any:
    for part in path.split("."):
        tree = tree[part]
    return tree


def merge_values(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> dict[str, Any]:
    """Maps merged key by key, the user's (`theirs`) added to ours; the checks keep the two
    from setting one path."""
    merged = dict(ours)
    for key, value in theirs.items():
        if is_dict(value) and is_dict(merged.get(key)):
            merged[key] = merge_values(merged[key], value)
        else:
            merged[key] = value
    return merged


def is_json_type(value: Any, json_type: str) -> bool:
    """Whether `value` is of the JSON-schema type `json_type` (an integer is a number too;
    a boolean is neither)."""
    if isinstance(value, bool):
        return json_type == "boolean"
    if json_type == "integer":
        return isinstance(value, int)
    if json_type == "number":
        return isinstance(value, int | float)
    checks: dict[str, bool] = {
        "null": value is None,
        "string": isinstance(value, str),
        "array": isinstance(value, list | tuple),
        "object": is_dict(value),
    }
    return checks.get(json_type, False)


def schema_problem(value: Any, fact: Mapping[str, Any]) -> str | None:
    """Why the chart's schema refuses `value` (its type, enum, bounds), or None."""
    types: list[str] = fact.get("type", [])
    if types and not any(is_json_type(value, t) for t in types):
        return f"is not of type {' or '.join(types)}"
    if "enum" in fact and value not in fact["enum"]:
        return f"is not one of {fact['enum']}"
    number = is_json_type(value, "number")
    if number and "minimum" in fact and value < fact["minimum"]:
        return f"is below its minimum {fact['minimum']}"
    if number and "maximum" in fact and value > fact["maximum"]:
        return f"is above its maximum {fact['maximum']}"
    return None


def _known(path: str, keys: set[str], opened: list[str]) -> bool:
    return path in keys or any(path.startswith(f"{open_path}.") for open_path in opened)


def values_problems(
    where: str, chart: str, version: str, values: Mapping[str, Any], ours: Mapping[str, Any]
) -> list[Issue]:
    """The problems of the values a user adds (`where`: their field path) to a release of
    the pinned `chart` at `version` whose own values are `ours`. Another version than the
    pinned one is not described by the facts: its keys are left to Helm."""
    facts = chart_facts().get(chart)
    if facts is None or facts["version"] != version:
        return []
    named = f"chart {chart} {version}"
    keys = set(facts["keys"])
    opened: list[str] = facts["open"]
    schema: dict[str, Any] = facts["schema"]
    problems: list[Issue] = []
    stack_leaves = leaf_paths(ours)
    unknown: list[str] = []
    for path in value_paths(values):
        if any(path.startswith(f"{u}.") for u in unknown):
            continue  # nothing below an unknown key is looked at
        value = value_at(values, path)
        if not _known(path, keys, opened):
            unknown.append(path)
            parent, _, last = path.rpartition(".")
            siblings = [k.rpartition(".")[2] for k in keys if k.rpartition(".")[0] == parent]
            problems.append(
                Issue(
                    f"{where}.{path}",
                    f"{path!r} is not a value of {named}{did_you_mean(last, siblings)}",
                )
            )
            continue
        if path in schema and (problem := schema_problem(value, schema[path])):
            problems.append(
                Issue(
                    f"{where}.{path}",
                    f"{value!r} {problem}: the values schema of {named} refuses it at {path!r}",
                )
            )
    for leaf in leaf_paths(values):
        taken = [
            s
            for s in stack_leaves
            if s == leaf or s.startswith(f"{leaf}.") or leaf.startswith(f"{s}.")
        ]
        if taken and _known(leaf, keys, opened):
            problems.append(
                Issue(
                    f"{where}.{leaf}",
                    f"{leaf!r} of {named} is set by AcceleratorStack itself ({sorted(taken)}, "
                    "from its options and the served pools): set it through them",
                )
            )
    return _first_per_path(problems)


def _first_per_path(problems: list[Issue]) -> list[Issue]:
    seen: set[str] = set()
    out: list[Issue] = []
    for issue in problems:
        if issue.path not in seen:
            seen.add(issue.path)
            out.append(issue)
    return out
