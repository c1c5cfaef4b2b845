"""The pod spec inside the workload objects the pack inspects (Deployments, PodTemplates)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nodepools.policies.engine_values import items, mapping, string_map
from nodepools.policies.quantities import parse_quantity
from nodepools.specs.core.labels import POOL_LABEL

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
POD_TEMPLATE = "kubernetes:core/v1:PodTemplate"


@dataclass(frozen=True)
class PodSpecView:
    spec: Mapping[str, Any]
    path: str  # where the pod spec sits in the object, for messages

    @property
    def node_selector(self) -> dict[str, str]:
        return string_map(self.spec.get("nodeSelector"))

    @property
    def target_pool(self) -> str | None:
        return self.node_selector.get(POOL_LABEL)

    def containers(self) -> list[tuple[str, Mapping[str, Any]]]:
        """(path, container) for every container and init container."""
        found: list[tuple[str, Mapping[str, Any]]] = []
        for kind in ("initContainers", "containers"):
            for index, container in enumerate(items(self.spec.get(kind))):
                found.append((f"{self.path}.{kind}[{index}]", mapping(container)))
        return found

    def requested(self, resource: str) -> float:
        """How many of `resource` the regular containers ask for in their limits."""
        total = 0.0
        for container in items(self.spec.get("containers")):
            limits = mapping(mapping(mapping(container).get("resources")).get("limits"))
            total += parse_quantity(limits.get(resource)) or 0.0
        return total


def pod_spec(resource_type: str, props: Mapping[str, Any]) -> PodSpecView | None:
    if resource_type == DEPLOYMENT:
        template = mapping(mapping(props.get("spec")).get("template"))
        return PodSpecView(mapping(template.get("spec")), "spec.template.spec")
    if resource_type == POD_TEMPLATE:
        template = mapping(props.get("template"))
        return PodSpecView(mapping(template.get("spec")), "template.spec")
    return None
