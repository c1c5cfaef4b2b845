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
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from nodepools.governance.manifests import Rendered
from nodepools.governance.platform_policies import (
    compile_emitted,
    platform_validations,
    policy_objects,
    selects,
    user_resource,
)
from nodepools.governance.platform_templates import (
    IssueList,
    apply_requests,
    check_containers,
    check_privileges,
    default_requests,
    gpu_resource_of,
    merge_pod_specs,
    merge_selector,
    merged_tolerations,
    platform_selector,
    spell_quantities,
)
from nodepools.scheduling import toleration_for
from nodepools.specs.core.base import SpecError, format_path
from nodepools.specs.core.kube import format_quantity, kube_name
from nodepools.specs.core.labels import DEFAULT_PLATFORM_ANNOTATION, PLATFORM_LABEL
from nodepools.specs.governance.platforms import PoolPlatformsArgs

__all__ = ["PlatformsPlan", "merge_pod_specs", "render_platforms"]

RBAC_API = "rbac.authorization.k8s.io/v1"

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


@dataclass(frozen=True)
class PlatformsPlan:
    objects: list[Rendered]
    platforms: list[dict[str, Any]]  # per platform, for outputs and the plan
    roles: list[dict[str, Any]]


# --- everything --------------------------------------------------------------------------


def render_platforms(name: str, args: PoolPlatformsArgs) -> PlatformsPlan:
    """All objects of a PoolPlatforms in a stable order; raises SpecError listing every
    problem (with its path) first."""
    issues = IssueList()
    issues.items += args.consistency_issues()
    pool_kube = kube_name(args.pool.name)
    namespaces = args.namespace_names
    gpu_resource = gpu_resource_of(args)
    pool_tolerations = [toleration_for(taint) for taint in args.pool.taints]
    names = sorted(args.platforms, key=kube_name)
    selectors = {
        platform_name: platform_selector(
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
        merge_selector(selector, dict(args.pool.node_labels), "", issues)
        merge_selector(selector, platform.node_selector, f"{where}.node_selector", issues)
        if selector:
            merged["nodeSelector"] = dict(sorted(selector.items()))
        tolerations = merged_tolerations(
            list(merged.get("tolerations") or []),
            pool_tolerations,
            [t.manifest() for t in platform.tolerations],
        )
        if tolerations:
            merged["tolerations"] = tolerations
        check_containers(merged, where, issues)
        check_privileges(args, platform_name, platform, merged, issues)
        variables = args.common_default_variables.merged(platform.default_variables)
        requests, limits = default_requests(variables, gpu_resource)
        apply_requests(merged, requests, limits)
        spell_quantities(merged)
        validations = platform_validations(platform_name, platform, args, issues)

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
                match = selects(own_selector)
                if is_default and others:
                    match = f"{match} || ({' && '.join(f'!{selects(o)}' for o in others)})"
            elif others:
                match = " && ".join(f"!{selects(o)}" for o in others)
            else:
                match = None
            policy_name = f"{pool_kube}-{platform_kube}"
            objects += policy_objects(
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
                    key: format_quantity(Fraction(value), user_resource(key, gpu_resource))
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
        compile_emitted(objects, issues)
    if issues.items:
        raise SpecError(f"PoolPlatforms {name!r}", issues.items)
    return PlatformsPlan(objects, platforms_out, roles_out)
