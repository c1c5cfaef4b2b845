"""Which accelerator a Karpenter pool launches, derived from its requirements.

A NodePool does not name an instance type; it constrains them. The pool is
"accelerator-only" when its requirements (ANDed by Karpenter) leave only instances with one
kind of accelerator: then it gets the accelerator defaults (taint, consolidation) and its
scheduling info requests that accelerator. Requirements that contradict each other or mix
accelerator resources are errors, since no taint or limit could describe such a pool.

A pool "can launch" an accelerator when one of its instance requirements lists a value
whose instances carry it (`instance_families: [g5, m5]` can launch `nvidia.com/gpu`), the
notion the policy pack applies to a rendered NodePool (`nodepools.policies.karpenter_pools`); such a pool
must be isolated and bounded like an accelerator-only one (see `resolve_karpenter_pool`).
A pool with no instance requirement at all is general purpose for both: it is not taken
to launch accelerators, although Karpenter would launch one for a pod that asks for it.

What each requirement value stands for is in `instance_requirements`, the accelerators per
instance in `accelerator_counts`, and requirements no instance meets together in `checks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from nodepools.specs.catalog.accelerators import AMD_GPU, AWS_NEURON, NVIDIA_GPU
from nodepools.specs.core.base import Issue
from nodepools.specs.karpenter.accelerator_counts import (
    CountRange,
    count_range,
    per_instance_counts,
)
from nodepools.specs.karpenter.checks import fractional_gpu_issues, unsatisfiable_issues
from nodepools.specs.karpenter.instance_requirements import (
    ANY_GPU,
    CATEGORY_RESOURCES,
    GPU_MAKERS,
    INSTANCE_FIELDS,
    InstanceRequirements,
    known_family_resource,
    name_resources,
    type_resources,
)


@dataclass(frozen=True)
class AcceleratorProfile:
    """What every node of the pool carries, derived from its requirements."""

    resource: str | None = None  # None unless every launchable instance has this accelerator
    counts: tuple[int, ...] = ()  # the possible per-instance counts, when known
    counts_source: str = ""  # for messages: where the counts come from
    model: str = ""
    narrow_to_nvidia: bool = False  # add `instance-gpu-manufacturer In [nvidia]`
    # A pool that is not accelerator-only but whose instance requirements list accelerator
    # values next to CPU-only ones: the resource those values carry, and where they are.
    mixed_resource: str | None = None
    mixed_values: MixedValues | None = None

    @property
    def accelerator_only(self) -> bool:
        return self.resource is not None

    @property
    def launchable(self) -> str | None:
        """The accelerator resource some node of the pool may carry, or None (CPU only, or
        unconstrained)."""
        return self.resource or self.mixed_resource


@dataclass(frozen=True)
class MixedValues:
    """The values of one instance requirement, split by what their instances carry."""

    path: str
    values: tuple[str, ...]
    accelerated: dict[str, frozenset[str]]
    cpu_only: tuple[str, ...]

    @property
    def kind(self) -> str:
        return self.path.removeprefix("instance_")  # "types", "families", "categories"

    def describe(self) -> str:
        """`g5 (nvidia.com/gpu)` as well as CPU-only ones (`m5`), for messages."""
        listed = ", ".join(
            f"{value} ({', '.join(sorted(resources))})"
            for value, resources in sorted(self.accelerated.items())
        )
        if not self.cpu_only:
            return listed
        return f"{listed} as well as CPU-only ones ({', '.join(self.cpu_only)})"


def _resources_of_values(
    path: str, values: Iterable[str], resource_of: Any, issues: list[Issue]
) -> frozenset[str] | None:
    """The resources the values of one requirement allow; None if a CPU value is among them."""
    per_value = {value: resource_of(value) for value in values}
    if any(resources is None for resources in per_value.values()):
        return None
    pinned = {v: next(iter(r)) for v, r in per_value.items() if len(r) == 1}
    union = frozenset[str]().union(*per_value.values())
    if len(set(pinned.values())) > 1 or (AWS_NEURON in union and union & ANY_GPU):
        listed = ", ".join(f"{v} ({', '.join(sorted(r))})" for v, r in sorted(per_value.items()))
        issues.append(
            Issue(path, f"mixes accelerator resources: {listed}; use one pool per resource")
        )
        return None
    return union


def accelerator_profile(
    args: InstanceRequirements,
    issues: list[Issue],
    ranges: Mapping[str, CountRange] | None = None,
) -> AcceleratorProfile:
    """Intersect what each requirement allows; report mixes and contradictions. `ranges`:
    what the requirements on a count key admit, by count arg (`gpu_count`, `neuron_count`),
    for counts said by requirements rather than by the arg."""
    reported = len(issues)
    if fractional := fractional_gpu_issues(args):
        issues.extend(fractional)
        return AcceleratorProfile()
    profile = _profile(args, ranges or {}, issues)
    # Values each rule accepts may still exclude each other; said once the rules pass.
    if len(issues) == reported and (contradictions := unsatisfiable_issues(args)):
        issues.extend(contradictions)
        return AcceleratorProfile()
    return profile


def _profile(
    args: InstanceRequirements, ranges: Mapping[str, CountRange], issues: list[Issue]
) -> AcceleratorProfile:
    allowed: list[tuple[str, frozenset[str]]] = []
    reported = len(issues)

    def add(path: str, resources: frozenset[str] | None) -> None:
        if resources is not None:
            allowed.append((path, resources))

    if args.instance_types:
        add(
            "instance_types",
            _resources_of_values("instance_types", args.instance_types, type_resources, issues),
        )
    if args.instance_families:
        add(
            "instance_families",
            _resources_of_values(
                "instance_families", args.instance_families, known_family_resource, issues
            ),
        )
    if args.instance_categories:
        add(
            "instance_categories",
            _resources_of_values(
                "instance_categories",
                args.instance_categories,
                CATEGORY_RESOURCES.get,
                issues,
            ),
        )
    if args.gpu_manufacturers:
        if len(args.gpu_manufacturers) > 1:
            issues.append(
                Issue(
                    "gpu_manufacturers",
                    f"{args.gpu_manufacturers!r} mixes accelerator resources "
                    f"({', '.join(GPU_MAKERS[m] for m in args.gpu_manufacturers)}); "
                    "use one pool per resource",
                )
            )
        add("gpu_manufacturers", frozenset(GPU_MAKERS[m] for m in args.gpu_manufacturers))
    if count_range(args, ranges, "gpu_count") is not None:
        add("gpu_count", ANY_GPU)
    if args.gpu_names is not None and args.gpu_manufacturers:
        # The maker is said; names it excludes are reported by `unsatisfiable_issues`.
        add("gpu_names", ANY_GPU)
    elif args.gpu_names is not None:
        # Names of both makers are a mix no taint or request could describe (reported).
        by_name = _resources_of_values("gpu_names", args.gpu_names, name_resources, issues)
        if by_name is not None:
            # Names the catalog knows as AMD's (`radeon-pro-v520`) make an AMD pool; NVIDIA
            # or unknown names leave "any GPU", narrowed to NVIDIA below as always.
            add("gpu_names", by_name if by_name == frozenset({AMD_GPU}) else ANY_GPU)
    if count_range(args, ranges, "neuron_count") is not None:
        add("neuron_count", frozenset({AWS_NEURON}))
    if args.neuron_names is not None:
        add("neuron_names", frozenset({AWS_NEURON}))

    resources: frozenset[str] | None = None
    first = ""
    for path, allows in allowed:
        if resources is None:
            resources, first = allows, path
            continue
        if not resources & allows:
            value = getattr(args, path)
            said = (
                f"{ranges[path].describe()} "
                if path in ranges
                else ("" if value is None else f"{value!r} ")
            )
            issues.append(
                Issue(
                    path,
                    f"{said}allows only {', '.join(sorted(allows))} instances but `{first}` "
                    f"allows only {', '.join(sorted(resources))}: no instance type satisfies both",
                )
            )
            return AcceleratorProfile()
        resources &= allows
    if resources is None:
        # A mix within one requirement is reported already, with its own message.
        return _mixed_profile(args, issues) if len(issues) == reported else AcceleratorProfile()
    # Only "any GPU" can be left open here (every other mix is reported above): the pool is
    # narrowed to NVIDIA so that its taint, limits and scheduling info hold for every node.
    narrow = len(resources) > 1
    resource = NVIDIA_GPU if narrow else next(iter(resources))
    _unreachable_values(args, resource, first, issues)
    counts, source, model = per_instance_counts(args, resource, ranges, issues)
    return AcceleratorProfile(resource, counts, source, model, narrow)


def _split_values(args: InstanceRequirements) -> list[MixedValues]:
    """Each instance requirement's values, split into accelerator ones and CPU-only ones."""
    found: list[MixedValues] = []
    for path, resource_of in INSTANCE_FIELDS:
        values: list[str] = getattr(args, path) or []
        accelerated = {v: r for v in values if (r := resource_of(v))}
        cpu_only = tuple(v for v in values if v not in accelerated)
        if accelerated:
            found.append(MixedValues(path, tuple(values), accelerated, cpu_only))
    return found


