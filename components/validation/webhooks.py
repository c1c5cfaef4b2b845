"""Kueue's validating admission webhook, for the checks its CRDs cannot express.

Ported from kubernetes-sigs/kueue ``pkg/webhooks/`` as of the v1beta2 API (release
0.19 line): ``clusterqueue_webhook.go`` (ValidateClusterQueue,
validateResourceGroups, validateFlavorQuotas, validateLimit, validateLendingLimit,
validateTotalFlavors, validateTotalCoveredResources,
validateFlavorResourceCombinations, validateAdmissionCheckOnFlavors,
ValidateClusterQueueUpdate), ``cohort_webhook.go`` (validateCohort),
``resourceflavor_webhook.go`` (ValidateResourceFlavor, validateNodeTaints) and
``common.go`` / ``workload_webhook.go`` (validateResourceName, validateFairSharing,
validateTolerations).

Left out on purpose:

- validatePreemption and validateFlavorFungibility: the v1beta2 CRD carries the same
  checks as CEL rules, and the webhook only ever sees objects the CRD accepted.
- validateConcurrentAdmissionPolicy: behind the ConcurrentAdmission feature gate.
- ResourceFlavor dynamicResources: behind a feature gate, and not in this CRD.

Karpenter v1 has no validating webhook (its rules all moved into the CRDs), and
Kueue's LocalQueue and WorkloadPriorityClass webhooks add nothing the v1beta2 CRDs
do not already check.

The API server calls the webhook only after the CRD schema and CEL rules accepted the
object, so these functions may assume the shapes the schema guarantees.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from nodepools.json_values import is_dict
from nodepools.validation.names import (
    is_qualified_name,
    is_valid_label_value,
    validate_label_name,
    validate_label_selector,
    validate_labels,
)
from nodepools.validation.quantity import InvalidQuantity, parse_quantity
from nodepools.validation.violations import Collector, child, index

NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg
MAX_TOTAL_FLAVORS = 256
MAX_TOTAL_COVERED_RESOURCES = 256
MAX_FLAVOR_RESOURCE_COMBINATIONS = 512
MIN_FAIR_SHARING_WEIGHT = Fraction(1, 10**9)  # resource.MustParse("1n")


def _rule(function: str) -> str:
    return f"kueue webhook {function}"


def _quantity(value: Any, path: str, out: Collector) -> Fraction | None:
    try:
        return parse_quantity(value)
    except InvalidQuantity:
        out.invalid(path, value, InvalidQuantity.api_message, _rule("decode"))
        return None


def _check_non_negative(value: Any, path: str, out: Collector) -> None:
    amount = _quantity(value, path, out)
    if amount is not None and amount < 0:
        out.invalid(path, value, NEGATIVE, _rule("validateResourceQuantity"))


def _check_limit_needs_parent(
    limit: Any, has_parent: bool, parent_word: str, path: str, out: Collector
) -> None:
    if not has_parent:
        out.invalid(path, limit, f"must be nil when {parent_word} is empty", _rule("validateLimit"))


def _check_lending_below_nominal(quota: dict[str, Any], path: str, out: Collector) -> None:
    try:
        exceeds = parse_quantity(quota["lendingLimit"]) > parse_quantity(quota["nominalQuota"])
    except InvalidQuantity:
        return  # already reported by _check_non_negative
    if exceeds:
        out.invalid(
            path,
            quota["lendingLimit"],
            "must be less than or equal to the nominalQuota",
            _rule("validateLendingLimit"),
        )


def _validate_fair_sharing(spec: dict[str, Any], out: Collector) -> None:
    fair_sharing = spec.get("fairSharing")
    if not fair_sharing or "weight" not in fair_sharing:
        return
    weight = fair_sharing["weight"]
    path = "spec.fairSharing"
    amount = _quantity(weight, path, out)
    if amount is None:
        return
    if amount < 0:
        out.invalid(path, weight, NEGATIVE, _rule("validateFairSharing"))
    if 0 < amount <= MIN_FAIR_SHARING_WEIGHT:
        out.invalid(
            path, weight, "When not 0, weight must be > 10e-9", _rule("validateFairSharing")
        )


def _validate_resource_groups(
    groups: list[dict[str, Any]],
    *,
    has_parent: bool,
    is_cohort: bool,
    enforce_lending_below_nominal: bool,
    out: Collector,
) -> None:
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    parent_word = "parent" if is_cohort else "cohort"
    for i, group in enumerate(groups):
        group_path = index("spec.resourceGroups", i)
        covered: list[Any] = group.get("coveredResources", [])
        for j, name in enumerate(covered):
            path = index(child(group_path, "coveredResources"), j)
            for msg in is_qualified_name(name):
                out.invalid(path, name, msg, _rule("validateResourceName"))
            if name in seen_resources:
                out.duplicate(path, name, rule=_rule("validateResourceGroups"))
            seen_resources.add(name)
        for j, flavor in enumerate(group.get("flavors", [])):
            flavor_path = index(child(group_path, "flavors"), j)
            for k, quota in enumerate(flavor.get("resources", [])):
                if k >= len(covered):
                    break
                path = index(child(flavor_path, "resources"), k)
                if quota.get("name") != covered[k]:
                    out.invalid(
                        child(path, "name"),
                        quota.get("name"),
                        "must match the name in coveredResources",
                        _rule("validateFlavorQuotas"),
                    )
                _check_non_negative(quota["nominalQuota"], child(path, "nominalQuota"), out)
                if "borrowingLimit" in quota:
                    limit_path = child(path, "borrowingLimit")
                    _check_limit_needs_parent(
                        quota["borrowingLimit"], has_parent, parent_word, limit_path, out
                    )
                    _check_non_negative(quota["borrowingLimit"], limit_path, out)
                if "lendingLimit" in quota:
                    limit_path = child(path, "lendingLimit")
                    _check_non_negative(quota["lendingLimit"], limit_path, out)
                    _check_limit_needs_parent(
                        quota["lendingLimit"], has_parent, parent_word, limit_path, out
                    )
                if enforce_lending_below_nominal and "lendingLimit" in quota:
                    _check_lending_below_nominal(quota, child(path, "lendingLimit"), out)
            name = flavor.get("name")
            if name in seen_flavors:
                out.duplicate(
                    child(flavor_path, "name"), name, rule=_rule("validateResourceGroups")
                )
            seen_flavors.add(name)


def _validate_totals(groups: list[dict[str, Any]], out: Collector) -> None:
    flavors = sum(len(g.get("flavors", [])) for g in groups)
    if flavors > MAX_TOTAL_FLAVORS:
        out.invalid(
            "spec.resourceGroups",
            flavors,
            f"total number of flavors across all resourceGroups must be ≤ {MAX_TOTAL_FLAVORS}, got {flavors}",
            _rule("validateTotalFlavors"),
        )
    covered = sum(len(g.get("coveredResources", [])) for g in groups)
    if covered > MAX_TOTAL_COVERED_RESOURCES:
        out.invalid(
            "spec.resourceGroups",
            covered,
            "total number of covered resources across all resourceGroups must be "
            f"≤ {MAX_TOTAL_COVERED_RESOURCES}, got {covered}",
            _rule("validateTotalCoveredResources"),
        )
    for i, group in enumerate(groups):
        combinations = sum(len(f.get("resources", [])) for f in group.get("flavors", []))
        if combinations > MAX_FLAVOR_RESOURCE_COMBINATIONS:
            out.invalid(
                index("spec.resourceGroups", i),
                combinations,
                "number of flavor-resource combinations in a resourceGroup must be "
                f"≤ {MAX_FLAVOR_RESOURCE_COMBINATIONS}, got {combinations}",
                _rule("validateFlavorResourceCombinations"),
            )


def _validate_admission_check_flavors(spec: dict[str, Any], out: Collector) -> None:
    strategy = spec.get("admissionChecksStrategy")
    if not strategy:
        return
    flavors = [f.get("name") for g in spec.get("resourceGroups", []) for f in g.get("flavors", [])]
    known = set(flavors)
    for i, check in enumerate(strategy.get("admissionChecks", [])):
        path = child(index("spec.admissionChecksStrategy.admissionChecks", i), "onFlavors")
        for j, flavor in enumerate(check.get("onFlavors", [])):
            if flavor not in known:
                out.unsupported(
                    index(path, j), flavor, sorted(known), _rule("validateAdmissionCheckOnFlavors")
                )


def validate_cluster_queue(obj: dict[str, Any], old: dict[str, Any] | None, out: Collector) -> None:
    spec: dict[str, Any] = obj.get("spec") or {}
    groups: list[Any] = spec.get("resourceGroups", [])
    _validate_resource_groups(
        groups,
        has_parent=bool(spec.get("cohortName")),
        is_cohort=False,
        enforce_lending_below_nominal=True,
        out=out,
    )
    if "namespaceSelector" in spec:
        validate_label_selector(out, spec["namespaceSelector"], "spec.namespaceSelector")
    _validate_fair_sharing(spec, out)
    _validate_totals(groups, out)
    _validate_admission_check_flavors(spec, out)
    if old is not None:
        # The old object was stored before; it is not validated again and may be damaged.
        old_spec = old.get("spec")
        old_policy = old_spec.get("concurrentAdmissionPolicy") if is_dict(old_spec) else None
        if spec.get("concurrentAdmissionPolicy") != old_policy:
            out.invalid(
                "spec.concurrentAdmissionPolicy",
                spec.get("concurrentAdmissionPolicy"),
                "field is immutable",
                _rule("ValidateClusterQueueUpdate"),
            )


def validate_cohort(obj: dict[str, Any], old: dict[str, Any] | None, out: Collector) -> None:
    spec: dict[str, Any] = obj.get("spec") or {}
    _validate_fair_sharing(spec, out)
    _validate_resource_groups(
        spec.get("resourceGroups", []),
        has_parent=bool(spec.get("parentName")),
        is_cohort=True,
        enforce_lending_below_nominal=False,
        out=out,
    )


def validate_resource_flavor(
    obj: dict[str, Any], old: dict[str, Any] | None, out: Collector
) -> None:
    spec: dict[str, Any] = obj.get("spec") or {}
    if "nodeLabels" in spec:
        validate_labels(out, spec["nodeLabels"], "spec.nodeLabels")
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(spec.get("nodeTaints", [])):
        path = index("spec.nodeTaints", i)
        validate_label_name(out, taint.get("key", ""), child(path, "key"))
        value = taint.get("value", "")
        errors = is_valid_label_value(value)
        if errors:
            out.invalid(child(path, "value"), value, ";".join(errors), _rule("validateNodeTaints"))
        identity = (taint.get("effect", ""), taint.get("key", ""))
        if identity in seen:
            out.duplicate(
                path,
                taint,
                "taints must be unique by key and effect pair",
                _rule("validateNodeTaints"),
            )
            continue
        seen.add(identity)
    for i, toleration in enumerate(spec.get("tolerations", [])):
        if toleration.get("key"):
            validate_label_name(out, toleration["key"], child(index("spec.tolerations", i), "key"))


Check = Callable[[dict[str, Any], "dict[str, Any] | None", Collector], None]

WEBHOOKS: dict[tuple[str, str], Check] = {
    ("kueue.x-k8s.io/v1beta2", "ClusterQueue"): validate_cluster_queue,
    ("kueue.x-k8s.io/v1beta2", "Cohort"): validate_cohort,
    ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"): validate_resource_flavor,
}
