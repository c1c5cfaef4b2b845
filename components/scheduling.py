"""SchedulingInfo: what a pod needs to land on one pool and use its accelerators."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from nodepools.specs.catalog.accelerators import Accelerator
from nodepools.specs.core.labels import POOL_LABEL
from nodepools.specs.core.taints import Taint


def toleration_for(taint: Taint) -> dict[str, str]:
    """The toleration that matches exactly this taint."""
    if taint.value is None:
        return {"key": taint.key, "operator": "Exists", "effect": taint.effect}
    return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}


@dataclass(frozen=True)
class SchedulingInfo:
    """nodeSelector + tolerations + accelerator resource limits, in pod-spec terms."""

    node_selector: Mapping[str, str]
    tolerations: tuple[Mapping[str, str], ...] = ()
    limits: Mapping[str, int] = field(default_factory=dict[str, int])

    @classmethod
    def for_pool(
        cls,
        pool_name: str,
        taints: Iterable[Taint],
        accelerator: Accelerator | None,
        *,
        extra_selector: Mapping[str, str] | None = None,
        accelerators_per_pod: int | None = None,
        identity_label: bool = True,
        extra_limits: Mapping[str, int] | None = None,
    ) -> SchedulingInfo:
        """Select the pool by its identity label, tolerate its taints, request its accelerators.

        By default a pod asks for every accelerator of one node (`accelerator.count`);
        `extra_limits` adds other node resources it asks for (a pool's EFA interfaces).
        """
        selector = {**({POOL_LABEL: pool_name} if identity_label else {}), **(extra_selector or {})}
        tolerations = tuple(toleration_for(t) for t in sorted(taints, key=lambda t: t.sort_key))
        limits: dict[str, int] = {}
        if accelerator is not None:
            limits[accelerator.resource] = (
                accelerator.count if accelerators_per_pod is None else accelerators_per_pod
            )
        limits.update(extra_limits or {})
        return cls(dict(sorted(selector.items())), tolerations, limits)

    @classmethod
    def from_dict(cls, info: Mapping[str, Any]) -> SchedulingInfo:
        """The typed form of a `scheduling_info` output (or of `to_dict()`), e.g. one read
        from another stack: `SchedulingInfo.from_dict(ref.get_output("gpu"))` inside an
        `apply`. Unknown keys are an error, so a misspelt key is not silently dropped."""
        unknown = set(info) - {"nodeSelector", "tolerations", "resources"}
        if unknown:
            raise ValueError(
                f"{sorted(unknown)} are not keys of a scheduling info (`nodeSelector`, "
                "`tolerations`, `resources`)"
            )
        resources: Mapping[str, Any] = info.get("resources") or {}
        raw_limits: Mapping[str, Any] = resources.get("limits") or {}
        limits = {key: int(value) for key, value in raw_limits.items()}
        return cls(
            dict(info.get("nodeSelector") or {}),
            tuple(dict(t) for t in info.get("tolerations") or ()),
            limits,
        )

    def to_dict(self) -> dict[str, Any]:
        """Pod-spec keys: `nodeSelector`, `tolerations`, `resources.limits`."""
        info: dict[str, Any] = {
            "nodeSelector": dict(self.node_selector),
            "tolerations": [dict(t) for t in self.tolerations],
        }
        if self.limits:
            info["resources"] = {"limits": dict(self.limits)}
        return info

    def to_yaml(self) -> str:
        """`to_dict()` as block YAML (what PyYAML's safe dump writes)."""
        from nodepools import block_yaml

        return block_yaml.dump(self.to_dict())

    def merge_into(
        self, pod_spec: Mapping[str, Any], container: str | None = None
    ) -> dict[str, Any]:
        """A copy of `pod_spec` that also schedules onto this pool.

        The node selector is merged (a conflicting value is an error, not silently
        overwritten), tolerations are appended unless already present, and the
        accelerator limits are set on one container, named by `container`; it may be left
        out only when the pod has a single container. (Every container asking for them would
        multiply the pod's request, and in real pods the first container is often a
        sidecar, so with several containers and no name this is an error listing them.)
        A container that already sets a limit for the resource keeps its own value.
        """
        spec = copy.deepcopy(dict(pod_spec))
        selector = dict(spec.get("nodeSelector") or {})
        for key, value in self.node_selector.items():
            if key in selector and selector[key] != value:
                raise ValueError(
                    f"`nodeSelector.{key}` is {selector[key]!r} in the pod spec, but the pool "
                    f"needs {value!r}"
                )
            selector[key] = value
        spec["nodeSelector"] = dict(sorted(selector.items()))
        tolerations = list(spec.get("tolerations") or [])
        for toleration in self.tolerations:
            if dict(toleration) not in tolerations:
                tolerations.append(dict(toleration))
        spec["tolerations"] = tolerations
        if self.limits:
            target = _target_container(spec.get("containers") or [], container)
            resources: dict[str, Any] = target.get("resources") or {}
            limits: dict[str, Any] = dict(resources.get("limits") or {})
            requests: Mapping[str, Any] = resources.get("requests") or {}
            for resource, count in self.limits.items():
                # Extended resources need requests equal to limits: an existing request
                # is the pod's own answer, so the limit follows it.
                limits.setdefault(resource, requests.get(resource, count))
            target["resources"] = {**resources, "limits": limits}
        return spec


def _target_container(containers: list[dict[str, Any]], name: str | None) -> dict[str, Any]:
    """The container that requests the accelerators: `name`, or the only container."""
    names = [c.get("name") for c in containers]
    if not containers:
        raise ValueError(
            "`containers` is empty: the pod spec has no container to request the accelerators on"
        )
    if name is None:
        if len(containers) > 1:
            raise ValueError(
                f"`containers` holds {len(containers)} containers ({', '.join(map(repr, names))}); "
                "name the one that uses the accelerators: merge_into(pod_spec, container=...)"
            )
        return containers[0]
    for candidate in containers:
        if candidate.get("name") == name:
            return candidate
    raise ValueError(f"`container` {name!r} is not in the pod spec (its containers: {names})")
