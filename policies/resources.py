"""One small view of a node pool, whichever resource declares it.

The rules reason about pools (accelerators, taints, spot, scaling bounds, labels, boot
volume); EKS, OKE, ROSA and Karpenter each spell those differently. `pool_view` reads a
resource exactly as the engine sends it to a policy pack (camelCase inputs for provider
resources, Kubernetes field names for Kubernetes objects, numbers as floats, maps and lists
possibly wrapped in pulumi_policy's unknown-checking proxies) and returns a `PoolView`, so
the rules work the same on our components' children and on hand-written resources.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from nodepools.json_values import is_mapping
from nodepools.policies.quantities import parse_quantity

# The labels, tags and accelerator names the components use, from their one definition;
# the pack reads hand-written resources by the same conventions.
from nodepools.specs.catalog.accelerators import (
    AMD_GPU,
    AWS_NEURON,
    NVIDIA_GPU,
    lookup_accelerator,
)
from nodepools.specs.core.labels import MAX_NODES_TAG, MIN_NODES_TAG, POOL_LABEL
from nodepools.specs.karpenter.instance_requirements import family_resource

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
EKS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
OKE_NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
DYNAMIC_RESOURCE = "pulumi-python:dynamic:Resource"
# ROSA machine pools are dynamic resources; this input says which OCM object they manage.
ROSA_MACHINE_POOL = "ocm:clusters_mgmt/v1:MachinePool"
# The type `nodepools.backends.rosa.machine_pool.OcmMachinePool` registers under (a dynamic resource
# subclass names its own module and type). The generic dynamic type is accepted as well,
# for a pool built directly on `pulumi.dynamic.Resource` with the OCM provider.
ROSA_MACHINE_POOL_TYPE = "pulumi-python:dynamic/ocm:MachinePool"
ROSA_RESOURCE_TYPES = (ROSA_MACHINE_POOL_TYPE, DYNAMIC_RESOURCE)
KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
KARPENTER_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"

_EKS_TAINT_EFFECTS = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}


@dataclass(frozen=True)
class Accelerator:
    """The accelerator every node of a pool carries."""

    resource: str
    # Per node; None when only the instance family is known (a Karpenter family pin, or
    # a size missing from the fallback table), which is enough to know the resource name.
    count: int | None


@dataclass(frozen=True)
class Taint:
    key: str
    value: str | None
    effect: str  # Kubernetes spelling, whatever the cloud API calls it


@dataclass(frozen=True)
class PoolView:
    """What the rules need to know about a pool, with the property paths to quote."""

    platform: str  # "eks" | "oke" | "rosa" | "karpenter"
    name: str
    instance_types: tuple[str, ...]
    accelerators: tuple[Accelerator, ...]
    taints: tuple[Taint, ...]
    spot: bool
    min_nodes: float | None
    max_nodes: float | None
    max_price: float | None
    labels: Mapping[str, str]
    boot_volume_gb: float | None
    bare_metal: bool
    # Karpenter's `spec.limits`, as numbers; None for the pool types that have none.
    limits: Mapping[str, float] | None = None
    # What the pool may buy, when it names several (Karpenter); () for spot-or-not pools.
    capacity_types: tuple[str, ...] = ()
    # An OKE flexible shape's size per node, which prices it.
    ocpus: float | None = None
    memory_gb: float | None = None
    # A static Karpenter NodePool's fixed node count.
    replicas: float | None = None
    paths: Mapping[str, str] = field(default_factory=dict[str, str])

    def path(self, attribute: str) -> str:
        return self.paths.get(attribute, attribute)


def pool_view(resource_type: str, props: Mapping[str, Any], name: str) -> PoolView | None:
    """The pool `props` declare, or None when the resource is not a node pool."""
    if resource_type == EKS_NODE_GROUP:
        return _eks_pool(props, name)
    if resource_type == OKE_NODE_POOL:
        return _oke_pool(props, name)
    if is_rosa_machine_pool(resource_type, props):
        return _rosa_pool(props, name)
    if resource_type == KARPENTER_NODE_POOL:
        return _karpenter_pool(props, name)
    return None


def is_rosa_machine_pool(resource_type: str, props: Mapping[str, Any]) -> bool:
    return resource_type in ROSA_RESOURCE_TYPES and props.get("resource_type") == ROSA_MACHINE_POOL


# --- accelerator catalog -------------------------------------------------------------------


_OCI_GPU_SHAPE = re.compile(r"^(?:VM|BM)\.GPU")


def _accelerator_for(shape: str) -> Accelerator | None:
    """The accelerator of an EC2 instance type or OCI shape, or None for a plain CPU shape.

    The catalog gives the count; a type it doesn't list (a new size or generation) is still
    recognised as an accelerator by its family, with an unknown count, so that it can't
    slip past the taint rule."""
    found = lookup_accelerator(shape)
    if found is not None:
        return Accelerator(found.resource, found.count)
    if _OCI_GPU_SHAPE.match(shape):
        return Accelerator(AMD_GPU if ".MI300X." in shape else NVIDIA_GPU, None)
    resource = _ec2_family_resource(shape.split(".", 1)[0])
    return None if resource is None else Accelerator(resource, None)


# Karpenter categories the pack pins to one resource. `g` counts as NVIDIA here (only g4ad
# is AMD's, and a pool pinned to it by family is recognised as AMD).
_EC2_CATEGORY_RESOURCES = {
    "g": NVIDIA_GPU,
    "gr": NVIDIA_GPU,
    "p": NVIDIA_GPU,
    "trn": AWS_NEURON,
    "inf": AWS_NEURON,
}


def _ec2_family_resource(family: str) -> str | None:
    resources = family_resource(family)
    return next(iter(resources)) if resources and len(resources) == 1 else None


# --- reading engine-shaped properties ------------------------------------------------------


def mapping(value: Any) -> Mapping[str, Any]:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else {}


def items(value: Any) -> Sequence[Any]:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return cast("Sequence[Any]", value)
    return ()


def number(value: Any) -> float | None:
    """A float for JSON numbers and numeric strings (OKE types some sizes as strings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def config_number(args: Any, key: str, default: float) -> float:
    """A numeric threshold from the policy's config (as the engine sends it), or `default`."""
    value = number(args.get_config().get(key))
    return default if value is None else value


def string_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in mapping(value).items()}


