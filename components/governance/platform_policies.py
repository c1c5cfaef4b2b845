"""Platform resource validations for the Kubernetes target, as ValidatingAdmissionPolicies.

Each OSMO rule `{{USER_X}} op {{K8_X}}` becomes CEL comparing the pod's request (sum over
containers, and each init container) with the platform's node resources; `{expression,
message}` validations are CEL already; `privileged_allowed`/`host_network_allowed` become
checks of their own. Every emitted expression is compiled before anything is registered.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from nodepools.governance.admission_cel import CelError, compile_check
from nodepools.governance.manifests import Rendered
from nodepools.governance.platform_templates import IssueList, gpu_resource_of
from nodepools.specs.core.base import format_path
from nodepools.specs.core.kube import CPU, EPHEMERAL_STORAGE, MEMORY, format_quantity, parse_amount
from nodepools.specs.core.labels import PLATFORM_LABEL
from nodepools.specs.governance.platforms import (
    CelValidation,
    Platform,
    PoolPlatformsArgs,
    ResourceRule,
)

ADMISSION_API = "admissionregistration.k8s.io/v1"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
_OPERATORS = {"LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}


def _rule(operator: str, resource: str, node: str, message: str) -> ResourceRule:
    return ResourceRule(
        operator=operator,
        left_operand=f"{{{{USER_{resource}}}}}",
        right_operand=f"{{{{K8_{node}}}}}",
        assert_message=message,
    )


# OSMO's stock rule sets, as we model them: a request of at most what one node has. (OSMO's
# also demand a request above 0; pods without requests are common in Kubernetes, so not here.)
BUILTIN_VALIDATIONS: dict[str, list[ResourceRule]] = {
    "default_cpu": [
        _rule("LE", "CPU", "CPU", "CPU request {{USER_CPU}} is more than a node has ({{K8_CPU}})")
    ],
    "default_gpu": [
        _rule("LE", "GPU", "GPU", "GPU request {{USER_GPU}} is more than a node has ({{K8_GPU}})")
    ],
    "default_memory": [
        _rule(
            "LE",
            "MEMORY",
            "MEMORY",
            "Memory request {{USER_MEMORY}} is more than a node has ({{K8_MEMORY}})",
        )
    ],
    "default_storage": [
        _rule(
            "LE",
            "STORAGE",
            "STORAGE",
            "Storage request {{USER_STORAGE}} is more than a node has ({{K8_STORAGE}})",
        )
    ],
}


# --- admission policies ----------------------------------------------------------------


def _cel(text: str) -> str:
    return json.dumps(text)


def _request_of(var: str, resource: str) -> str:
    """CEL: container `var`'s request of `resource` as a float (its limit when only that is
    set, as the API server defaults requests to limits; 0 when neither)."""
    r = _cel(resource)
    requests, limits = f"{var}.resources.requests", f"{var}.resources.limits"
    return (
        f"(has({var}.resources) && has({requests}) && {r} in {requests} ? "
        f"quantity(string({requests}[{r}])).asApproximateFloat() : "
        f"(has({var}.resources) && has({limits}) && {r} in {limits} ? "
        f"quantity(string({limits}[{r}])).asApproximateFloat() : 0.0))"
    )


def selects(selector: dict[str, str]) -> str:
    checks = " && ".join(
        f"{_cel(k)} in object.spec.nodeSelector && object.spec.nodeSelector[{_cel(k)}] == {_cel(v)}"
        for k, v in selector.items()
    )
    return f"(has(object.spec.nodeSelector) && {checks})"


def _float(value: Fraction) -> str:
    return repr(float(value))


def user_resource(variable: str, gpu_resource: str) -> str:
    return {
        "USER_CPU": CPU,
        "USER_GPU": gpu_resource,
        "USER_MEMORY": MEMORY,
        "USER_STORAGE": EPHEMERAL_STORAGE,
    }[variable]


def _node_value(
    variable: str, platform: Platform, args: PoolPlatformsArgs
) -> tuple[Fraction | None, str]:
    field = {"K8_CPU": "cpu", "K8_GPU": "gpu", "K8_MEMORY": "memory", "K8_STORAGE": "storage"}[
        variable
    ]
    value = getattr(platform.node_resources, field)
    if value is None and field == "gpu":
        value = args.pool.gpus_per_node
    resource = {"cpu": CPU, "gpu": "", "memory": MEMORY, "storage": EPHEMERAL_STORAGE}[field]
    return (None if value is None else Fraction(value)), resource


@dataclass
class _Validation:
    manifest: dict[str, Any]
    variable: str | None  # the USER_* variable it needs, if any
    summary: str


_PLACEHOLDER = re.compile(r"(\{\{[A-Z0-9_]+\}\})")


def _message_parts(
    template: str, node_values: dict[str, str], user_values: dict[str, str]
) -> tuple[str, str]:
    """(message, messageExpression) from an OSMO assert message: `{{K8_X}}` filled in
    with the node's value, `{{USER_X}}` shown as the pod's value by the expression (and by
    name in the static fallback)."""
    static: list[str] = []
    dynamic: list[str] = []
    literal = ""  # adjacent text, joined into one CEL string literal
    for piece in _PLACEHOLDER.split(template):
        name = piece[2:-2] if _PLACEHOLDER.fullmatch(piece) else None
        if name in user_values:
            static.append(name)
            if literal:
                dynamic.append(_cel(literal))
                literal = ""
            dynamic.append(f"string({user_values[name]})")
            continue
        text = node_values.get(name, piece) if name else piece
        static.append(text)
        literal += text
    if literal or not dynamic:
        dynamic.append(_cel(literal))
    return "".join(static), " + ".join(dynamic) or _cel("")


def _rule_validation(
    rule: ResourceRule, path: str, platform: Platform, args: PoolPlatformsArgs, issues: IssueList
) -> _Validation | None:
    variable = rule.left_operand.strip("{}")
    resource = user_resource(variable, gpu_resource_of(args))
    right = rule.right_operand
    node_text: dict[str, str] = {}
    if isinstance(right, str) and right.startswith("{{"):
        node_var = right.strip("{}")
        if node_var not in ("K8_CPU", "K8_GPU", "K8_MEMORY", "K8_STORAGE"):
            issues.add(
                f"{path}.right_operand",
                f"{right!r} is not one of {{{{K8_CPU}}}}, {{{{K8_GPU}}}}, {{{{K8_MEMORY}}}}, "
                "{{K8_STORAGE}} or a quantity",
            )
            return None
        limit, unit = _node_value(node_var, platform, args)
        if limit is None:
            field = node_var.removeprefix("K8_").lower()
            issues.add(
                f"{path}.right_operand",
                f"{right!r} needs the platform's `node_resources.{field}` (the most one node "
                "offers), which is not set",
            )
            return None
        shown = node_text[node_var] = str(format_quantity(limit, unit))
    else:
        try:
            limit = parse_amount(right)
        except ValueError as err:
            issues.add(f"{path}.right_operand", str(err))
            return None
        shown = str(format_quantity(limit, resource))
    op = _OPERATORS[rule.operator]
    var_name = f"variables.{variable.lower()}"
    value = _float(limit)
    init = _request_of("c", resource)
    if rule.operator in ("LE", "LT"):
        expression = (
            f"{var_name} {op} {value} && (!has(object.spec.initContainers) || "
            f"object.spec.initContainers.all(c, {init} {op} {value}))"
        )
    else:
        expression = (
            f"{var_name} {op} {value} || (has(object.spec.initContainers) && "
            f"object.spec.initContainers.exists(c, {init} {op} {value}))"
        )
    template = rule.assert_message or f"{{{{{variable}}}}} must be {op} {shown}"
    message, message_expression = _message_parts(template, node_text, {variable: var_name})
    manifest = {
        "expression": expression,
        "message": message,
        "messageExpression": message_expression,
    }
    return _Validation(manifest, variable, f"{variable} {op} {shown}")


def _cel_validation(rule: CelValidation, path: str, issues: IssueList) -> _Validation | None:
    try:
        compile_check(rule.expression)
    except CelError as err:
        issues.add(f"{path}.expression", f"{rule.expression!r} does not compile: {err}")
        return None
    manifest = {"expression": rule.expression}
    if rule.message:
        manifest["message"] = rule.message
    return _Validation(manifest, None, f"CEL: {rule.expression}")


def platform_validations(
    name: str, platform: Platform, args: PoolPlatformsArgs, issues: IssueList
) -> list[_Validation]:
    where = format_path(["platforms", name])
    sources = [
        (f"common_resource_validations[{i}]", v)
        for i, v in enumerate(args.common_resource_validations)
    ]
    sources += [
        (f"{where}.resource_validations[{i}]", v)
        for i, v in enumerate(platform.resource_validations)
    ]
    found: list[_Validation] = []
    for path, validation in sources:
        if isinstance(validation, str):
            rules = BUILTIN_VALIDATIONS.get(validation)
            if rules is None:
                known = ", ".join(sorted(BUILTIN_VALIDATIONS))
                issues.add(path, f"unknown validation set {validation!r} (built in: {known})")
                continue
            made = [_rule_validation(rule, path, platform, args, issues) for rule in rules]
        elif isinstance(validation, ResourceRule):
            made = [_rule_validation(validation, path, platform, args, issues)]
        else:
            made = [_cel_validation(validation, path, issues)]
        found += [v for v in made if v is not None and v not in found]
    if not platform.host_network_allowed:
        found.append(
            _Validation(
                {
                    "expression": "!has(object.spec.hostNetwork) || object.spec.hostNetwork == false",
                    "message": f"platform {name!r} does not allow hostNetwork pods",
                },
                None,
                "no hostNetwork",
            )
        )
    if not platform.privileged_allowed:
        unprivileged = (
            "(!has(c.securityContext) || !has(c.securityContext.privileged) || "
            "c.securityContext.privileged == false)"
        )
        found.append(
            _Validation(
                {
                    "expression": f"object.spec.containers.all(c, {unprivileged}) && "
                    "(!has(object.spec.initContainers) || "
                    f"object.spec.initContainers.all(c, {unprivileged}))",
                    "message": f"platform {name!r} does not allow privileged containers",
                },
                None,
                "no privileged containers",
            )
        )
    return found


def policy_objects(
    vap_name: str,
    platform_kube: str,
    match: str | None,
    validations: list[_Validation],
    gpu_resource: str,
    namespaces: list[str],
    where: str,
) -> list[Rendered]:
    used = sorted({v.variable for v in validations if v.variable})
    variables = [
        {
            "name": variable.lower(),
            "expression": f"object.spec.containers.map(c, {_request_of('c', user_resource(variable, gpu_resource))}).sum()",
        }
        for variable in used
    ]
    spec: dict[str, Any] = {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["pods"],
                }
            ]
        },
    }
    if match is not None:
        spec["matchConditions"] = [{"name": "on-platform", "expression": match}]
    if variables:
        spec["variables"] = variables
    spec["validations"] = [v.manifest for v in validations]
    labels = {PLATFORM_LABEL: platform_kube}
    policy = {
        "apiVersion": ADMISSION_API,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": vap_name, "labels": labels},
        "spec": spec,
    }
    binding = {
        "apiVersion": ADMISSION_API,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": vap_name, "labels": labels},
        "spec": {
            "policyName": vap_name,
            "validationActions": ["Deny"],
            "matchResources": {
                "namespaceSelector": {
                    "matchExpressions": [
                        {"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": list(namespaces)}
                    ]
                }
            },
        },
    }
    return [
        Rendered(f"policy-{platform_kube}", policy, where),
        Rendered(f"policybinding-{platform_kube}", binding, where),
    ]


def compile_emitted(objects: list[Rendered], issues: IssueList) -> None:
    # Ours are generated, but a bad selector value or message must not reach a cluster.
    for item in objects:
        if item.kind != "ValidatingAdmissionPolicy":
            continue
        spec = item.manifest["spec"]
        checks = [(c["expression"], "BOOL") for c in spec.get("matchConditions", [])]
        checks += [(v["expression"], None) for v in spec.get("variables", [])]
        for validation in spec["validations"]:
            checks.append((validation["expression"], "BOOL"))
            if "messageExpression" in validation:
                checks.append((validation["messageExpression"], "STRING"))
        for expression, expect in checks:
            try:
                compile_check(expression, expect=expect)
            except CelError as err:
                issues.add(item.origin, f"emitted CEL {expression!r} does not compile: {err}")
