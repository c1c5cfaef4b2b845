"""PoolPlatforms as Kubernetes objects (pure: specs in, manifests out).

OSMO concept -> what we emit:

- platform pod template (`common_pod_template` + the platform's `override_pod_template`)
  -> a core/v1 PodTemplate per platform in each pool namespace: the common template merged
  with the platform's (later wins; lists of named items, e.g. containers, merged by
  `name`), plus the pool's node labels and the platform's node selector, tolerations for
  the pool's taints and the platform's tolerations.
- default variables (`USER_CPU`, `USER_GPU`, `USER_MEMORY`, `USER_STORAGE`) -> resource
  requests of every container of that template (`cpu`, the pool's accelerator resource as
  request and limit, `memory`, `ephemeral-storage`), unless the container sets them.
- resource validations -> one ValidatingAdmissionPolicy per platform (and its binding to
  the pool's namespaces) over Pod creation: each OSMO rule `{{USER_X}} op {{K8_X}}`
  becomes CEL comparing the pod's request (sum over containers, and each init container)
  with the platform's node resources; a pod belongs to a platform when its nodeSelector
  carries the platform's selector, and to the default platform when it selects no other.
- `privileged_allowed`/`host_network_allowed` -> templates that break them are refused at
  construction, and the policy refuses such pods at admission.
- roles (`osmo-<prefix>` with a pool glob) -> a Role (submit pods and Jobs, read pod
  templates and Kueue workloads) and a RoleBinding for the role's groups in each namespace
  of every pool the glob matches. Namespaced on purpose: a ClusterRoleBinding would grant
  the rights in every namespace, and a ClusterRole shared by every PoolPlatforms whose pool
  matches the glob could be owned by only one of them.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from nodepools.governance.cel import CelError, compile_check
from nodepools.governance.manifests import Rendered
from nodepools.scheduling import toleration_for
from nodepools.specs.base import Issue, SpecError, format_path
from nodepools.specs.kube import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    format_quantity,
    kube_name,
    parse_amount,
)
from nodepools.specs.labels import DEFAULT_PLATFORM_ANNOTATION, PLATFORM_LABEL
from nodepools.specs.platforms import (
    CelValidation,
    Platform,
    PoolPlatformsArgs,
    ResourceRule,
    Variables,
)

ADMISSION_API = "admissionregistration.k8s.io/v1"
RBAC_API = "rbac.authorization.k8s.io/v1"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
_OPERATORS = {"LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}

# What "submit workloads to the pool" means in Kubernetes RBAC.
SUBMIT_RULES = [
    {
        "apiGroups": [""],
        "resources": ["pods"],
        "verbs": ["create", "delete", "get", "list", "watch"],
    },
    {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
    {"apiGroups": [""], "resources": ["podtemplates"], "verbs": ["get", "list", "watch"]},
    {
        "apiGroups": ["batch"],
        "resources": ["jobs"],
        "verbs": ["create", "delete", "get", "list", "watch"],
    },
    {
        "apiGroups": ["kueue.x-k8s.io"],
        "resources": ["workloads"],
        "verbs": ["get", "list", "watch"],
    },
]


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


@dataclass(frozen=True)
class PlatformsPlan:
    objects: list[Rendered]
    platforms: list[dict[str, Any]]  # per platform, for outputs and the plan
    roles: list[dict[str, Any]]


class _Issues:
    def __init__(self) -> None:
        self.items: list[Issue] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(Issue(path, message))


# --- pod templates ---------------------------------------------------------------------


def _named_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(i, dict) and "name" in i for i in value)


def merge_pod_specs(base: Any, override: Any) -> Any:
    """`override` over `base`: maps merge, lists of named items merge by `name`, anything
    else is replaced by the later value."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = copy.deepcopy(base)
        for key, value in override.items():
            merged[key] = merge_pod_specs(base[key], value) if key in base else copy.deepcopy(value)
        return merged
    if _named_list(base) and _named_list(override) and base and override:
        merged_list = copy.deepcopy(base)
        index = {item["name"]: i for i, item in enumerate(merged_list)}
        for item in override:
            if item["name"] in index:
                slot = index[item["name"]]
                merged_list[slot] = merge_pod_specs(merged_list[slot], item)
            else:
                index[item["name"]] = len(merged_list)
                merged_list.append(copy.deepcopy(item))
        return merged_list
    return copy.deepcopy(override)


