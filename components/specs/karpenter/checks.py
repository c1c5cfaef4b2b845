"""What Karpenter refuses or could never satisfy, beyond one field's own syntax.

- Template labels: keys the NodePool CRD restricts, keys Karpenter reads as requirements
  (which have args of their own), reserved domains.
- Instance requirements no instance meets together (Karpenter ANDs them, and a NodePool
  nothing satisfies registers fine and never launches): values of one requirement that
  another excludes, pinned types or families of no listed architecture, GPU names of no
  listed maker, and fractional-GPU types, which Karpenter counts as having no GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nodepools.specs.catalog.accelerators import AWS_NEURON, CATALOG, lookup_accelerator
from nodepools.specs.catalog.ec2_families import catalog_families
from nodepools.specs.core.base import Issue
from nodepools.specs.core.labels import POOL_LABEL, restricted_domain
from nodepools.specs.karpenter.instance_requirements import (
    ANY_GPU,
    GPU_NAME_MAKERS,
    InstanceRequirements,
    category_of,
    family_arches,
    family_of,
    fractional_gpu_families,
    fractional_gpu_types,
    gpu_label_name,
    type_arches,
)
from nodepools.specs.karpenter.labels import (
    ARCH_LABEL,
    CAPACITY_TYPE_LABEL,
    GPU_COUNT_LABEL,
    GPU_MANUFACTURER_LABEL,
    GPU_NAME_LABEL,
    INSTANCE_CATEGORY_LABEL,
    INSTANCE_FAMILY_LABEL,
    INSTANCE_TYPE_LABEL,
    NEURON_COUNT_LABEL,
    NEURON_NAME_LABEL,
)
from nodepools.specs.karpenter.restrictions import restricted_label_problem

# --- template labels ------------------------------------------------------------------

# Karpenter reads a NodePool's template labels as requirements too, so a label on one of
# these keys could only repeat or contradict the arg that renders the requirement.
REQUIREMENT_ARGS = {
    CAPACITY_TYPE_LABEL: "capacity_types",
    ARCH_LABEL: "architectures",
    INSTANCE_TYPE_LABEL: "instance_types",
    INSTANCE_FAMILY_LABEL: "instance_families",
    INSTANCE_CATEGORY_LABEL: "instance_categories",
    GPU_COUNT_LABEL: "gpu_count",
    GPU_MANUFACTURER_LABEL: "gpu_manufacturers",
    GPU_NAME_LABEL: "gpu_names",
    NEURON_COUNT_LABEL: "neuron_count",
    NEURON_NAME_LABEL: "neuron_names",
}
_KARPENTER_DOMAINS = ("karpenter.sh", "karpenter.k8s.aws")


def label_problem(key: str) -> str | None:
    """Why a Karpenter pool can't carry label `key`: the NodePool CRD refuses it, it is a
    requirement with its own arg, or its domain is reserved (the policy pack refuses it)."""
    if key == POOL_LABEL:
        return f"label {POOL_LABEL!r} is set by the pool itself (to its pool name); remove it"
    domain = restricted_domain(key)
    if key in REQUIREMENT_ARGS:
        arg = REQUIREMENT_ARGS[key]
        return (
            f"label {key!r} is a requirement: set `{arg}` instead (Karpenter reads a template "
            f"label as a requirement, so it could only repeat or contradict `{arg}`)"
        )
    if problem := restricted_label_problem(key):
        return problem
    karpenter_domain = next(
        (d for d in _KARPENTER_DOMAINS if key.split("/", 1)[0].endswith(d)), None
    )
    if "/" in key and karpenter_domain is not None:
        # The CRD allows this well-known key as a label; Karpenter would read it as the
        # requirement `key In [value]`, which `requirements` says directly (and checks
        # against the pool's other requirements).
        return (
            f"label {key!r} is one of Karpenter's well-known labels, which it sets on each "
            "node from the instance it launches; as a template label it is a requirement: "
            f"write it in `requirements` ({{key: {key}, operator: In, values: [...]}})"
        )
    if domain is not None:
        return (
            f"label {key!r} is in the reserved `{domain}` domain: the kubelet refuses to set "
            "it on its node; use a prefix of your own, e.g. `example.com/...` (a pool may "
            "carry kubernetes.io/os, topology.kubernetes.io/zone and /region, and "
            "node.kubernetes.io/* and kubelet.kubernetes.io/* keys other than the instance "
            "type)"
        )
    return None


# --- instance requirements ------------------------------------------------------------


def _architecture_issues(args: InstanceRequirements) -> list[Issue]:
    """Pinned types or families none of which runs on the listed architectures (the
    catalog knows each type's): `trn1.2xlarge` with `[arm64]`, `g5g` with `[amd64]`."""
    architectures: list[str] = list(args.architectures or [])
    issues: list[Issue] = []
    if not architectures:
        return issues
    types: list[str] = list(args.instance_types or [])
    families: list[str] = list(args.instance_families or [])
    fields: tuple[tuple[str, list[str], Callable[[str], frozenset[str] | None]], ...] = (
        ("instance_types", types, type_arches),
        ("instance_families", families, family_arches),
    )
    for path, values, arches_of in fields:
        known = {value: arches for value in values if (arches := arches_of(value))}
        if not values or len(known) != len(values):
            continue  # a value the catalog doesn't know may run on either
        if not any(arches & set(architectures) for arches in known.values()):
            listed = ", ".join(f"{v} is {'/'.join(sorted(a))}" for v, a in known.items())
            issues.append(
                Issue(
                    path,
                    f"{values!r}: none of them runs on `architectures` "
                    f"{architectures!r} ({listed}), and Karpenter needs both: no instance type "
                    "can satisfy the pool",
                )
            )
    return issues


def fractional_gpu_issues(args: InstanceRequirements) -> list[Issue]:
    """Fractional-GPU types and families are refused: EC2 reports their GPU count as 0, and
    Karpenter (v1.14.1 `nvidiaGPUs()` sums it) offers 0 `nvidia.com/gpu` on them, so it never
    launches one for a pod requesting a GPU."""
    why = (
        "Karpenter counts 0 GPUs for fractional-GPU instances (EC2 reports their GPU count "
        "as 0; aws/karpenter-provider-aws#8368), so it never launches them for pods "
        "requesting nvidia.com/gpu, may launch them for pods requesting none, and does not "
        "count them against an nvidia.com/gpu limit; use whole-GPU types (e.g. g6), or a "
        "MachinePool (EKS managed node group) for fractional GPUs"
    )
    issues: list[Issue] = []
    pinned_types: list[str] = list(args.instance_types or [])
    pinned_families: list[str] = list(args.instance_families or [])
    types = fractional_gpu_types()
    if found := sorted(t for t in pinned_types if t in types):
        listed = ", ".join(f"{t}: {types[t]}" for t in found)
        issues.append(Issue("instance_types", f"{found!r} carry fractional GPUs ({listed}); {why}"))
    families = fractional_gpu_families()
    if found := sorted(f for f in pinned_families if f in families):
        issues.append(Issue("instance_families", f"{found!r} are fractional-GPU families; {why}"))
    return issues


def unsatisfiable_issues(args: InstanceRequirements) -> list[Issue]:
    """Requirements no instance can meet together (Karpenter ANDs them, and a NodePool
    nothing satisfies registers fine and never launches): each an error naming both."""
    issues: list[Issue] = []

    def exclusive(
        path: str, values: Any, other: str, allowed: Any, key: Callable[[str], Any]
    ) -> None:
        if values and allowed and not any(key(value) in allowed for value in values):
            issues.append(
                Issue(
                    path,
                    f"{list(values)!r}: none of them is in `{other}` {list(allowed)!r}, and "
                    "Karpenter needs both: no instance type can satisfy the pool",
                )
            )

    exclusive(
        "instance_types",
        args.instance_types,
        "instance_families",
        args.instance_families,
        family_of,
    )
    exclusive(
        "instance_types",
        args.instance_types,
        "instance_categories",
        args.instance_categories,
        lambda value: category_of(family_of(value)),
    )
    exclusive(
        "instance_families",
        args.instance_families,
        "instance_categories",
        args.instance_categories,
        category_of,
    )
    names: list[str] = list(args.gpu_names or [])
    makers: list[str] = list(args.gpu_manufacturers or [])
    known = {name: GPU_NAME_MAKERS[name] for name in names if name in GPU_NAME_MAKERS}
    if makers and names and len(known) == len(names) and not set(known.values()) & set(makers):
        listed = ", ".join(f"{name} ({maker})" for name, maker in known.items())
        issues.append(
            Issue(
                "gpu_names",
                f"{listed}: none is made by `gpu_manufacturers` {list(makers)!r}; no "
                "instance type can satisfy both",
            )
        )
    if names and args.instance_types:
        models = {
            t: gpu_label_name(a.model) for t in args.instance_types if (a := lookup_accelerator(t))
        }
        if len(models) == len(args.instance_types) and not set(models.values()) & set(names):
            issues.append(
                Issue(
                    "gpu_names",
                    f"{list(names)!r}: none of `instance_types` {list(args.instance_types)!r} "
                    f"has one (they carry {', '.join(sorted(set(models.values())))}); no "
                    "instance type can satisfy both",
                )
            )
    issues += _architecture_issues(args)
    issues += _family_count_issues(args)
    return issues


def _family_count_issues(args: InstanceRequirements) -> list[Issue]:
    """An exact `gpu_count` or `neuron_count` no type of the listed families carries
    (`instance_families: [g5]` with `gpu_count: 2`: g5 types have 1, 4 or 8): the pool
    would promise devices no instance has and never launch. Pinned types are checked
    against the count by the accelerator profile; families the catalog lacks may have any."""
    families: list[str] = list(args.instance_families or [])
    if not families or args.instance_types or not set(families) <= catalog_families():
        return []
    issues: list[Issue] = []
    for field, resources in (("gpu_count", ANY_GPU), ("neuron_count", {AWS_NEURON})):
        wanted = getattr(args, field)
        counts = sorted(
            {
                accelerator.count
                for name, accelerator in CATALOG.items()
                if family_of(name) in families and accelerator.resource in resources
            }
        )
        if wanted is not None and counts and wanted not in counts:
            issues.append(
                Issue(
                    field,
                    f"{wanted} matches none of `instance_families` {families!r} (their types "
                    f"carry {counts}); no instance type can satisfy both",
                )
            )
    return issues
