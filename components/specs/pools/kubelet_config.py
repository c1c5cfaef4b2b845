"""`node_config.kubelet` against the real KubeletConfiguration (kubelet.config.k8s.io/v1beta1):
field names and the kind of value each takes, from data/kubelet_config_fields.json
(regenerated from the k8s.io/kubelet Go module by scripts/kubelet_config_fields.py)."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, cast

from nodepools.json_values import is_dict, is_list

# Go's time.ParseDuration syntax, which metav1.Duration fields are parsed with.
_GO_DURATION = re.compile(r"^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+)$")

# Fields the pool writes from its own settings (the node group's taints, `max_pods`), or
# the document's own header.
OWNED_BY_THE_POOL = {
    "maxPods": "give `node_config.max_pods` instead of `kubelet.maxPods`",
    "registerWithTaints": "give the pool's `taints` instead: EKS registers the node group's "
    "taints itself",
}


@cache
def kubelet_config_fields() -> dict[str, str]:
    """Field name -> kind (bool, int, float, string, duration, string-map, bool-map,
    string-list-map, list, object)."""
    text = resources.files("nodepools.specs.pools").joinpath("data/kubelet_config_fields.json")
    return cast("dict[str, str]", json.loads(text.read_text())["fields"])


def kubelet_version() -> str:
    text = resources.files("nodepools.specs.pools").joinpath("data/kubelet_config_fields.json")
    return cast("str", json.loads(text.read_text())["version"])


def _all_strings(values: Any) -> bool:
    return is_list(values) and all(isinstance(v, str) for v in values)


def _kind_problem(kind: str, value: Any) -> str | None:
    """What is wrong with `value` for a field of `kind`, or None."""
    ok: bool
    match kind:
        case "bool":
            ok = isinstance(value, bool)
        case "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        case "float":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        case "string":
            ok = isinstance(value, str)
        case "duration":
            return (
                None
                if isinstance(value, str) and _GO_DURATION.fullmatch(value)
                else "a duration such as `30s`, `2m0s` or `1h30m`"
            )
        case "string-map":
            ok = is_dict(value) and all(isinstance(v, str) for v in value.values())
        case "bool-map":
            ok = is_dict(value) and all(isinstance(v, bool) for v in value.values())
        case "string-list-map":
            ok = is_dict(value) and all(_all_strings(v) for v in value.values())
        case "list":
            ok = is_list(value)
        case _:
            ok = is_dict(value)
    names = {
        "bool": "true or false",
        "int": "a whole number",
        "float": "a number",
        "string": "a string",
        "string-map": "a map of strings to strings",
        "bool-map": "a map of strings to true/false",
        "string-list-map": "a map of strings to lists of strings",
        "list": "a list",
    }
    return None if ok else names.get(kind, "an object")


def kubelet_field_problem(key: str, value: Any) -> str | None:
    """Why `key: value` is not a KubeletConfiguration setting the pool can pass, or None."""
    if key in ("apiVersion", "kind"):
        return f"{key!r} is written by the pool itself; remove it"
    if key in OWNED_BY_THE_POOL:
        return OWNED_BY_THE_POOL[key]
    fields = kubelet_config_fields()
    kind = fields.get(key)
    if kind is None:
        folded = key.replace("_", "").replace("-", "").lower()
        close = [name for name in fields if name.lower() == folded]
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return (
            f"{key!r} is not a KubeletConfiguration field (kubelet.config.k8s.io/v1beta1, "
            f"k8s.io/kubelet {kubelet_version()}: camelCase names such as `registryPullQPS`)"
            f"{hint}"
        )
    expected = _kind_problem(kind, value)
    if expected is not None:
        return f"{value!r} is not a valid `{key}`: expected {expected}"
    return None