def _gpu_resource(args: PoolPlatformsArgs) -> str:
    return args.pool.gpu_resource


def _requests(variables: Variables, gpu_resource: str) -> tuple[dict[str, Any], dict[str, Any]]:
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    if variables.USER_CPU is not None:
        requests[CPU] = format_quantity(variables.USER_CPU, CPU)
    if variables.USER_MEMORY is not None:
        requests[MEMORY] = format_quantity(variables.USER_MEMORY, MEMORY)
    if variables.USER_STORAGE is not None:
        requests[EPHEMERAL_STORAGE] = format_quantity(variables.USER_STORAGE, EPHEMERAL_STORAGE)
    if variables.USER_GPU:
        # Extended resources can't be overcommitted: the API server wants a limit, equal
        # to the request.
        requests[gpu_resource] = limits[gpu_resource] = variables.USER_GPU
    return requests, limits


def _apply_requests(spec: dict[str, Any], requests: dict[str, Any], limits: dict[str, Any]) -> None:
    for container in spec.get("containers") or []:
        resources = container.setdefault("resources", {})
        if requests:
            own = resources.setdefault("requests", {})
            for resource, amount in requests.items():
                own.setdefault(resource, amount)
        if limits:
            own = resources.setdefault("limits", {})
            for resource, amount in limits.items():
                own.setdefault(resource, amount)


def _merge_selector(
    target: dict[str, str], extra: dict[str, str], path: str, issues: _Issues
) -> None:
    for key, value in extra.items():
        if key in target and target[key] != value:
            issues.add(
                format_path([*path.split("."), key]) if path else key,
                f"{value!r} conflicts with {target[key]!r} from the pool or the pod template",
            )
        target[key] = value


def _platform_selector(platform: Platform, where: str, issues: _Issues) -> dict[str, str]:
    """What tells this platform's pods apart: its node_selector and its template's."""
    selector = dict(platform.pod_template.get("nodeSelector") or {})
    _merge_selector(selector, platform.node_selector, f"{where}.node_selector", issues)
    return dict(sorted(selector.items()))


def _tolerations(*groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for group in groups:
        for toleration in group:
            if toleration not in found:
                found.append(toleration)
    return found


def _check_containers(spec: dict[str, Any], where: str, issues: _Issues) -> None:
    containers = spec.get("containers")
    if not isinstance(containers, list) or not containers:
        issues.add(
            f"{where}.pod_template.containers",
            "the merged pod template has no containers (a PodTemplate needs at least one); "
            "give them in `common_pod_template` or here",
        )
        return
    for i, container in enumerate(containers):
        if (
            not isinstance(container, dict)
            or not container.get("name")
            or not container.get("image")
        ):
            issues.add(
                f"{where}.pod_template.containers",
                f"container {i} of the merged template ({container!r}) needs a `name` and an "
                "`image`",
            )


def _check_privileges(
    args: PoolPlatformsArgs,
    name: str,
    platform: Platform,
    merged: dict[str, Any],
    issues: _Issues,
) -> None:
    where = format_path(["platforms", name])
    if merged.get("hostNetwork") is True and not platform.host_network_allowed:
        source = (
            f"{where}.pod_template.hostNetwork"
            if platform.pod_template.get("hostNetwork") is True
            else "common_pod_template.hostNetwork"
        )
        issues.add(
            source,
            f"hostNetwork true on platform {name!r}, which does not allow it "
            "(`host_network_allowed` is false)",
        )
    if platform.privileged_allowed:
        return
    for kind in ("initContainers", "containers"):
        for container in merged.get(kind) or []:
            if not isinstance(container, dict):
                continue
            if (container.get("securityContext") or {}).get("privileged") is not True:
                continue
            own = [
                c.get("name")
                for c in platform.pod_template.get(kind) or []
                if isinstance(c, dict)
                and (c.get("securityContext") or {}).get("privileged") is True
            ]
            template, items = (
                (f"{where}.pod_template", platform.pod_template.get(kind))
                if container.get("name") in own
                else ("common_pod_template", args.common_pod_template.get(kind))
            )
            index = next(
                (
                    i
                    for i, c in enumerate(items or [])
                    if isinstance(c, dict) and c.get("name") == container.get("name")
                ),
                0,
            )
            issues.add(
                f"{template}.{kind}[{index}].securityContext.privileged",
                f"container {container.get('name')!r} is privileged on platform {name!r}, which "
                "does not allow it (`privileged_allowed` is false)",
            )


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


def _selects(selector: dict[str, str]) -> str:
    checks = " && ".join(
        f"{_cel(k)} in object.spec.nodeSelector && object.spec.nodeSelector[{_cel(k)}] == {_cel(v)}"
        for k, v in selector.items()
    )
    return f"(has(object.spec.nodeSelector) && {checks})"


def _float(value: Fraction) -> str:
    return repr(float(value))


def _user_resource(variable: str, gpu_resource: str) -> str:
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
    rule: ResourceRule, path: str, platform: Platform, args: PoolPlatformsArgs, issues: _Issues
) -> _Validation | None:
    variable = rule.left_operand.strip("{}")
    resource = _user_resource(variable, _gpu_resource(args))
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


