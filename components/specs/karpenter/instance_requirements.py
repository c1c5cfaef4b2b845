"""The instance requirements of a Karpenter pool, and what each of their values stands for:
the accelerator resources of EC2 types, families, categories and GPU names, the
architectures of families, and the fractional-GPU types, all from the instance catalog.

Read by the accelerator profile (`accelerators`), the per-instance counts
(`accelerator_counts`) and the checks of requirements no instance meets (`checks`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Protocol

from nodepools.specs.catalog.accelerators import (
    AMD_GPU,
    AWS_NEURON,
    CATALOG,
    NVIDIA_GPU,
    lookup_accelerator,
)
from nodepools.specs.catalog.ec2_families import catalog_families
from nodepools.specs.catalog.instance_types import catalog_names, instance_type


class InstanceRequirements(Protocol):
    """The instance requirements of a Karpenter pool's args that decide its accelerator.

    A protocol rather than the args model itself, so that the modules reading it need
    nothing from `args`, which imports some of them."""

    @property
    def instance_types(self) -> Any: ...
    @property
    def instance_families(self) -> Any: ...
    @property
    def instance_categories(self) -> Any: ...
    @property
    def gpu_manufacturers(self) -> Any: ...
    @property
    def gpu_names(self) -> Any: ...
    @property
    def architectures(self) -> Any: ...
    @property
    def gpu_count(self) -> Any: ...
    @property
    def neuron_count(self) -> Any: ...
    @property
    def neuron_names(self) -> Any: ...


GPU_MAKERS = {"nvidia": NVIDIA_GPU, "amd": AMD_GPU}
ANY_GPU = frozenset({NVIDIA_GPU, AMD_GPU})
_FAMILY = re.compile(r"^(?P<category>[a-z]+)\d")
# Karpenter's instance categories that hold only accelerator families. `g` has both
# makers (g4ad is AMD's), so it leaves the maker open.
CATEGORY_RESOURCES: dict[str, frozenset[str]] = {
    "p": frozenset({NVIDIA_GPU}),
    "g": ANY_GPU,
    "gr": frozenset({NVIDIA_GPU}),
    "trn": frozenset({AWS_NEURON}),
    "inf": frozenset({AWS_NEURON}),
}
_FAMILY_RESOURCES: dict[str, str] = {
    **{
        shape.split(".", 1)[0]: accelerator.resource
        for shape, accelerator in CATALOG.items()
        if not shape.startswith(("VM.", "BM."))
    },
    "g4ad": AMD_GPU,
}


def family_resource(family: str) -> frozenset[str] | None:
    """The accelerator resources instances of an EC2 family carry, or None (CPU only)."""
    if family in _FAMILY_RESOURCES:
        return frozenset({_FAMILY_RESOURCES[family]})
    found = _FAMILY.match(family)
    return CATEGORY_RESOURCES.get(found["category"]) if found else None


def known_family_resource(family: str) -> frozenset[str] | None:
    """`family_resource` of a family the catalog knows. One it lacks (warned about,
    `catalog.ec2_families`) carries its category's accelerator only where the category
    has one kind (`p7`: NVIDIA), as the policy pack reads a rendered NodePool; in `g`,
    of both makers, it is taken as CPU-only: a typo'd `g55` makes no NVIDIA pool."""
    resources = family_resource(family)
    if family in catalog_families() or resources is None or len(resources) == 1:
        return resources
    return None


def type_resources(instance_type: str) -> frozenset[str] | None:
    accelerator = lookup_accelerator(instance_type)
    if accelerator is not None:
        return frozenset({accelerator.resource})
    return known_family_resource(instance_type.split(".", 1)[0])


# The instance requirements, and the accelerator resources each of their values carries.
INSTANCE_FIELDS: tuple[tuple[str, Any], ...] = (
    ("instance_types", type_resources),
    ("instance_families", known_family_resource),
    ("instance_categories", CATEGORY_RESOURCES.get),
)


_MEMORY_OR_PROFILE = re.compile(r"-(\d+gb|\d+q)$")
# Models the catalog names differently from Karpenter's label (scripts/instance_catalog.py).
_RENAMED = {"rtx-pro-6000": "rtx-pro-server-6000"}


def gpu_label_name(model: str) -> str:
    """Karpenter's `instance-gpu-name` for a catalog model: lowercase, without the memory
    size or vGPU profile the catalog adds (`A100-40GB` -> `a100`, `L4-3Q` -> `l4`)."""
    name = _MEMORY_OR_PROFILE.sub("", model.lower())
    return _RENAMED.get(name, name)


# Karpenter's `instance-gpu-name` values by maker, from the catalog.
GPU_NAME_MAKERS: dict[str, str] = {
    gpu_label_name(accelerator.model): maker
    for accelerator in CATALOG.values()
    if accelerator.model
    for maker, resource in GPU_MAKERS.items()
    if accelerator.resource == resource
}


def name_resources(name: str) -> frozenset[str]:
    """The GPU resource instances whose `instance-gpu-name` is `name` carry: its maker's,
    or either GPU for a name the catalog does not know."""
    maker = GPU_NAME_MAKERS.get(name)
    return ANY_GPU if maker is None else frozenset({GPU_MAKERS[maker]})


def family_of(instance_type: str) -> str:
    return instance_type.split(".", 1)[0]


def category_of(family: str) -> str | None:
    found = _FAMILY.match(family)
    return found["category"] if found else None


# `kubernetes.io/arch` (what `architectures` lists) of the catalog's EC2 architectures.
_KUBERNETES_ARCH = {"x86_64": "amd64", "arm64": "arm64"}


def _is_ec2(name: str) -> bool:
    return not name.startswith(("VM.", "BM."))  # OCI shapes are the catalog's other names


def type_arches(name: str) -> frozenset[str] | None:
    """The `kubernetes.io/arch` of a catalog EC2 type, or None when the catalog lacks it."""
    info = instance_type(name)
    if info is None or info.cloud != "aws":
        return None
    return frozenset({_KUBERNETES_ARCH[info.arch]})


@cache
def _family_arch_table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for name in catalog_names():
        if _is_ec2(name) and (arches := type_arches(name)) is not None:
            table.setdefault(family_of(name), set()).update(arches)
    return {family: frozenset(arches) for family, arches in table.items()}


def family_arches(family: str) -> frozenset[str] | None:
    """The `kubernetes.io/arch` values of an EC2 family's catalog types (None: unknown)."""
    return _family_arch_table().get(family)


# Fractional-GPU EC2 types (g6f, gr6f): the catalog names their model with its NVIDIA vGPU
# profile (`L4-3Q`, scripts/instance_catalog.py AWS_FRACTIONAL).
_VGPU_PROFILE = re.compile(r"-\d+q$")


@cache
def fractional_gpu_types() -> dict[str, str]:
    """Fractional-GPU type -> its catalog model."""
    return {
        name: accelerator.model
        for name, accelerator in CATALOG.items()
        if _is_ec2(name) and _VGPU_PROFILE.search(accelerator.model.lower())
    }


@cache
def fractional_gpu_families() -> frozenset[str]:
    """Families whose every catalog type has a fractional GPU."""
    fractional = fractional_gpu_types()
    families = {family_of(name) for name in fractional}
    return frozenset(
        family
        for family in families
        if all(
            name in fractional
            for name in catalog_names()
            if _is_ec2(name) and family_of(name) == family
        )
    )