def fmt(value: float | None) -> str:
    """Numbers as people write them: 3, not 3.0 (the engine turns every int into a float)."""
    if value is None:
        return "unset"
    return str(int(value)) if float(value).is_integer() else str(value)


def _kubernetes_taints(
    value: Any, *, effects: Mapping[str, str] | None = None
) -> tuple[Taint, ...]:
    taints: list[Taint] = []
    for raw in items(value):
        raw = mapping(raw)
        key = raw.get("key")
        if not isinstance(key, str):
            continue
        effect = str(raw.get("effect", ""))
        if effects is not None:
            effect = effects.get(effect, effect)
        taint_value = raw.get("value")
        taints.append(Taint(key, None if taint_value is None else str(taint_value), effect))
    return tuple(taints)


def _accelerators(instance_types: Sequence[str]) -> tuple[Accelerator, ...]:
    found: dict[str, Accelerator] = {}
    for instance_type in instance_types:
        accelerator = _accelerator_for(instance_type)
        if accelerator is not None:
            found.setdefault(accelerator.resource, accelerator)
    return tuple(found.values())


# --- EKS -----------------------------------------------------------------------------------


def _eks_pool(props: Mapping[str, Any], name: str) -> PoolView:
    labels = string_map(props.get("labels"))
    instance_types = tuple(str(t) for t in items(props.get("instanceTypes")))
    scaling = mapping(props.get("scalingConfig"))
    return PoolView(
        platform="eks",
        name=labels.get(POOL_LABEL) or str(props.get("nodeGroupName") or name),
        instance_types=instance_types,
        accelerators=_accelerators(instance_types),
        taints=_kubernetes_taints(props.get("taints"), effects=_EKS_TAINT_EFFECTS),
        spot=props.get("capacityType") == "SPOT",
        capacity_types=("capacity-block",) if props.get("capacityType") == "CAPACITY_BLOCK" else (),
        min_nodes=number(scaling.get("minSize")),
        max_nodes=number(scaling.get("maxSize")),
        # EKS managed node groups refuse a spot max price (the components reject it too).
        max_price=None,
        labels=labels,
        # With a launch template the disk lives on the template, which this view can't see.
        boot_volume_gb=number(props.get("diskSize")),
        bare_metal=False,
        paths={
            "max_nodes": "scalingConfig.maxSize",
            "labels": "labels",
            "taints": "taints",
            "boot_volume_gb": "diskSize",
        },
    )


# --- OKE -----------------------------------------------------------------------------------

_REGISTER_WITH_TAINTS = re.compile(r"--register-with-taints[= ]([^\s\"']+)")


def _decode_user_data(encoded: str) -> str:
    # OCI wants base64; a hand-written pool may still pass the script as it is.
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return encoded


