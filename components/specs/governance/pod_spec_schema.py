"""Partial pod specs (pod templates) checked against the Kubernetes core/v1 schema.

A platform's pod template is a *partial* pod spec: a node selector, tolerations, one
container's resources. It is merged with others before it reaches a cluster (by us for the
Kubernetes target, by OSMO for OSMO), so fields Kubernetes requires (`containers`, a
container's `image`) may be missing here; everything that is there must have the shape and
type the schema gives, and no unknown field is allowed (the strict schema), so that
`resources: "big"`, `volumes: 5`, `containers: "not-a-list"`, `containers: [null]` or
`nodeSelector: "gpu"` are errors with their paths rather than crashes later.

The schemas are the PodSpec and ObjectMeta schemas `kubernetes-validate` ships for the
Kubernetes version we pin (`KUBERNETES_SCHEMA_VERSION`), with every definition they reach,
derived into `data/pod_template_schema.json` by `scripts/extract_pod_schema.py` (without
descriptions), so an installed `nodepools` needs neither that package nor its schemas for
every other Kubernetes version. jsonschema and the facts are loaded on first use only: a
program without pod templates never pays for them.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.base import Issue, format_path

KUBERNETES_SCHEMA_VERSION = "1.33.0"
"""The Kubernetes minor whose core/v1 schema pod templates are checked against."""
_FACTS = "data/pod_template_schema.json"
_MAX_ISSUES = 20
# Lists of named items in a pod spec: each item needs its `name` (the merge key) even in a
# partial spec, since merging by name is how a partial spec adds to another.
_NAMED_LISTS = ("containers", "initContainers", "ephemeralContainers", "volumes")
# Only these keys are checked for `required` (the merge key), all others may be omitted.
_REQUIRED_KEPT = frozenset({"name"})


@cache
def _facts() -> dict[str, Any]:
    from importlib import resources

    facts = json.loads(resources.files("nodepools.specs.governance").joinpath(_FACTS).read_text())
    if facts["kubernetes_version"] != KUBERNETES_SCHEMA_VERSION:
        raise RuntimeError(
            f"{_FACTS} holds Kubernetes {facts['kubernetes_version']}'s schema, not "
            f"{KUBERNETES_SCHEMA_VERSION}'s: run scripts/extract_pod_schema.py"
        )
    return facts


@cache
def _validators() -> dict[str, Any]:
    import jsonschema

    facts = _facts()
    # One root per kind, the definitions beside it: its references are local (`#/$defs/...`).
    return {
        kind: jsonschema.Draft202012Validator({**root, "$defs": facts["$defs"]})
        for kind, root in facts["roots"].items()
    }


def _message(error: Any) -> str:
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not", "unknown fields are not")
    if error.validator in ("type", "oneOf", "anyOf"):
        expected = error.schema.get("type")
        if error.validator != "type" or expected is None:
            return f"{error.instance!r} does not have the shape the Kubernetes schema gives"
        kinds = [expected] if isinstance(expected, str) else [t for t in expected if t != "null"]
        return f"must be of type {' or '.join(kinds)} (got {error.instance!r})"
    if error.validator == "required":
        return "needs a `name` (lists of named items are merged by it)"
    return f"{error.message}"


def _kept(error: Any) -> bool:
    """Errors that count for a partial spec: every one but a missing required field (except
    a list item's `name`)."""
    if error.validator != "required":
        return True
    missing = [k for k in error.validator_value if k not in (error.instance or {})]
    return any(key in _REQUIRED_KEPT for key in missing)


def _leaf_errors(error: Any) -> list[Any]:
    # oneOf/anyOf errors say only "is not valid under any of the given schemas"; a type
    # mismatch of the value itself is clearer, and the deepest error of a branch is where
    # the problem is.
    if error.validator in ("oneOf", "anyOf") and error.context:
        deepest = max(error.context, key=lambda e: len(e.absolute_path))
        return [deepest] if deepest.absolute_path else [error]
    return [error]


def _quantity_issues(spec: dict[str, Any], path: str) -> list[Issue]:
    """Resource amounts that are not Kubernetes quantities (the schema only says "string
    or number"). OSMO's templated values (`{{USER_CPU}}`) are filled in later: skipped."""
    from nodepools.validation.quantity import InvalidQuantity, parse_quantity

    places: list[tuple[list[Any], Any]] = [(["resources"], spec.get("resources"))]
    for kind in ("initContainers", "containers"):
        items = spec.get(kind)
        for i, item in enumerate(items if is_list(items) else []):
            if is_dict(item):
                places.append(([kind, i, "resources"], item.get("resources")))
    found: list[Issue] = []
    for where, resources in places:
        if not is_dict(resources):
            continue
        for part in ("requests", "limits"):
            amounts = resources.get(part)
            if not is_dict(amounts):
                continue
            for name, amount in amounts.items():
                if isinstance(amount, str) and "{{" in amount:
                    continue
                if isinstance(amount, bool) or not isinstance(amount, str | int | float):
                    continue  # a wrong type is the schema's to report
                at = format_path([*where, part, name], path)
                try:
                    if parse_quantity(amount) < 0:
                        found.append(Issue(at, f"{amount!r} must not be negative"))
                except InvalidQuantity as err:
                    found.append(Issue(at, str(err)))
    return found


def pod_spec_issues(spec: Any, path: str) -> list[Issue]:
    """Problems of a partial pod spec (`spec` of a Pod), each with its path below `path`."""
    return _issues("spec", spec, path)


def pod_template_issues(template: Any, path: str) -> list[Issue]:
    """Problems of an OSMO pod template: a mapping with `spec` and `metadata` (both
    partial) and nothing else."""
    if not is_dict(template):
        return [Issue(path, f"must be a mapping with `spec` (got {template!r})")]
    issues = [
        Issue(
            format_path([key], path),
            "unknown field of a pod template (expected `spec`, `metadata`)",
        )
        for key in sorted(template, key=str)
        if key not in ("spec", "metadata")
    ]
    if "metadata" in template:
        issues += _issues("metadata", template["metadata"], format_path(["metadata"], path))
    if "spec" in template:
        issues += pod_spec_issues(template["spec"], format_path(["spec"], path))
    return issues


def _issues(kind: str, value: Any, path: str) -> list[Issue]:
    if not is_dict(value):
        return [Issue(path, f"must be a mapping (got {value!r})")]
    validator = _validators()[kind]
    found: list[Issue] = []
    for error in sorted(
        validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        if not _kept(error):
            continue
        for leaf in _leaf_errors(error):
            if not _kept(leaf):
                continue
            issue = Issue(format_path(list(leaf.absolute_path), path), _message(leaf))
            if issue not in found:
                found.append(issue)
    if kind == "spec":
        found += _quantity_issues(value, path)
        for key in _NAMED_LISTS:
            items = value.get(key)
            if not is_list(items):
                continue
            for i, item in enumerate(items):
                if not is_dict(item):
                    found.append(
                        Issue(format_path([key, i], path), f"must be a mapping (got {item!r})")
                    )
            names = [item.get("name") for item in items if is_dict(item)]
            for name in sorted({n for n in names if isinstance(n, str) and names.count(n) > 1}):
                found.append(Issue(format_path([key], path), f"lists {name!r} twice"))
    return found[:_MAX_ISSUES]


__all__ = ["KUBERNETES_SCHEMA_VERSION", "pod_spec_issues", "pod_template_issues"]
