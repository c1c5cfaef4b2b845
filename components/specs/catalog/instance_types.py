"""The instance-type catalog: what each EC2 instance type and OCI shape is.

Read from the packaged `data/instance_types.json` (written and checked by
`scripts/instance_catalog.py`, which cites a source for every entry): CPU architecture,
vCPUs, memory, accelerators (resource, count, vendor, model, memory), the bounds of OCI
flexible shapes and the EFA interfaces of EC2 types. Entries are parsed on first lookup,
so importing this costs one JSON read.

Beyond the catalog, names are checked by their cloud's syntax, and the architecture of a
well-formed type the catalog does not know is read from its name (AWS Graviton families
carry a `g` after the generation, OCI Ampere shapes are `Standard.A1`/`A2`/`A4`).
"""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from nodepools.specs.core.base import SpecModel
from pydantic import Field

DATA = Path(__file__).parent / "data" / "instance_types.json"

Cloud = Literal["aws", "oci"]
Architecture = Literal["x86_64", "arm64"]
CLOUD_TITLES = {"aws": "an EC2 instance type", "oci": "an OCI shape"}
# Which cloud's names each kind of cluster takes (ROSA Classic runs on EC2).
CLUSTER_CLOUDS: dict[str, Cloud] = {"eks": "aws", "rosa": "aws", "karpenter": "aws", "oke": "oci"}
EXAMPLES = {"aws": "`g5.xlarge`, `m7g.large`", "oci": "`BM.GPU.H100.8`, `VM.Standard.E4.Flex`"}


class FlexBounds(SpecModel):
    """How big a VM of one OCI flexible shape can be (documented per shape)."""

    max_ocpus: int = Field(gt=0, description="Most OCPUs a VM of the shape can have.")
    max_memory_gb: int = Field(gt=0, description="Most memory in GB.")
    max_memory_gb_per_ocpu: int = Field(gt=0, description="Most memory per OCPU in GB.")


class CatalogAccelerator(SpecModel):
    """The accelerators of one node as the catalog records them."""

    resource: str
    count: int = Field(ge=1)
    vendor: Literal["nvidia", "amd", "aws", "intel", "other"]
    model: str
    memory_mib: int | None = Field(default=None, gt=0)


class InstanceType(SpecModel):
    """One catalog entry; `None` marks a fact the cited source does not give."""

    name: str
    cloud: Cloud
    arch: Architecture
    vcpus: int | None = Field(default=None, gt=0)
    memory_mib: int | None = Field(default=None, gt=0)
    accelerator: CatalogAccelerator | None = None
    flex: FlexBounds | None = None
    efa_interfaces: int | None = Field(
        default=None,
        ge=0,
        description="EFA interfaces a node of the type can carry, one per network card "
        "(0: no EFA); None: not documented by the entry's source.",
    )
    source: str = Field(min_length=1, description="Key of the catalog's `sources` table.")


@cache
def _raw() -> dict[str, Any]:
    return json.loads(DATA.read_text())


def catalog_names() -> tuple[str, ...]:
    """Every type and shape the catalog knows, sorted."""
    return tuple(_raw()["instance_types"])


def catalog_accelerators() -> dict[str, dict[str, Any]]:
    """Type or shape -> the catalog's record of its accelerators, for those that have one."""
    return {
        name: entry["accelerator"]
        for name, entry in _raw()["instance_types"].items()
        if entry.get("accelerator")
    }


def source_url(key: str) -> str:
    return _raw()["sources"][key]


@lru_cache(maxsize=4096)
def instance_type(name: object) -> InstanceType | None:
    """The catalog entry of `name`, or None when the catalog does not know it."""
    entry = _raw()["instance_types"].get(name) if isinstance(name, str) else None
    return None if entry is None else InstanceType.model_validate({"name": name, **entry})


# --- names -----------------------------------------------------------------------------------

