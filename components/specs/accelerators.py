"""Accelerators and the catalog of accelerator shapes (instance type -> accelerators per node).

The catalog is a frozen table built once at import; lookups are dictionary hits. A pool
can override the catalog (a shape we don't know, a new generation) with its own
`accelerator`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from nodepools.specs.base import SpecModel
from nodepools.specs.labels import LabelKey
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
    model: str = Field(default="", description="Model, e.g. `T4`, `H100`; default empty.")


def _nvidia(model: str, count: int) -> Accelerator:
    return Accelerator(resource=NVIDIA_GPU, count=count, vendor="nvidia", model=model)


def _neuron(model: str, count: int) -> Accelerator:
    return Accelerator(resource=AWS_NEURON, count=count, vendor="aws", model=model)


def _family(
    prefix: str, model: str, counts: dict[str, int], make=_nvidia
) -> dict[str, Accelerator]:
    return {f"{prefix}.{size}": make(model, count) for size, count in counts.items()}


_SINGLE = {size: 1 for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")}

# Sources: AWS EC2 accelerated-computing instance pages and OCI GPU shape docs.
CATALOG: dict[str, Accelerator] = {
    # AWS NVIDIA
    **_family("g4dn", "T4", {**_SINGLE, "12xlarge": 4, "metal": 8}),
    **_family("g5", "A10G", {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    **_family("g6", "L4", {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    **_family("g6e", "L40S", {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    **_family("p3", "V100", {"2xlarge": 1, "8xlarge": 4, "16xlarge": 8}),
    "p3dn.24xlarge": _nvidia("V100", 8),
    "p4d.24xlarge": _nvidia("A100", 8),
    "p4de.24xlarge": _nvidia("A100-80GB", 8),
    "p5.48xlarge": _nvidia("H100", 8),
    "p5e.48xlarge": _nvidia("H200", 8),
    "p5en.48xlarge": _nvidia("H200", 8),
    # AWS Trainium / Inferentia: the Neuron device plugin counts devices (chips).
    **_family("trn1", "Trainium", {"2xlarge": 1, "32xlarge": 16}, _neuron),
    "trn1n.32xlarge": _neuron("Trainium", 16),
    "trn2.48xlarge": _neuron("Trainium2", 16),
    **_family(
        "inf2", "Inferentia2", {"xlarge": 1, "8xlarge": 1, "24xlarge": 6, "48xlarge": 12}, _neuron
    ),
    # OCI
    "VM.GPU2.1": _nvidia("P100", 1),
    "BM.GPU2.2": _nvidia("P100", 2),
    "VM.GPU3.1": _nvidia("V100", 1),
    "VM.GPU3.2": _nvidia("V100", 2),
    "VM.GPU3.4": _nvidia("V100", 4),
    "BM.GPU3.8": _nvidia("V100", 8),
    "VM.GPU.A10.1": _nvidia("A10", 1),
    "VM.GPU.A10.2": _nvidia("A10", 2),
    "BM.GPU.A10.4": _nvidia("A10", 4),
    "BM.GPU4.8": _nvidia("A100-40GB", 8),
    "BM.GPU.A100-v2.8": _nvidia("A100-80GB", 8),
    "BM.GPU.H100.8": _nvidia("H100", 8),
    "BM.GPU.H200.8": _nvidia("H200", 8),
    "BM.GPU.L40S.4": _nvidia("L40S", 4),
    "BM.GPU.MI300X.8": Accelerator(resource=AMD_GPU, count=8, vendor="amd", model="MI300X"),
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
