"""What OSMO's models check on the documents nodepools sends, enforced from the facts.

`scripts/extract_osmo_facts.py` derives `rules` (required fields, enum fields with their
values, string patterns) and the models' fields from OSMO's sources; `document_issues`
applies them, and the models' field types, to a document before it is sent, so a rule
OSMO adds is enforced here as soon as the facts are regenerated. Each config type maps onto
OSMO's models as the config API reads it:

- `ROLE`: `Role` (its `policies`: `RolePolicy`);
- `POOL`: `PoolEditable` (the PUT's `Pool` has the same editable fields), its platforms
  `PlatformEditable`, `topology_keys` `TopologyKey`, `resources` `PoolResources`;
- `POD_TEMPLATE`: `{name: template}`, the name `PodTemplate.name`; OSMO builds a
  `Toleration` of each `spec.tolerations` item when a pool uses the template;
- `RESOURCE_VALIDATION`: `{name: [rules]}`, the name `ResourceValidation.name`, each rule a
  `ResourceAssertion`.
"""

from __future__ import annotations

import re
from typing import Any

from nodepools.json_values import dig, is_dict, is_list
from nodepools.specs.core.base import Issue, format_path
from nodepools.specs.governance.osmo_models import osmo_facts

_BASIC: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "bool": (bool,),
    "int": (int,),
    "Dict": (dict,),
    "List": (list,),
}


def _chain(model: str) -> list[str]:
    """The model and its bases that the facts know, base first."""
    models = osmo_facts()["models"]
    found: list[str] = []
    for base in models[model]["bases"]:
        if base in models:
            found += _chain(base)
    return [*found, model]


def model_fields(model: str) -> dict[str, Any]:
    """Every field of `model`, its bases' included."""
    models = osmo_facts()["models"]
    return {k: v for name in _chain(model) for k, v in models[name]["fields"].items()}


def _extra(model: str) -> str | None:
    models = osmo_facts()["models"]
    return next((models[m]["extra"] for m in reversed(_chain(model)) if models[m]["extra"]), None)


def rules_of(model: str) -> list[dict[str, Any]]:
    """The extracted rules of `model` and its bases."""
    names = set(_chain(model)) if model in osmo_facts()["models"] else {model}
    return [rule for rule in osmo_facts()["rules"] if rule["model"] in names]


def rule_problem(rule: dict[str, Any], value: Any) -> str | None:
    """Why `value` of the rule's field breaks an enum or pattern rule, or None."""
    where = f"OSMO's `{rule['model']}.{rule['field'].rstrip('[]{}')}`"
    if rule["rule"] == "enum":
        allowed = rule["values"]
        if rule.get("case_insensitive") and isinstance(value, str):
            ok = value.lower() in [v.lower() for v in allowed]
        else:
            ok = value in allowed
        if not ok:
            return f"{value!r} is not one of {', '.join(map(repr, allowed))} ({where})"
    elif rule["rule"] == "pattern" and (
        not isinstance(value, str) or not re.fullmatch(rule["pattern"], value)
    ):
        return f"{value!r} does not match `{rule['pattern']}` ({where})"
    return None


def _nested(type_text: str) -> tuple[str, str | None]:
    """(container, model) of a field type: `List[X]` -> ("list", X), `Dict[str, X]` ->
    ("dict", X), `X | None` -> ("", X); the model is None unless the facts know it."""
    models = osmo_facts()["models"]
    text = type_text.replace("Optional[", "").rstrip("]") if "Optional[" in type_text else type_text
    text = text.split(" |")[0].strip()
    for prefix, container in (("List[", "list"), ("Dict[str, ", "dict")):
        if text.startswith(prefix):
            inner = text[len(prefix) : -1]
            return container, inner if inner in models else None
    return "", text if text in models else None


