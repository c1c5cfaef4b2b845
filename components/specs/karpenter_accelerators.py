"""Which accelerator a Karpenter pool launches, derived from its requirements.

A NodePool does not name an instance type; it constrains them. The pool is
"accelerator-only" when its requirements (ANDed by Karpenter) leave only instances with one
kind of accelerator: then it gets the accelerator defaults (taint, consolidation) and its
scheduling info requests that accelerator. Requirements that contradict each other or mix
accelerator resources are errors, since no taint or limit could describe such a pool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .accelerators import AMD_GPU, AWS_NEURON, CATALOG, NVIDIA_GPU, Accelerator, lookup_accelerator
from .base import Issue

if TYPE_CHECKING:
    from .karpenter import KarpenterNodePoolArgs


_GPU_MAKERS = {"nvidia": NVIDIA_GPU, "amd": AMD_GPU}
_ANY_GPU = frozenset({NVIDIA_GPU, AMD_GPU})
_FAMILY = re.compile(r"^(?P<category>[a-z]+)\d")
# Karpenter's instance categories that hold only accelerator families. `g` has both
# makers (g4ad is AMD's), so it leaves the maker open.
_CATEGORY_RESOURCES: dict[str, frozenset[str]] = {
    "p": frozenset({NVIDIA_GPU}),
    "g": _ANY_GPU,
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
    return _CATEGORY_RESOURCES.get(found["category"]) if found else None


@dataclass(frozen=True)
class AcceleratorProfile:
    """What every node of the pool carries, derived from its requirements."""

    resource: str | None = None  # None unless every launchable instance has this accelerator
    counts: tuple[int, ...] = ()  # the possible per-instance counts, when known
    counts_source: str = ""  # for messages: where the counts come from
    model: str = ""
    narrow_to_nvidia: bool = False  # add `instance-gpu-manufacturer In [nvidia]`

    @property
    def accelerator_only(self) -> bool:
        return self.resource is not None


def _resources_of_values(
    path: str, values: Iterable[str], resource_of: Any, issues: list[Issue]
) -> frozenset[str] | None:
    """The resources the values of one requirement allow; None if a CPU value is among them."""
    per_value = {value: resource_of(value) for value in values}
    if any(resources is None for resources in per_value.values()):
        return None
    pinned = {v: next(iter(r)) for v, r in per_value.items() if len(r) == 1}
    union = frozenset().union(*per_value.values())
    if len(set(pinned.values())) > 1 or (AWS_NEURON in union and union & _ANY_GPU):
        listed = ", ".join(f"{v} ({', '.join(sorted(r))})" for v, r in sorted(per_value.items()))
        issues.append(
            Issue(path, f"mixes accelerator resources: {listed}; use one pool per resource")
        )
        return None
    return union


def _type_resources(instance_type: str) -> frozenset[str] | None:
    accelerator = lookup_accelerator(instance_type)
    if accelerator is not None:
        return frozenset({accelerator.resource})
    return family_resource(instance_type.split(".", 1)[0])


def accelerator_profile(args: KarpenterNodePoolArgs, issues: list[Issue]) -> AcceleratorProfile:
    """Intersect what each requirement allows; report mixes and contradictions."""
    allowed: list[tuple[str, frozenset[str]]] = []

    def add(path: str, resources: frozenset[str] | None) -> None:
        if resources is not None:
            allowed.append((path, resources))

    if args.instance_types:
        add(
            "instance_types",
            _resources_of_values("instance_types", args.instance_types, _type_resources, issues),
        )
    if args.instance_families:
        add(
            "instance_families",
            _resources_of_values(
                "instance_families", args.instance_families, family_resource, issues
            ),
        )
    if args.instance_categories:
        add(
            "instance_categories",
            _resources_of_values(
                "instance_categories",
                args.instance_categories,
                _CATEGORY_RESOURCES.get,
                issues,
            ),
        )
    if args.gpu_manufacturers:
        if len(args.gpu_manufacturers) > 1:
            issues.append(
                Issue(
                    "gpu_manufacturers",
                    f"{args.gpu_manufacturers!r} mixes accelerator resources "
                    f"({', '.join(_GPU_MAKERS[m] for m in args.gpu_manufacturers)}); "
                    "use one pool per resource",
                )
            )
        add("gpu_manufacturers", frozenset(_GPU_MAKERS[m] for m in args.gpu_manufacturers))
    for path in ("gpu_count", "gpu_names"):
        if getattr(args, path) is not None:
            add(path, _ANY_GPU)
    for path in ("neuron_count", "neuron_names"):
        if getattr(args, path) is not None:
            add(path, frozenset({AWS_NEURON}))

    resources: frozenset[str] | None = None
    first = ""
    for path, allows in allowed:
        if resources is None:
            resources, first = allows, path
            continue
        if not resources & allows:
            issues.append(
                Issue(
                    path,
                    f"allows only {', '.join(sorted(allows))} instances but `{first}` allows "
                    f"only {', '.join(sorted(resources))}: no instance type satisfies both",
                )
            )
            return AcceleratorProfile()
        resources &= allows
    if resources is None:
        return AcceleratorProfile()
    # Only "any GPU" can be left open here (every other mix is reported above): the pool is
    # narrowed to NVIDIA so that its taint, limits and scheduling info hold for every node.
    narrow = len(resources) > 1
    resource = NVIDIA_GPU if narrow else next(iter(resources))
    counts, source, model = _per_instance_counts(args, resource, issues)
    return AcceleratorProfile(resource, counts, source, model, narrow)


def _per_instance_counts(
    args: KarpenterNodePoolArgs, resource: str, issues: list[Issue]
) -> tuple[tuple[int, ...], str, str]:
    by_type: dict[str, Accelerator] = {}
    if args.instance_types:
        found = {t: lookup_accelerator(t) for t in args.instance_types}
        if all(a is not None and a.resource == resource for a in found.values()):
            by_type = {t: a for t, a in found.items() if a is not None}
    count_field = "neuron_count" if resource == AWS_NEURON else "gpu_count"
    pinned_count = getattr(args, count_field)
    models = {a.model for a in by_type.values()}
    model = models.pop() if len(models) == 1 else ""
    if by_type:
        counts = sorted({a.count for a in by_type.values()})
        source = ", ".join(f"{t} has {a.count}" for t, a in sorted(by_type.items()))
        if pinned_count is not None:
            if pinned_count not in counts:
                issues.append(
                    Issue(
                        count_field,
                        f"{pinned_count} matches none of `instance_types` ({source})",
                    )
                )
            return (pinned_count,), f"`{count_field}` is {pinned_count}", model
        return tuple(counts), source, model
    if pinned_count is not None:
        return (pinned_count,), f"`{count_field}` is {pinned_count}", model
    return (), "", model
