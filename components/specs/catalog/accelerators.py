"""Accelerators and the catalog of accelerator shapes (instance type -> accelerators per node).

The catalog is the accelerated part of the instance-type catalog
(`nodepools.specs.catalog.instance_types`), built once at import; lookups are dictionary hits. A
pool can override it (a shape we don't know, a new generation) with its own `accelerator`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from nodepools.specs.catalog.instance_types import catalog_accelerators, instance_type
from nodepools.specs.core.base import SpecModel
from nodepools.specs.core.labels import LabelKey
from pydantic import Field

NVIDIA_GPU = "nvidia.com/gpu"
AMD_GPU = "amd.com/gpu"
AWS_NEURON = "aws.amazon.com/neuron"
ACCELERATOR_RESOURCES: tuple[str, ...] = (NVIDIA_GPU, AMD_GPU, AWS_NEURON)

Vendor = Literal["nvidia", "amd", "aws", "intel", "other"]


class Accelerator(SpecModel):
    """The accelerators of one node: which extended resource, how many, what they are."""

    resource: LabelKey = Field(
        description="Kubernetes extended resource name, e.g. `nvidia.com/gpu`, `amd.com/gpu`, "
        "`aws.amazon.com/neuron`. Required."
    )
    count: int = Field(ge=1, description="Accelerators per node (resource units). Required.")
    vendor: Vendor = Field(default="other", description="Maker; default `other`.")
    model: str = Field(
        default="",
        description="Model, e.g. `T4`, `H100`; default empty. Free text: on an EKS GPU pool "
        "it names the GPU in the cluster autoscaler's `k8s.amazonaws.com/accelerator` label "
        "as a valid label value: `nvidia-` or `amd-` and the model lowercased, each run of "
        "characters other than letters, digits, `.` and `_` becoming one `-`, at most 63 "
        "characters (`RTX PRO 6000` gives `nvidia-rtx-pro-6000`).",
    )
    memory_mib: int | None = Field(
        default=None, gt=0, description="Memory of one accelerator in MiB; default None (unknown)."
    )


class AdvertisedAccelerators(SpecModel):
    """What one node advertises in place of its accelerators once device software
    partitions them: MIG slices (`nvidia.com/mig-1g.10gb: 56` on 8 H100 GPUs cut into
    `1g.10gb`) or time-sliced GPUs (`nvidia.com/gpu: 32` for 8 GPUs x 4 replicas)."""

    resource: LabelKey = Field(
        description="The extended resource a node advertises, e.g. `nvidia.com/mig-1g.10gb`. "
        "Required."
    )
    count: int = Field(ge=1, description="How many of it one node advertises. Required.")


# Instance type / OCI shape -> the accelerators of one node, from the instance-type catalog
# (`nodepools.specs.catalog.instance_types`, which cites a source for each).
CATALOG: dict[str, Accelerator] = {
    name: Accelerator(**facts) for name, facts in catalog_accelerators().items()
}


@lru_cache(maxsize=4096)
def lookup_accelerator(instance_type: str) -> Accelerator | None:
    """The accelerators of one node of `instance_type`, or None for a CPU-only type."""
    return CATALOG.get(instance_type)


def is_bare_metal(shape: str) -> bool:
    """OCI bare-metal shapes (`BM.*`) and AWS `.metal` types."""
    return shape.startswith("BM.") or shape.endswith(".metal")


def is_flex(shape: str) -> bool:
    """OCI flexible shapes take `ocpus` and `memory_gb`."""
    return shape.endswith(".Flex")


def flex_bounds_problem(
    shape: str, field: str, value: float, ocpus: float | None = None
) -> str | None:
    """Why `value` OCPUs or GB is more than one VM of the flexible `shape` can have (the
    catalog's documented maxima, per shape and per OCPU); None when it fits or the
    catalog has no bounds for the shape."""
    entry = instance_type(shape)
    bounds = entry.flex if entry is not None else None
    if bounds is None:
        return None
    most = bounds.max_ocpus if field == "ocpus" else bounds.max_memory_gb
    if value > most:
        unit = "OCPUs" if field == "ocpus" else "GB"
        return f"{value:g} is more than {shape}'s {most:,} {unit} per VM"
    if field == "memory_gb" and ocpus is not None:
        per_ocpu = bounds.max_memory_gb_per_ocpu * ocpus
        if value > per_ocpu:
            return (
                f"{value:g} GB is more than {shape} allows with {ocpus:g} OCPUs "
                f"({bounds.max_memory_gb_per_ocpu} GB per OCPU: at most {per_ocpu:g})"
            )
    return None


def flex_size_problem(shape: str, field: str, value: float | None) -> str | None:
    """Why `field` (`ocpus` or `memory_gb`) is wrong for `shape`: flexible OCI shapes need
    both (OCI refuses a Flex pool without a shape config), fixed shapes take neither."""
    if is_flex(shape) and value is None:
        return f"`{field}` is required when the shape is flexible ({shape})"
    if not is_flex(shape) and value is not None:
        return (
            f"{value!r} can't be used: `{field}` is only for flexible `.Flex` shapes, and "
            f"{shape!r} has a fixed size"
        )
    return None
