"""Karpenter NodePools read into a `PoolView`.

A NodePool names no instance type; its requirements constrain them. The accelerator a pool
can launch is read from those requirements (instance types, families, categories, GPU and
accelerator counts, names and manufacturers), the way `nodepools.specs.karpenter` reads the
component's own requirements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nodepools.json_values import is_mapping
from nodepools.policies.engine_values import items, mapping, number, string_map
from nodepools.policies.pool_model import (
    EC2_CATEGORY_RESOURCES,
    Accelerator,
    PoolView,
    accelerators,
    ec2_family_resource,
    kubernetes_taints,
)
from nodepools.policies.quantities import parse_quantity
from nodepools.specs.catalog.accelerators import AMD_GPU, AWS_NEURON, NVIDIA_GPU
from nodepools.specs.core.labels import POOL_LABEL

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
_FAMILY_LABEL = "karpenter.k8s.aws/instance-family"
_CATEGORY_LABEL = "karpenter.k8s.aws/instance-category"
_GPU_COUNT_LABEL = "karpenter.k8s.aws/instance-gpu-count"
_GPU_MANUFACTURER_LABEL = "karpenter.k8s.aws/instance-gpu-manufacturer"
_GPU_NAME_LABEL = "karpenter.k8s.aws/instance-gpu-name"
_ACCELERATOR_COUNT_LABEL = "karpenter.k8s.aws/instance-accelerator-count"
_ACCELERATOR_MANUFACTURER_LABEL = "karpenter.k8s.aws/instance-accelerator-manufacturer"
_ACCELERATOR_NAME_LABEL = "karpenter.k8s.aws/instance-accelerator-name"
_GPU_MANUFACTURER_RESOURCES = {"nvidia": NVIDIA_GPU, "amd": AMD_GPU}


@dataclass(frozen=True)
class _Requirement:
    key: str
    operator: str
    values: tuple[str, ...]


def _requirements(spec: Mapping[str, Any]) -> list[_Requirement]:
    return [
        _Requirement(
            str(r.get("key")),
            str(r.get("operator")),
            tuple(str(v) for v in items(r.get("values"))),
        )
        for r in map(mapping, items(spec.get("requirements")))
    ]


def _allows_positive_count(requirement: _Requirement) -> bool:
    """Whether a count requirement (`Gt 0`, `In [1, 8]`, `Exists`) admits instances with some."""
    if requirement.operator == "Exists":
        return True
    counts = [number(v) for v in requirement.values]
    if requirement.operator == "In":
        return any(c is not None and c > 0 for c in counts)
    if requirement.operator == "Gt":
        return any(c is not None and c >= 0 for c in counts)
    return False


def _pinned_accelerators(requirement: _Requirement, gpu_vendor: str) -> list[Accelerator]:
    """The accelerators one requirement restricts a NodePool to (none if it doesn't)."""
    key = requirement.key
    values = requirement.values if requirement.operator == "In" else ()
    if key == INSTANCE_TYPE_LABEL:
        return list(accelerators(values))
    if key == _FAMILY_LABEL:
        resources = [ec2_family_resource(family) for family in values]
    elif key == _CATEGORY_LABEL:
        resources = [EC2_CATEGORY_RESOURCES.get(category) for category in values]
    elif key == _GPU_MANUFACTURER_LABEL:
        resources = [_GPU_MANUFACTURER_RESOURCES.get(vendor.lower()) for vendor in values]
    elif key == _GPU_NAME_LABEL:
        resources = [gpu_vendor] if requirement.operator in ("In", "Exists") else []
    elif key == _GPU_COUNT_LABEL:
        resources = [gpu_vendor] if _allows_positive_count(requirement) else []
    elif key == _ACCELERATOR_COUNT_LABEL:
        resources = [AWS_NEURON] if _allows_positive_count(requirement) else []
    elif key == _ACCELERATOR_MANUFACTURER_LABEL:
        resources = [AWS_NEURON for vendor in values if vendor.lower() == "aws"]
    elif key == _ACCELERATOR_NAME_LABEL:
        resources = [
            AWS_NEURON for name in values if name.lower().startswith(("inferentia", "trainium"))
        ]
    else:
        resources = []
    return [Accelerator(resource, None) for resource in resources if resource is not None]


def _karpenter_accelerators(requirements: Sequence[_Requirement]) -> tuple[Accelerator, ...]:
    """The accelerator resources a NodePool's requirements pin it to (none when unpinned)."""
    # A GPU count or name says "some GPU"; the manufacturer requirement, if any, says whose.
    gpu_vendor = next(
        (
            _GPU_MANUFACTURER_RESOURCES[v.lower()]
            for r in requirements
            if r.key == _GPU_MANUFACTURER_LABEL and r.operator == "In"
            for v in r.values
            if v.lower() in _GPU_MANUFACTURER_RESOURCES
        ),
        NVIDIA_GPU,
    )
    found: dict[str, Accelerator] = {}
    for requirement in requirements:
        for accelerator in _pinned_accelerators(requirement, gpu_vendor):
            # Keep a known per-node count (from an instance-type pin) over an unknown one.
            current = found.get(accelerator.resource)
            if current is None or current.count is None:
                found[accelerator.resource] = accelerator
    return tuple(found.values())


def karpenter_pool(props: Mapping[str, Any], name: str) -> PoolView:
    spec = mapping(props.get("spec"))
    template = mapping(spec.get("template"))
    template_spec = mapping(template.get("spec"))
    labels = string_map(mapping(template.get("metadata")).get("labels"))
    requirements = _requirements(template_spec)
    instance_types = tuple(
        v
        for r in requirements
        if r.key == INSTANCE_TYPE_LABEL and r.operator == "In"
        for v in r.values
    )
    capacity_types = {
        v
        for r in requirements
        if r.key == CAPACITY_TYPE_LABEL and r.operator == "In"
        for v in r.values
    }
    raw_limits = spec.get("limits")
    limits = None
    if is_mapping(raw_limits):
        limits = {str(k): q for k, v in raw_limits.items() if (q := parse_quantity(v)) is not None}
    # Karpenter bounds node count only through `limits.nodes` (or a fixed alpha `replicas`).
    max_nodes = (limits or {}).get("nodes", number(spec.get("replicas")))
    return PoolView(
        platform="karpenter",
        name=labels.get(POOL_LABEL) or str(mapping(props.get("metadata")).get("name") or name),
        instance_types=instance_types,
        accelerators=_karpenter_accelerators(requirements),
        taints=kubernetes_taints(template_spec.get("taints")),
        spot="spot" in capacity_types,
        min_nodes=None,
        max_nodes=max_nodes,
        max_price=None,
        labels=labels,
        boot_volume_gb=None,
        bare_metal=False,
        limits=limits,
        capacity_types=tuple(sorted(capacity_types)),
        replicas=number(spec.get("replicas")),
        paths={
            "max_nodes": "spec.limits.nodes" if "nodes" in (limits or {}) else "spec.replicas",
            "labels": "spec.template.metadata.labels",
            "taints": "spec.template.spec.taints",
            "limits": "spec.limits",
        },
    )