def _type_problem(type_text: str, value: Any) -> str | None:
    if value is None:
        return None if ("None" in type_text or "Optional" in type_text) else "can't be null"
    head = type_text.split("[")[0].split(" |")[0].strip()
    expected = _BASIC.get(head)
    if expected is None:
        return None
    if isinstance(value, bool) and bool not in expected:
        return f"{value!r} is not {head}"
    if not isinstance(value, expected):
        return f"{value!r} is not {'an object' if head == 'Dict' else 'a list' if head == 'List' else head}"
    if type_text in ("List[str]", "Dict[str, str]"):
        items: list[Any] = (
            list(value.values()) if is_dict(value) else value if is_list(value) else []
        )
        if bad := [item for item in items if not isinstance(item, str)]:
            return f"{bad[0]!r} is not str"
    return None


def model_issues(model: str, value: Any, path: list[Any]) -> list[Issue]:
    """Every way `value` breaks what OSMO's `model` checks, each at its path."""
    if not is_dict(value):
        return [Issue(format_path(path), f"{value!r} is not an object (OSMO's `{model}`)")]
    issues: list[Issue] = []
    fields = model_fields(model)
    for rule in rules_of(model):
        field = rule["field"].rstrip("[]{}")
        if rule["rule"] == "required":
            if field not in value:
                issues.append(
                    Issue(format_path([*path, field]), f"is required by OSMO's `{rule['model']}`")
                )
            continue
        if field not in value or value[field] is None:
            continue
        given: Any = value[field]
        items: list[tuple[list[Any], Any]]
        if rule["field"].endswith("[]") and is_list(given):
            items = [([*path, field, i], item) for i, item in enumerate(given)]
        elif rule["field"].endswith("{}") and is_dict(given):
            items = [([*path, field, key], key) for key in given]
        else:
            items = [([*path, field], given)]
        for where, item in items:
            if problem := rule_problem(rule, item):
                issues.append(Issue(format_path(where), problem))
    if _extra(model) == "forbid":
        for key in sorted(str(k) for k in value if k not in fields):
            issues.append(
                Issue(
                    format_path([*path, key]),
                    f"is not a field of OSMO's `{model}` (it forbids others)",
                )
            )
    for key, field in fields.items():
        if key not in value:
            continue
        if problem := _type_problem(field["type"], value[key]):
            issues.append(Issue(format_path([*path, key]), problem))
            continue
        container, inner = _nested(field["type"])
        nested: Any = value[key]
        if inner is None or nested is None:
            continue
        if container == "list" and is_list(nested):
            for i, item in enumerate(nested):
                issues += model_issues(inner, item, [*path, key, i])
        elif container == "dict" and is_dict(nested):
            for name, item in nested.items():
                issues += model_issues(inner, item, [*path, key, name])
        else:
            issues += model_issues(inner, nested, [*path, key])
    return issues


def _name_issues(model: str, name: str, path: list[Any]) -> list[Issue]:
    return [
        Issue(format_path(path), problem)
        for rule in rules_of(model)
        if rule["field"] == "name" and (problem := rule_problem(rule, name))
    ]


def document_issues(config_type: str, name: str, document: Any, path: list[Any]) -> list[Issue]:
    """Every way a document `osmo config update <config_type>` would send breaks OSMO's
    models; `path` is where the document was given."""
    if config_type == "ROLE":
        return model_issues("Role", document, path)
    if config_type == "POOL":
        return model_issues("PoolEditable", {"name": name, **document}, path)
    if config_type == "POD_TEMPLATE":
        issues = _name_issues("PodTemplate", name, path)
        template: Any = document.get(name) if is_dict(document) else None
        tolerations: Any = dig(template, "spec.tolerations")
        for i, toleration in enumerate(tolerations if is_list(tolerations) else []):
            issues += model_issues("Toleration", toleration, [*path, "spec", "tolerations", i])
        return issues
    if config_type == "RESOURCE_VALIDATION":
        issues = _name_issues("ResourceValidation", name, path)
        rules: Any = document.get(name) if is_dict(document) else None
        if not is_list(rules):
            return [*issues, Issue(format_path(path), f"{rules!r} is not a list of rules")]
        for i, rule in enumerate(rules):
            issues += model_issues("ResourceAssertion", rule, [*path, i])
        return issues
    raise ValueError(f"unknown OSMO config type {config_type!r}")


__all__ = ["document_issues", "model_fields", "model_issues", "rule_problem", "rules_of"]
