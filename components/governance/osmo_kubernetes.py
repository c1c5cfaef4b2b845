"""The Kubernetes target of OSMO documents: the same platform model as our own form.

OSMO's documents become `PoolPlatformsArgs`, which `platform_objects.render_platforms`
compiles into PodTemplates, ValidatingAdmissionPolicies and RBAC:

- pod templates: the pool's `common_pod_template` names, merged in order (lists of named
  items by `name`, as OSMO merges them), become `common_pod_template`; each platform's
  `override_pod_template` names become its `pod_template`. OSMO's built-ins
  (`default_user`, `default_ctrl`) are OSMO's own containers, templated by OSMO at
  submission: they have no Kubernetes counterpart and are left out, so a template of the
  entry must give the user container (`name` and `image`) for the Kubernetes target;
- `common_default_variables` / `default_variables`: `USER_CPU`, `USER_GPU`, `USER_MEMORY`,
  `USER_STORAGE` become the containers' requests; other variables are OSMO templating
  and have no counterpart;
- resource validations (built-in or defined) become admission rules, `{{K8_*}}` read
  from `kubernetes.node_resources` (OSMO reads them from the nodes). `EQ` rules, and rules
  not of the form `{{USER_*}} op value`, can't be admission rules: they are errors here;
- `host_network_allowed` / `privileged_allowed` as in our form;
- roles: a Role and RoleBinding per namespace for the IdP groups mapped to the OSMO role
  (`external_roles`, else the role's own name);
- `allowed_mounts`, `description`, `backend` and the pool's timeouts and scheduler
  settings are OSMO's alone.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from nodepools.governance.platform_templates import merge_pod_specs
from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.base import Issue, SpecError, format_path
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.osmo_models import (
    OsmoResourceRule,
    builtin_pod_templates,
    builtin_resource_validations,
)
from nodepools.specs.governance.osmo_platforms import OsmoPlatformsArgs
from nodepools.specs.governance.platforms import USER_VARIABLES, PoolPlatformsArgs

_RULE_OPERATORS = ("LE", "LT", "GE", "GT")


def _merged_spec(names: list[str], args: OsmoPlatformsArgs) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for name in names:
        if name in builtin_pod_templates():
            continue
        merged = merge_pod_specs(merged, args.pod_templates[name].get("spec") or {})
    return merged


def _templated(value: Any, loc: list[Any]) -> list[tuple[list[Any], str]]:
    """(location, string) of each string holding OSMO templating (`{{...}}`) in a template."""
    if is_dict(value):
        return [p for k, v in value.items() for p in _templated(v, [*loc, k])]
    if is_list(value):
        return [p for i, v in enumerate(value) for p in _templated(v, [*loc, i])]
    return [(loc, value)] if isinstance(value, str) and "{{" in value else []


def _template_issues(args: OsmoPlatformsArgs) -> list[Issue]:
    used = set(args.pool.common_pod_template)
    for platform in args.pool.platforms.values():
        used |= set(platform.override_pod_template)
    return [
        Issue(
            format_path(["pod_templates", name, *loc]),
            f"{text!r} can't be used with target kubernetes: OSMO fills in `{{{{...}}}}` when "
            "it creates a pod, a Kubernetes PodTemplate can't; give the value",
        )
        for name in sorted(used & set(args.pod_templates))
        for loc, text in _templated(args.pod_templates[name], [])
    ]


_NODE_FIELDS = {
    "{{K8_CPU}}": "cpu",
    "{{K8_GPU}}": "gpu",
    "{{K8_MEMORY}}": "memory",
    "{{K8_STORAGE}}": "storage",
}


def _node_resource_issues(args: OsmoPlatformsArgs) -> list[Issue]:
    """`{{K8_*}}` of the rules a platform uses, missing from `kubernetes.node_resources`
    (OSMO reads them from the nodes; Kubernetes admission needs them written down)."""
    issues: list[Issue] = []
    for name, platform in args.pool.platforms.items():
        given = args.kubernetes.node_resources.get(name)
        for validation in [*args.pool.common_resource_validations, *platform.resource_validations]:
            for rule in _validation_rules(validation, args):
                field = _NODE_FIELDS.get(rule.right_operand.strip())
                if field is None or (given is not None and getattr(given, field) is not None):
                    continue
                issue = Issue(
                    format_path(["kubernetes", "node_resources", name, field]),
                    f"is required by resource validation {validation!r} ({rule.left_operand} "
                    f"{rule.operator} {rule.right_operand}) for target kubernetes: what one "
                    "node of the platform has (OSMO reads it from the nodes)",
                )
                if all(i.path != issue.path for i in issues):
                    issues.append(issue)
    return issues


def _validation_rules(name: str, args: OsmoPlatformsArgs) -> list[OsmoResourceRule]:
    defined = args.resource_validations.get(name)
    if defined is not None:
        return list(defined)
    return [OsmoResourceRule(**rule) for rule in builtin_resource_validations()[name]]


def _variables(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if key in USER_VARIABLES}


def _rules(
    names: list[str], path: list[Any], args: OsmoPlatformsArgs, issues: list[Issue]
) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for i, name in enumerate(names):
        for rule in _validation_rules(name, args):
            user = rule.left_operand.strip()
            if rule.operator not in _RULE_OPERATORS or not (
                user.startswith("{{USER_") and user.strip("{}") in USER_VARIABLES
            ):
                issues.append(
                    Issue(
                        format_path([*path, i]),
                        f"{name!r} has rule `{rule.left_operand} {rule.operator} "
                        f"{rule.right_operand}`, which Kubernetes admission can't check (only "
                        f"{{{{USER_*}}}} with {', '.join(_RULE_OPERATORS)})",
                    )
                )
                continue
            rules.append(
                {
                    "operator": rule.operator,
                    "left_operand": user,
                    "right_operand": rule.right_operand,
                    "assert_message": rule.assert_message,
                }
            )
    return rules


def kubernetes_args(args: OsmoPlatformsArgs, subject: str) -> PoolPlatformsArgs:
    """Our platform model of OSMO's documents; SpecError (paths in OSMO's documents) when
    something has no Kubernetes counterpart."""
    pool = args.pool
    issues: list[Issue] = _template_issues(args) + _node_resource_issues(args)
    common = _merged_spec(pool.common_pod_template, args)
    platforms: dict[str, Any] = {}
    for name, platform in pool.platforms.items():
        where = ["pool", "platforms", name]
        own = _merged_spec(platform.override_pod_template, args)
        containers = merge_pod_specs(common, own).get("containers")
        if not containers:
            issues.append(
                Issue(
                    format_path([*where, "override_pod_template"]),
                    f"{platform.override_pod_template!r} (with the pool's `common_pod_template`) "
                    "gives no container: target kubernetes needs the user container (`name`, "
                    "`image`) in a pod template of the pool or the platform, and OSMO's "
                    "built-ins default_user and default_ctrl exist only inside OSMO",
                )
            )
        platforms[name] = {
            "description": platform.description,
            "pod_template": own,
            "default_variables": _variables(platform.default_variables),
            "resource_validations": _rules(
                platform.resource_validations, [*where, "resource_validations"], args, issues
            ),
            "host_network_allowed": platform.host_network_allowed,
            "privileged_allowed": platform.privileged_allowed,
        }
        if name in args.kubernetes.node_resources:
            platforms[name]["node_resources"] = args.kubernetes.node_resources[name]
    for name in args.kubernetes.node_resources:
        if name not in pool.platforms:
            issues.append(
                Issue(
                    format_path(["kubernetes", "node_resources", name]),
                    f"{name!r} is not a platform of the pool",
                )
            )
    # A role's globs were checked against the OSMO pool; the Kubernetes pool may be named
    # otherwise (a fleet pool): then the role is for that pool by name.
    kube_pool = args.kubernetes.pool.name if args.kubernetes.pool else pool.name
    roles = [
        {
            "name": role.name,
            "description": role.description,
            "pools": glob if fnmatch.fnmatchcase(kube_pool, glob) else kube_pool,
            "groups": role.external_roles or [role.name],
        }
        for role in args.roles
        for glob in [role.pool_globs()[0][1]]
    ]
    data: dict[str, Any] = {
        "pool": args.kubernetes.pool or pool.name,
        "platforms": platforms,
        "default_platform": pool.default_platform,
        "common_pod_template": common,
        "common_default_variables": _variables(pool.common_default_variables),
        "common_resource_validations": _rules(
            pool.common_resource_validations, ["pool", "common_resource_validations"], args, issues
        ),
        "roles": roles,
        "create_namespaces": args.kubernetes.create_namespaces,
    }
    if args.kubernetes.namespaces is not None:
        data["namespaces"] = args.kubernetes.namespaces
    if issues:
        raise SpecError(subject, issues)
    return parse_spec(PoolPlatformsArgs, data, subject)


__all__ = ["kubernetes_args"]
