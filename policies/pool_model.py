"""A node pool as the rules see it (`PoolView`), and the parts it is made of.

Accelerators are recognised from an instance type or shape by the catalog the components
use, so the pack and the components never disagree on what a GPU instance is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nodepools.policies.engine_values import items, mapping
from nodepools.specs.catalog.accelerators import (
    AMD_GPU,
    AWS_NEURON,
    NVIDIA_GPU,
    lookup_accelerator,
)
from nodepools.specs.karpenter.instance_requirements import family_resource


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


_OCI_GPU_SHAPE = re.compile(r"^(?:VM|BM)\.GPU")


def accelerator_for(shape: str) -> Accelerator | None:
    """The accelerator of an EC2 instance type or OCI shape, or None for a plain CPU shape.

    The catalog gives the count; a type it doesn't list (a new size or generation) is still
    recognised as an accelerator by its family, with an unknown count, so that it can't
    slip past the taint rule."""
    found = lookup_accelerator(shape)
    if found is not None:
        return Accelerator(found.resource, found.count)
    if _OCI_GPU_SHAPE.match(shape):
        return Accelerator(AMD_GPU if ".MI300X." in shape else NVIDIA_GPU, None)
    resource = ec2_family_resource(shape.split(".", 1)[0])
    return None if resource is None else Accelerator(resource, None)


# Karpenter categories the pack pins to one resource. `g` counts as NVIDIA here (only g4ad
# is AMD's, and a pool pinned to it by family is recognised as AMD).
EC2_CATEGORY_RESOURCES = {
    "g": NVIDIA_GPU,
    "gr": NVIDIA_GPU,
    "p": NVIDIA_GPU,
    "trn": AWS_NEURON,
    "inf": AWS_NEURON,
}


def ec2_family_resource(family: str) -> str | None:
    resources = family_resource(family)
    return next(iter(resources)) if resources and len(resources) == 1 else None


def kubernetes_taints(value: Any, *, effects: Mapping[str, str] | None = None) -> tuple[Taint, ...]:
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


def accelerators(instance_types: Sequence[str]) -> tuple[Accelerator, ...]:
    found: dict[str, Accelerator] = {}
    for instance_type in instance_types:
        accelerator = accelerator_for(instance_type)
        if accelerator is not None:
            found.setdefault(accelerator.resource, accelerator)
    return tuple(found.values())
