"""Platform pod templates for the Kubernetes target: merging partial pod specs, the
default variables as resource requests, and the checks a merged template must pass.

Pure: specs in, dicts out; problems are collected in an `IssueList` so that every one is
reported at once.
"""

from __future__ import annotations

import copy
from typing import Any, TypeGuard, cast

from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.base import Issue, format_path
from nodepools.specs.core.kube import CPU, EPHEMERAL_STORAGE, MEMORY, format_quantity
from nodepools.specs.governance.platforms import Platform, PoolPlatformsArgs, Variables
from nodepools.validation.quantity import canonical_spelling


class IssueList:
    def __init__(self) -> None:
        self.items: list[Issue] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(Issue(path, message))


# --- pod templates ---------------------------------------------------------------------


def _named_list(value: Any) -> TypeGuard[list[dict[Any, Any]]]:
    return is_list(value) and all(is_dict(i) and "name" in i for i in value)


def merge_pod_specs(base: Any, override: Any) -> Any:
    """`override` over `base`: maps merge, lists of named items merge by `name`, anything
    else is replaced by the later value."""
    if is_dict(base) and is_dict(override):
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


def gpu_resource_of(args: PoolPlatformsArgs) -> str:
    return args.pool.gpu_resource


def default_requests(
    variables: Variables, gpu_resource: str
) -> tuple[dict[str, Any], dict[str, Any]]:
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


def apply_requests(spec: dict[str, Any], requests: dict[str, Any], limits: dict[str, Any]) -> None:
    containers: list[dict[str, Any]] = spec.get("containers") or []
    for container in containers:
        resources: dict[str, Any] = container.setdefault("resources", {})
        if requests:
            own: dict[str, Any] = resources.setdefault("requests", {})
            for resource, amount in requests.items():
                own.setdefault(resource, amount)
        if limits:
            own = resources.setdefault("limits", {})
            for resource, amount in limits.items():
                own.setdefault(resource, amount)


def spell_quantities(spec: dict[str, Any]) -> None:
    """Every resource quantity of the pod spec, in place, as the API server spells it. A
    PodTemplate is a built-in object, which the Kubernetes provider records in its canonical
    form (`cpu: 1` as "1", 1000 as "1k"): spelled so here, the plan shows what `up` stores and
    a second `up` finds nothing to change."""
    owners: list[Any] = [spec]
    for kind in ("initContainers", "containers", "ephemeralContainers"):
        owners.extend(spec.get(kind) or [])
    for owner in owners:
        resources = owner.get("resources") if is_dict(owner) else None
        if not is_dict(resources):
            continue
        for group in ("requests", "limits"):
            amounts = resources.get(group)
            if is_dict(amounts):
                resources[group] = _spelled(amounts)
    overhead = spec.get("overhead")
    if is_dict(overhead):
        spec["overhead"] = _spelled(overhead)


def _spelled(amounts: dict[str, Any]) -> dict[str, Any]:
    return {name: canonical_spelling(amount) for name, amount in amounts.items()}


def merge_selector(
    target: dict[str, str], extra: dict[str, str], path: str, issues: IssueList
) -> None:
    for key, value in extra.items():
        if key in target and target[key] != value:
            issues.add(
                format_path([*path.split("."), key]) if path else key,
                f"{value!r} conflicts with {target[key]!r} from the pool or the pod template",
            )
        target[key] = value


def platform_selector(platform: Platform, where: str, issues: IssueList) -> dict[str, str]:
    """What tells this platform's pods apart: its node_selector and its template's."""
    selector = dict(platform.pod_template.get("nodeSelector") or {})
    merge_selector(selector, platform.node_selector, f"{where}.node_selector", issues)
    return dict(sorted(selector.items()))


def merged_tolerations(*groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for group in groups:
        for toleration in group:
            if toleration not in found:
                found.append(toleration)
    return found


def check_containers(spec: dict[str, Any], where: str, issues: IssueList) -> None:
    containers = spec.get("containers")
    if not is_list(containers) or not containers:
        issues.add(
            f"{where}.pod_template.containers",
            "the merged pod template has no containers (a PodTemplate needs at least one); "
            "give them in `common_pod_template` or here",
        )
        return
    for i, container in enumerate(containers):
        if not is_dict(container) or not container.get("name") or not container.get("image"):
            issues.add(
                f"{where}.pod_template.containers",
                f"container {i} of the merged template ({container!r}) needs a `name` and an "
                "`image`",
            )


def check_privileges(
    args: PoolPlatformsArgs,
    name: str,
    platform: Platform,
    merged: dict[str, Any],
    issues: IssueList,
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
            f"true can't be used on platform {name!r}, which does not allow hostNetwork pods "
            "(`host_network_allowed` is false)",
        )
    if platform.privileged_allowed:
        return
    for kind in ("initContainers", "containers"):
        containers: list[Any] = merged.get(kind) or []
        for container in containers:
            if not is_dict(container):
                continue
            if (container.get("securityContext") or dict[str, Any]()).get("privileged") is not True:
                continue
            own = [
                c.get("name")
                for c in cast("list[Any]", platform.pod_template.get(kind) or [])
                if is_dict(c)
                and (c.get("securityContext") or dict[str, Any]()).get("privileged") is True
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
                    if is_dict(c) and c.get("name") == container.get("name")
                ),
                0,
            )
            issues.add(
                f"{template}.{kind}[{index}].securityContext.privileged",
                f"true can't be used on container {container.get('name')!r}: platform {name!r} "
                "does not allow privileged containers (`privileged_allowed` is false)",
            )
