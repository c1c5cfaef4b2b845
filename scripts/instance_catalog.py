"""Write (or check) the instance-type catalog, components/specs/catalog/data/instance_types.json.

nodepools reads only that JSON at run time. This script produces it from:

- AWS: Karpenter's generated instance-type reference
  (``website/content/en/preview/reference/instance-types.md`` of
  https://github.com/aws/karpenter-provider-aws), itself generated from EC2
  ``DescribeInstanceTypes``: every type's architecture, vCPUs, memory, GPUs (count, maker,
  name, memory) and Neuron devices, and the Kubernetes extended resources the device
  plugins advertise. Read as text from a checkout, a work tree or a bare git directory.
- AWS types that list does not carry (retired from the region it was generated in, or sold
  as UltraServers only) and the fractional-GPU families, whose vGPU Karpenter counts as
  0 GPUs: ``AWS_EXTRA`` / ``AWS_FRACTIONAL`` below, each with the AWS page it comes from.
- OCI: ``OCI_SHAPES`` below, copied from Oracle's Compute Shapes reference (GPU shapes) and
  the Data Science supported-shapes page (flexible shape bounds), cited per entry.

Layout of the JSON (room for more facts: add a key to the entry and to
``nodepools.specs.catalog.instance_types.InstanceType``, which refuses keys it does not know)::

    {"schema": 1,
     "sources": {"<key>": "<url>", ...},          # what each entry's `source` names
     "instance_types": {"<type or shape>": {
         "cloud": "aws" | "oci", "arch": "x86_64" | "arm64",
         "vcpus": int | null, "memory_mib": int | null,   # null: not documented here
         "accelerator": null | {"resource", "count", "vendor", "model", "memory_mib"},
         "flex": null | {"max_ocpus", "max_memory_gb", "max_memory_gb_per_ocpu"},
         "efa_interfaces": int | null,   # EFA interfaces; null: not documented here
         "source": "<key of sources>"}}}

Per-type network facts (EFA interfaces) are on the type entry, from the entry's source;
per-model facts (MIG profiles) in a separate top-level table keyed by `accelerator.model`;
prices in their own file keyed by type name.

Usage (from the repository root)::

    python scripts/instance_catalog.py KARPENTER_CHECKOUT [--rev HEAD]   # rewrite the JSON
    python scripts/instance_catalog.py --check                          # exit 1 if wrong
    python scripts/instance_catalog.py --check KARPENTER_CHECKOUT       # ... or stale

``--check`` without a checkout verifies what needs none: the hand-kept entries equal the
tables here, every entry is well formed and cites a known source, every type of an
accelerated family has its accelerator, and the file is in canonical form.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "components" / "specs" / "catalog" / "data" / "instance_types.json"
KARPENTER_DOC = "website/content/en/preview/reference/instance-types.md"
KARPENTER_REPO = "https://github.com/aws/karpenter-provider-aws"

NVIDIA, AMD, NEURON = "nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron"
EFA = "vpc.amazonaws.com/efa"
GIB = 1024

SOURCES: dict[str, str] = {
    # filled in with the commit read: see `karpenter_source`
    "karpenter": f"{KARPENTER_REPO}/blob/<commit>/{KARPENTER_DOC}",
    "aws-p3": "https://aws.amazon.com/ec2/instance-types/p3/",
    "aws-p6": "https://aws.amazon.com/ec2/instance-types/p6/",
    "aws-trn2": "https://aws.amazon.com/ec2/instance-types/trn2/",
    "aws-g6f": "https://aws.amazon.com/ec2/instance-types/g6f/",
    "oci-gpu": "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm#bm-gpu",
    "oci-vm-gpu": "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm#vm-gpu",
    "oci-flex": "https://docs.oracle.com/en-us/iaas/data-science/using/supported-shapes.htm",
}

# Karpenter's `instance-gpu-name` / `instance-accelerator-name` -> the model we show.
MODEL_NAMES = {
    "t4": "T4",
    "t4g": "T4G",
    "a10g": "A10G",
    "l4": "L4",
    "l40s": "L40S",
    "h100": "H100",
    "h200": "H200",
    "b200": "B200",
    "b300": "B300",
    "rtx-pro-4500": "RTX-PRO-4500",
    "rtx-pro-server-6000": "RTX-PRO-6000",
    "radeon-pro-v520": "Radeon-Pro-V520",
    "inferentia": "Inferentia",
    "inferentia2": "Inferentia2",
    "trainium": "Trainium",
    "trainium2": "Trainium2",
}
VENDORS = {"nvidia": "nvidia", "amd": "amd", "aws": "aws"}


def _model(name: str, memory_mib: int | None) -> str:
    """Models that come in several memory sizes are named with it (MIG profiles differ)."""
    if name == "a100":
        return f"A100-{round(memory_mib / GIB)}GB" if memory_mib else "A100"
    if name == "v100":
        return "V100-32GB" if memory_mib and memory_mib > 16 * GIB else "V100"
    return MODEL_NAMES.get(name, name.upper())


def _acc(resource, count, vendor, model, memory_mib=None) -> dict[str, Any]:
    return {
        "resource": resource,
        "count": count,
        "vendor": vendor,
        "model": model,
        "memory_mib": memory_mib,
    }


def _aws(arch, vcpus, memory_gib, accelerator, source) -> dict[str, Any]:
    return {
        "cloud": "aws",
        "arch": arch,
        "vcpus": vcpus,
        "memory_mib": round(memory_gib * GIB) if memory_gib is not None else None,
        "accelerator": accelerator,
        "flex": None,
        # Not documented on the pages these entries cite: unknown, never "no EFA".
        "efa_interfaces": None,
        "source": source,
    }


# Types Karpenter's list lacks: p3 (retired from the region it is generated in) and types
# sold as UltraServers or in capacity blocks only.
AWS_EXTRA: dict[str, dict[str, Any]] = {
    "p3.2xlarge": _aws("x86_64", 8, 61, _acc(NVIDIA, 1, "nvidia", "V100", 16 * GIB), "aws-p3"),
    "p3.8xlarge": _aws("x86_64", 32, 244, _acc(NVIDIA, 4, "nvidia", "V100", 16 * GIB), "aws-p3"),
    "p3.16xlarge": _aws("x86_64", 64, 488, _acc(NVIDIA, 8, "nvidia", "V100", 16 * GIB), "aws-p3"),
    # Grace (Arm) + 4 Blackwell GPUs, 740 GB of GPU memory per instance.
    "p6e-gb200.36xlarge": _aws(
        "arm64", 144, 960, _acc(NVIDIA, 4, "nvidia", "B200", 185 * GIB), "aws-p6"
    ),
    "trn2.3xlarge": _aws("x86_64", 12, 128, _acc(NEURON, 1, "aws", "Trainium2"), "aws-trn2"),
    "trn2u.48xlarge": _aws("x86_64", 192, 2048, _acc(NEURON, 16, "aws", "Trainium2"), "aws-trn2"),
}

# Fractional L4 (NVIDIA vGPU): the instance sees one vGPU device, which the NVIDIA device
# plugin advertises as one `nvidia.com/gpu`; Karpenter's list counts it as 0 GPUs.
AWS_FRACTIONAL: dict[str, str] = {
    "g6f.large": "L4-3Q",
    "g6f.xlarge": "L4-3Q",
    "g6f.2xlarge": "L4-6Q",
    "g6f.4xlarge": "L4-12Q",
    "gr6f.4xlarge": "L4-12Q",
}


def _oci(arch, ocpus, memory_gb, accelerator, source, flex=None) -> dict[str, Any]:
    # 1 OCPU is one core: two vCPUs on x86, one on Ampere A1.
    return {
        "cloud": "oci",
        "arch": arch,
        "vcpus": None if ocpus is None else ocpus * (2 if arch == "x86_64" else 1),
        "memory_mib": None if memory_gb is None else memory_gb * GIB,
        "accelerator": accelerator,
        "flex": flex,
        "efa_interfaces": None,  # EFA is EC2's; OCI shapes have RDMA cluster networks
        "source": source,
    }


def _oci_gpu(ocpus, memory_gb, count, model, gpu_gb, source="oci-gpu", arch="x86_64"):
    vendor, resource = ("amd", AMD) if model.startswith("MI") else ("nvidia", NVIDIA)
    memory = None if gpu_gb is None else gpu_gb * GIB
    return _oci(arch, ocpus, memory_gb, _acc(resource, count, vendor, model, memory), source)


def _flex(arch, max_ocpus, max_memory_gb, per_ocpu=64):
    bounds = {
        "max_ocpus": max_ocpus,
        "max_memory_gb": max_memory_gb,
        "max_memory_gb_per_ocpu": per_ocpu,
    }
    return _oci(arch, None, None, None, "oci-flex", flex=bounds)


OCI_SHAPES: dict[str, dict[str, Any]] = {
    "VM.GPU2.1": _oci_gpu(12, 72, 1, "P100", 16, "oci-vm-gpu"),
    "BM.GPU2.2": _oci_gpu(28, 192, 2, "P100", 16),
    "VM.GPU3.1": _oci_gpu(6, 90, 1, "V100", 16, "oci-vm-gpu"),
    "VM.GPU3.2": _oci_gpu(12, 180, 2, "V100", 16, "oci-vm-gpu"),
    "VM.GPU3.4": _oci_gpu(24, 360, 4, "V100", 16, "oci-vm-gpu"),
    "BM.GPU3.8": _oci_gpu(52, 768, 8, "V100", 16),
    "VM.GPU.A10.1": _oci_gpu(15, 240, 1, "A10", 24, "oci-vm-gpu"),
    "VM.GPU.A10.2": _oci_gpu(30, 480, 2, "A10", 24, "oci-vm-gpu"),
    "BM.GPU.A10.4": _oci_gpu(64, 1024, 4, "A10", 24),
    "BM.GPU4.8": _oci_gpu(64, 2048, 8, "A100-40GB", 40),
    "BM.GPU.B4.8": _oci_gpu(64, 2048, 8, "A100-40GB", 40),
    "BM.GPU.A100-v2.8": _oci_gpu(128, 2048, 8, "A100-80GB", 80),
    "BM.GPU.H100.8": _oci_gpu(112, 2048, 8, "H100", 80),
    "BM.GPU.H200.8": _oci_gpu(112, 3072, 8, "H200", 141),
    "BM.GPU.B200.8": _oci_gpu(None, None, 8, "B200", 180),
    "BM.GPU.GB200.4": _oci_gpu(None, None, 4, "B200", 186, arch="arm64"),
    "BM.GPU.L40S.4": _oci_gpu(112, 1024, 4, "L40S", 48),
    "BM.GPU.MI300X.8": _oci_gpu(112, 2048, 8, "MI300X", 192),
    "VM.Standard.E3.Flex": _flex("x86_64", 114, 1776),
    "VM.Standard.E4.Flex": _flex("x86_64", 114, 1760),
    "VM.Standard.E5.Flex": _flex("x86_64", 94, 1049),
    "VM.Standard.A1.Flex": _flex("arm64", 80, 512),
    "VM.Standard.A2.Flex": _flex("arm64", 78, 946),
    "VM.Standard3.Flex": _flex("x86_64", 32, 512),
    "VM.Optimized3.Flex": _flex("x86_64", 18, 256),
}


# --- reading Karpenter's reference ---------------------------------------------------------

_TYPE = re.compile(r"^### `(?P<name>[^`]+)`$")
_ROW = re.compile(r"^\s*\|(?P<key>[^|]+)\|(?P<value>[^|]*)\|\s*$")


def parse_karpenter_reference(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """`{type: {"labels": {...}, "resources": {...}}}` from the reference's tables."""
    types: dict[str, dict[str, dict[str, str]]] = {}
    current: dict[str, dict[str, str]] | None = None
    section = "labels"
    for line in text.splitlines():
        if found := _TYPE.fullmatch(line):
            current = types.setdefault(found["name"], {"labels": {}, "resources": {}})
        elif line.startswith("#### Labels"):
            section = "labels"
        elif line.startswith("#### Resources"):
            section = "resources"
        elif current is not None and (row := _ROW.fullmatch(line)):
            key = row["key"].strip()
            if key not in ("Label", "Resource", "--"):
                current[section][key] = row["value"].strip()
    return types