def _cel_validation(rule: CelValidation, path: str, issues: _Issues) -> _Validation | None:
    try:
        compile_check(rule.expression)
    except CelError as err:
        issues.add(f"{path}.expression", f"{rule.expression!r} does not compile: {err}")
        return None
    manifest = {"expression": rule.expression}
    if rule.message:
        manifest["message"] = rule.message
    return _Validation(manifest, None, f"CEL: {rule.expression}")


def _validations(
    name: str, platform: Platform, args: PoolPlatformsArgs, issues: _Issues
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


def _policy(
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
            "expression": f"object.spec.containers.map(c, {_request_of('c', _user_resource(variable, gpu_resource))}).sum()",
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


def _compile_emitted(objects: list[Rendered], issues: _Issues) -> None:
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


# --- everything --------------------------------------------------------------------------


def render_platforms(name: str, args: PoolPlatformsArgs) -> PlatformsPlan:
    """All objects of a PoolPlatforms in a stable order; raises SpecError listing every
    problem (with its path) first."""
    issues = _Issues()
    issues.items += args.consistency_issues()
    pool_kube = kube_name(args.pool.name)
    namespaces = args.namespace_names
    gpu_resource = _gpu_resource(args)
    pool_tolerations = [toleration_for(taint) for taint in args.pool.taints]
    names = sorted(args.platforms, key=kube_name)
    selectors = {
        platform_name: _platform_selector(
            args.platforms[platform_name], format_path(["platforms", platform_name]), issues
        )
        for platform_name in names
    }
    objects: list[Rendered] = []
    if args.create_namespaces:
        objects += [
            Rendered(
                f"namespace-{ns}",
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
                "namespaces",
            )
            for ns in namespaces
        ]
    platforms_out: list[dict[str, Any]] = []
    for platform_name in names:
        platform = args.platforms[platform_name]
        where = format_path(["platforms", platform_name])
        platform_kube = kube_name(platform_name)
        is_default = platform_name == args.default_platform
        own_selector = selectors[platform_name]
        if not own_selector and len(names) > 1 and not is_default:
            issues.add(
                f"{where}.node_selector",
                f"platform {platform_name!r} needs a node selector to tell its pods from the "
                "other platforms' (only the default platform or a lone one may have none)",
            )
        merged = merge_pod_specs(args.common_pod_template, platform.pod_template)
        selector = dict(merged.get("nodeSelector") or {})
        _merge_selector(selector, dict(args.pool.node_labels), "", issues)
        _merge_selector(selector, platform.node_selector, f"{where}.node_selector", issues)
        if selector:
            merged["nodeSelector"] = dict(sorted(selector.items()))
        tolerations = _tolerations(
            list(merged.get("tolerations") or []),
            pool_tolerations,
            [t.manifest() for t in platform.tolerations],
        )
        if tolerations:
            merged["tolerations"] = tolerations
        _check_containers(merged, where, issues)
        _check_privileges(args, platform_name, platform, merged, issues)
        variables = args.common_default_variables.merged(platform.default_variables)
        requests, limits = _requests(variables, gpu_resource)
        _apply_requests(merged, requests, limits)
        validations = _validations(platform_name, platform, args, issues)

        metadata: dict[str, Any] = {"labels": {PLATFORM_LABEL: platform_kube}}
        if is_default:
            metadata["annotations"] = {DEFAULT_PLATFORM_ANNOTATION: "true"}
        for ns in namespaces:
            objects.append(
                Rendered(
                    f"podtemplate-{ns}-{platform_kube}",
                    {
                        "apiVersion": "v1",
                        "kind": "PodTemplate",
                        "metadata": {
                            "name": platform_kube,
                            "namespace": ns,
                            **copy.deepcopy(metadata),
                        },
                        "template": {
                            "metadata": {"labels": {PLATFORM_LABEL: platform_kube}},
                            "spec": copy.deepcopy(merged),
                        },
                    },
                    where,
                )
            )
        policy_name = None
        if validations:
            others = [selectors[n] for n in names if n != platform_name and selectors[n]]
            if own_selector:
                match = _selects(own_selector)
                if is_default and others:
                    match = f"{match} || ({' && '.join(f'!{_selects(o)}' for o in others)})"
            elif others:
                match = " && ".join(f"!{_selects(o)}" for o in others)
            else:
                match = None
            policy_name = f"{pool_kube}-{platform_kube}"
            objects += _policy(
                policy_name, platform_kube, match, validations, gpu_resource, namespaces, where
            )
        platforms_out.append(
            {
                "name": platform_name,
                "default": is_default,
                "podTemplate": platform_kube,
                "policy": policy_name,
                "nodeSelector": merged.get("nodeSelector", {}),
                "tolerations": tolerations,
                "defaultVariables": {
                    key: format_quantity(Fraction(value), _user_resource(key, gpu_resource))
                    for key, value in variables.set_values().items()
                },
                "validations": [v.summary for v in validations],
            }
        )
    roles_out: list[dict[str, Any]] = []
    for i, role in sorted(enumerate(args.roles), key=lambda item: kube_name(item[1].name)):
        role_kube = kube_name(role.name)
        groups = sorted(set(role.groups))
        for ns in namespaces:
            objects.append(
                Rendered(
                    f"role-{ns}-{role_kube}",
                    {
                        "apiVersion": RBAC_API,
                        "kind": "Role",
                        "metadata": {"name": role_kube, "namespace": ns},
                        "rules": copy.deepcopy(SUBMIT_RULES),
                    },
                    f"roles[{i}]",
                )
            )
            objects.append(
                Rendered(
                    f"rolebinding-{ns}-{role_kube}",
                    {
                        "apiVersion": RBAC_API,
                        "kind": "RoleBinding",
                        "metadata": {"name": role_kube, "namespace": ns},
                        "roleRef": {
                            "apiGroup": "rbac.authorization.k8s.io",
                            "kind": "Role",
                            "name": role_kube,
                        },
                        "subjects": [
                            {
                                "apiGroup": "rbac.authorization.k8s.io",
                                "kind": "Group",
                                "name": group,
                            }
                            for group in groups
                        ],
                    },
                    f"roles[{i}]",
                )
            )
        roles_out.append(
            {"name": role.name, "pools": role.pools, "groups": groups, "namespaces": namespaces}
        )
    if not issues.items:
        _compile_emitted(objects, issues)
    if issues.items:
        raise SpecError(f"PoolPlatforms {name!r}", issues.items)
    return PlatformsPlan(objects, platforms_out, roles_out)
