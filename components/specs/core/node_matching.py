"""Kubernetes' rules for whether a pod may run on a node: taints against tolerations, and
the node selector and required node affinity against the node's labels.

Pure and small on purpose: AcceleratorStack proves with it that each DaemonSet it
configures runs on every node of the pools it serves (and on no other), and the plan
reports it. The rules are the scheduler's (`TaintToleration` and `NodeAffinity` filter
plugins): a toleration with an empty key and `Exists` tolerates every taint; an empty
effect matches every effect; `PreferNoSchedule` never keeps a pod off a node; the terms of
a required node affinity are ORed, the expressions of one term ANDed, and a term with no
expression matches no node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from nodepools.specs.core.taints import Taint

REPELLING_EFFECTS = ("NoSchedule", "NoExecute")


def toleration_matches(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """Whether one toleration tolerates one taint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return key == "" or key == taint.key
    return key == taint.key and (toleration.get("value") or "") == (taint.value or "")


def untolerated(tolerations: Sequence[Mapping[str, Any]], taints: Iterable[Taint]) -> list[Taint]:
    """The taints that keep a pod with `tolerations` off a node (PreferNoSchedule never does)."""
    return [
        taint
        for taint in taints
        if taint.effect in REPELLING_EFFECTS
        and not any(toleration_matches(t, taint) for t in tolerations)
    ]


def expression_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """One `matchExpressions` entry against a node's labels."""
    key = expression["key"]
    operator = expression["operator"]
    raw: list[Any] = list(expression.get("values") or [])
    values = [str(v) for v in raw]
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    if operator in ("Gt", "Lt"):
        if key not in labels or not labels[key].lstrip("-").isdigit():
            return False
        node, bound = int(labels[key]), int(values[0])
        return node > bound if operator == "Gt" else node < bound
    raise ValueError(
        f"{operator!r} is not a node selector operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)"
    )


def selects(
    node_selector: Mapping[str, str] | None,
    affinity: Mapping[str, Any] | None,
    labels: Mapping[str, str],
) -> bool:
    """Whether a pod's `nodeSelector` and required node affinity admit a node's labels."""
    for key, value in (node_selector or {}).items():
        if labels.get(key) != str(value):
            return False
    node_affinity: Mapping[str, Any] = (affinity or {}).get("nodeAffinity") or {}
    required: Mapping[str, Any] = (
        node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    )
    if not required:
        return True
    terms: list[Mapping[str, Any]] = list(required.get("nodeSelectorTerms") or [])
    return any(
        bool(term.get("matchExpressions"))
        and all(expression_matches(e, labels) for e in term["matchExpressions"])
        for term in terms
    )