def _int(value: str | None) -> int | None:
    return int(value) if value not in (None, "") else None


def aws_entry(name: str, labels: dict[str, str], resources: dict[str, str]) -> dict[str, Any]:
    k = "karpenter.k8s.aws/instance-"
    arch = {"amd64": "x86_64", "arm64": "arm64"}[labels["kubernetes.io/arch"]]
    accelerator = None
    gpu_name = labels.get(k + "gpu-name")
    gpu_memory = _int(labels.get(k + "gpu-memory"))
    if name in AWS_FRACTIONAL:
        accelerator = _acc(NVIDIA, 1, "nvidia", AWS_FRACTIONAL[name], gpu_memory)
    elif gpu_name:
        maker = labels[k + "gpu-manufacturer"]
        resource = {"nvidia": NVIDIA, "amd": AMD}[maker]
        count = _int(resources.get(resource))
        if count:
            accelerator = _acc(resource, count, maker, _model(gpu_name, gpu_memory), gpu_memory)
    elif labels.get(k + "accelerator-name") and resources.get(NEURON):
        accelerator = _acc(
            NEURON,
            int(resources[NEURON]),
            "aws",
            _model(labels[k + "accelerator-name"], None),
        )
    # Other accelerators (Qualcomm AI 100 on dl2q) have no device-plugin resource here:
    # left without one, so a pool of them must say what it is (`accelerator`).
    return {
        "cloud": "aws",
        "arch": arch,
        "vcpus": int(labels[k + "cpu"]),
        "memory_mib": int(labels[k + "memory"]),
        "accelerator": accelerator,
        "flex": None,
        # The list names every resource a node advertises: no EFA line, no EFA support.
        "efa_interfaces": _int(resources.get(EFA)) or 0,
        "source": "karpenter",
    }