# `<family>.<size>`: the family is letters and digits with `-` parts (`p6-b200`,
# `c7i-flex`, `u-6tb1`); the size is one of EC2's (`large`, `12xlarge`, `metal-24xl`, ...).
_AWS = re.compile(
    r"(?P<family>(?P<series>[a-z]+)(?P<generation>\d+)(?P<options>[a-z]*)(?:-[a-z0-9]+)*"
    r"|u-[a-z0-9]+)"
    r"\.(?P<size>nano|micro|small|medium|large|\d*xlarge|metal(?:-\d+xl)?)"
)
# `VM|BM.<series>.<parts>`; the series are OCI's shape series, so `VM.Bogus.1` is refused.
_OCI = re.compile(
    r"(?P<kind>VM|BM)\.(?P<series>(?:Standard|DenseIO|GPU|HPC|Optimized)\d*)"
    r"(?:\.[A-Za-z0-9][A-Za-z0-9-]*)+"
)
_AWS_ACCELERATED = re.compile(r"(?:g|gr|p|trn|inf|dl)\d")
# Ampere (`VM.Standard.A1.Flex`) and Grace (`BM.GPU.GB200.4`) shapes.
_OCI_ARM = re.compile(r"\.(?:Standard\.A\d+|GPU\.GB\d+(?:-v\d+)?)\.")


def cloud_of_name(name: str) -> Cloud | None:
    """Which cloud's syntax `name` follows, or None for neither."""
    if _AWS.fullmatch(name):
        return "aws"
    if _OCI.fullmatch(name):
        return "oci"
    return None


def accelerated_family(name: str) -> bool:
    """EC2 families g*, gr*, p*, trn*, inf*, dl* and OCI `*.GPU*` shapes: accelerator types."""
    if _OCI.fullmatch(name):
        return ".GPU" in name
    return bool(_AWS.fullmatch(name) and _AWS_ACCELERATED.match(name))


def architecture(name: str) -> Architecture:
    """The CPU architecture of `name`: the catalog's, else read from the name."""
    known = instance_type(name)
    return known.arch if known is not None else architecture_from_name(name)


def architecture_from_name(name: str) -> Architecture:
    """The architecture a type's name implies (tried on every catalog entry by the tests)."""
    if found := _AWS.fullmatch(name):
        # Graviton: a `g` after the generation (m7g, c7gn, x2gd); Grace: `-gb200`.
        arm = "g" in (found["options"] or "") or found["family"] == "a1" or "-gb" in found["family"]
        return "arm64" if arm else "x86_64"
    return "arm64" if _OCI_ARM.search(name) else "x86_64"


def name_problem(name: str, cloud: Cloud) -> str | None:
    """Why `name` can't be a type or shape of `cloud`: another cloud's name, or neither's."""
    actual = cloud_of_name(name)
    if actual == cloud:
        return None
    if actual is not None:
        return (
            f"{name!r} is {CLOUD_TITLES[actual]}, not {CLOUD_TITLES[cloud]}; this cluster "
            f"takes names like {EXAMPLES[cloud]}"
        )
    return f"{name!r} is not {CLOUD_TITLES[cloud]} (e.g. {EXAMPLES[cloud]})"


def unknown_accelerated_problem(name: str) -> str | None:
    """Why a pool of `name` needs its `accelerator` spelt out: an accelerated family the
    catalog has no accelerator for. A silent CPU pool would get no taint, no AMI with
    drivers and no accelerator in its scheduling info."""
    if not accelerated_family(name):
        return None
    known = instance_type(name)
    if known is not None and known.accelerator is not None:
        return None
    what = "knows no accelerator of" if known is not None else "does not know"
    return (
        f"{name!r} is an accelerated type the catalog {what}; give `accelerator` "
        "(resource, count, e.g. `{resource: nvidia.com/gpu, count: 8}`)"
    )


def unknown_type_warning(name: str) -> str | None:
    """A warning for a well-formed type the catalog does not know (it may be new)."""
    if instance_type(name) is not None or cloud_of_name(name) is None:
        return None
    return (
        f"instance type {name!r} is not in the nodepools catalog: taken as a CPU-only "
        f"{architecture(name)} type; check the name, or give `accelerator` if it has one"
    )