def _unreachable_values(
    args: InstanceRequirements, resource: str, decided_by: str, issues: list[Issue]
) -> None:
    """Accelerator values another requirement excludes: dead, and read by the policy pack
    as accelerators the pool can launch (so they would need a taint and a limit too)."""
    for split in _split_values(args):
        dead = sorted(v for v, r in split.accelerated.items() if resource not in r)
        if dead:
            listed = ", ".join(f"{v} ({', '.join(sorted(split.accelerated[v]))})" for v in dead)
            issues.append(
                Issue(
                    split.path,
                    f"lists {listed}, which `{decided_by}` excludes (the pool only launches "
                    f"{resource} instances); remove {', '.join(repr(v) for v in dead)}",
                )
            )


def _mixed_profile(args: InstanceRequirements, issues: list[Issue]) -> AcceleratorProfile:
    """A pool that is not accelerator-only: the accelerator it can still launch, if any."""
    splits = _split_values(args)
    if not splits:
        return AcceleratorProfile()
    launchable = frozenset[str]().union(*(r for s in splits for r in s.accelerated.values()))
    if len(launchable) > 1:
        for split in splits:
            issues.append(
                Issue(
                    split.path,
                    f"{list(split.values)!r} lets the pool launch "
                    f"{' and '.join(sorted(launchable))} instances: {split.describe()}; a "
                    "pool's taint and limits name one accelerator resource, so list "
                    f"{split.kind} of one accelerator (e.g. `instance_families: [g5, m5]`), "
                    "one pool per accelerator",
                )
            )
        return AcceleratorProfile()
    return AcceleratorProfile(mixed_resource=next(iter(launchable)), mixed_values=splits[0])