def read_karpenter(checkout: Path, rev: str) -> tuple[str, str]:
    """(commit, text of the reference) from a work tree or a (bare) git directory."""
    if (checkout / KARPENTER_DOC).is_file() and not (checkout / "HEAD").is_file():
        text = (checkout / KARPENTER_DOC).read_text()
        commit = _git(checkout, "rev-parse", "HEAD", default="unknown")
        return commit, text
    commit = _git(checkout, "rev-parse", rev)
    return commit, _git(checkout, "show", f"{commit}:{KARPENTER_DOC}")


def _git(where: Path, *args: str, default: str | None = None) -> str:
    try:
        out = subprocess.run(
            ["git", "--git-dir" if (where / "HEAD").is_file() else "-C", str(where), *args],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        if default is not None:
            return default
        raise
    return out.strip() if args[0] == "rev-parse" else out


def build(commit: str, reference: str) -> dict[str, Any]:
    parsed = parse_karpenter_reference(reference)
    types = {name: aws_entry(name, d["labels"], d["resources"]) for name, d in parsed.items()}
    for name, entry in AWS_EXTRA.items():
        types.setdefault(name, entry)
    types.update(OCI_SHAPES)
    sources = {**SOURCES, "karpenter": SOURCES["karpenter"].replace("<commit>", commit)}
    return {"schema": 1, "sources": sources, "instance_types": dict(sorted(types.items()))}


# --- the file's form, and checks that need no checkout --------------------------------------


def render(catalog: dict[str, Any]) -> str:
    """Canonical text: one type per line, so a diff shows the types that changed."""
    lines = ["{", f'  "schema": {json.dumps(catalog["schema"])},', '  "sources": {']
    sources = sorted(catalog["sources"].items())
    lines += [
        f"    {json.dumps(key)}: {json.dumps(url)}{',' if i < len(sources) - 1 else ''}"
        for i, (key, url) in enumerate(sources)
    ]
    lines += ["  },", '  "instance_types": {']
    types = list(catalog["instance_types"].items())
    lines += [
        f"    {json.dumps(name)}: {json.dumps(entry, sort_keys=True)}"
        f"{',' if i < len(types) - 1 else ''}"
        for i, (name, entry) in enumerate(types)
    ]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def problems(catalog: dict[str, Any], text: str) -> list[str]:
    """What is wrong with a catalog, checked without any upstream checkout."""
    from nodepools.specs.catalog.instance_types import InstanceType, accelerated_family

    found: list[str] = []
    if text != render(catalog):
        found.append("not in canonical form (sorted, one type per line): rewrite it")
    for name, entry in catalog["instance_types"].items():
        try:
            parsed = InstanceType.model_validate({"name": name, **entry})
        except ValueError as exc:
            found.append(f"{name}: {exc}")
            continue
        if parsed.source not in catalog["sources"]:
            found.append(f"{name}: source {parsed.source!r} is not in `sources`")
        if parsed.source == "karpenter" and parsed.efa_interfaces is None:
            found.append(f"{name}: Karpenter's list says whether a type has EFA; null here")
        if (
            accelerated_family(name)
            and parsed.accelerator is None
            and not name.startswith("dl2q.")  # documented: no device-plugin resource
        ):
            found.append(f"{name}: an accelerated family without an accelerator")
    for name, entry in {**AWS_EXTRA, **OCI_SHAPES}.items():
        if catalog["instance_types"].get(name) != entry and name not in _karpenter_wins(catalog):
            found.append(f"{name}: differs from the table in scripts/instance_catalog.py")
    return found


def _karpenter_wins(catalog: dict[str, Any]) -> set[str]:
    return {n for n, e in catalog["instance_types"].items() if e.get("source") == "karpenter"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", nargs="?", type=Path, help="aws/karpenter-provider-aws")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--data", type=Path, default=OUT, help="the JSON (default: packaged)")
    args = parser.parse_args(argv)
    if args.checkout is not None:
        fresh = render(build(*read_karpenter(args.checkout, args.rev)))
        if not args.check:
            args.data.write_text(fresh)
            print(f"wrote {args.data}")
            return 0
        if args.data.read_text() != fresh:
            print(f"{args.data} is stale: run scripts/instance_catalog.py {args.checkout}")
            return 1
    if not args.check:
        parser.error("give a Karpenter checkout to write the catalog, or --check")
    text = args.data.read_text()
    found = problems(json.loads(text), text)
    for problem in found:
        print(f"{args.data.name}: {problem}")
    if not found:
        print(f"{args.data.name}: OK")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