def taints_from_kubelet_args(script: str) -> tuple[Taint, ...]:
    """Taints registered by kubelet `--register-with-taints=key=value:Effect,key2:Effect`."""
    taints: list[Taint] = []
    for spec in _REGISTER_WITH_TAINTS.findall(script):
        for entry in spec.split(","):
            key_value, _, effect = entry.rpartition(":")
            key, has_value, value = key_value.partition("=")
            if key:
                taints.append(Taint(key, value if has_value else None, effect))
    return tuple(taints)


def _oke_pool(props: Mapping[str, Any], name: str) -> PoolView:
    labels = {
        str(entry.get("key")): str(entry.get("value"))
        for entry in map(mapping, items(props.get("initialNodeLabels")))
        if entry.get("key") is not None
    }
    shape = str(props.get("nodeShape") or "")
    details = mapping(props.get("nodeConfigDetails"))
    size = number(details.get("size"))
    tags = mapping(props.get("freeformTags"))
    user_data = mapping(props.get("nodeMetadata")).get("user_data")
    placements = [mapping(p) for p in items(details.get("placementConfigs"))]
    min_tag, max_tag = number(tags.get(MIN_NODES_TAG)), number(tags.get(MAX_NODES_TAG))
    return PoolView(
        platform="oke",
        name=labels.get(POOL_LABEL) or str(props.get("name") or name),
        instance_types=(shape,) if shape else (),
        accelerators=_accelerators([shape] if shape else []),
        taints=taints_from_kubelet_args(_decode_user_data(user_data))
        if isinstance(user_data, str)
        else (),
        spot=any(p.get("preemptibleNodeConfig") for p in placements),
        min_nodes=min_tag if min_tag is not None else size,
        max_nodes=max_tag if max_tag is not None else size,
        max_price=None,  # OCI preemptible capacity has no price knob
        labels=labels,
        boot_volume_gb=number(mapping(props.get("nodeSourceDetails")).get("bootVolumeSizeInGbs")),
        bare_metal=shape.startswith("BM."),
        ocpus=number(mapping(props.get("nodeShapeConfig")).get("ocpus")),
        memory_gb=number(mapping(props.get("nodeShapeConfig")).get("memoryInGbs")),
        paths={
            "max_nodes": f"freeformTags.{MAX_NODES_TAG}"
            if max_tag is not None
            else "nodeConfigDetails.size",
            "labels": "initialNodeLabels",
            "taints": "nodeMetadata.user_data (--register-with-taints)",
            "boot_volume_gb": "nodeSourceDetails.bootVolumeSizeInGbs",
        },
    )


# --- ROSA ----------------------------------------------------------------------------------


def _rosa_pool(props: Mapping[str, Any], name: str) -> PoolView:
    body = mapping(props.get("body"))
    labels = string_map(body.get("labels"))
    instance_type = str(body.get("instance_type") or "")
    autoscaling = mapping(body.get("autoscaling"))
    replicas = number(body.get("replicas"))
    aws = mapping(body.get("aws"))
    spot_options = aws.get("spot_market_options")
    autoscaled = bool(autoscaling)
    return PoolView(
        platform="rosa",
        name=labels.get(POOL_LABEL) or str(body.get("id") or name),
        instance_types=(instance_type,) if instance_type else (),
        accelerators=_accelerators([instance_type] if instance_type else []),
        taints=_kubernetes_taints(body.get("taints")),
        spot=isinstance(spot_options, Mapping),
        min_nodes=number(autoscaling.get("min_replicas")) if autoscaled else replicas,
        max_nodes=number(autoscaling.get("max_replicas")) if autoscaled else replicas,
        max_price=number(mapping(spot_options).get("max_price")),
        labels=labels,
        boot_volume_gb=number(mapping(mapping(body.get("root_volume")).get("aws")).get("size")),
        bare_metal=False,
        paths={
            "max_nodes": "body.autoscaling.max_replicas" if autoscaled else "body.replicas",
            "labels": "body.labels",
            "taints": "body.taints",
            "max_price": "body.aws.spot_market_options.max_price",
            "boot_volume_gb": "body.root_volume.aws.size",
        },
    )


# --- Karpenter -----------------------------------------------------------------------------

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
        return list(_accelerators(values))
    if key == _FAMILY_LABEL:
        resources = [_ec2_family_resource(family) for family in values]
    elif key == _CATEGORY_LABEL:
        resources = [_EC2_CATEGORY_RESOURCES.get(category) for category in values]
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


def _karpenter_pool(props: Mapping[str, Any], name: str) -> PoolView:
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
        taints=_kubernetes_taints(template_spec.get("taints")),
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
