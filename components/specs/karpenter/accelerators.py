"""Which accelerator a Karpenter pool launches, derived from its requirements.

A NodePool does not name an instance type; it constrains them. The pool is
"accelerator-only" when its requirements (ANDed by Karpenter) leave only instances with one
kind of accelerator: then it gets the accelerator defaults (taint, consolidation) and its
scheduling info requests that accelerator. Requirements that contradict each other or mix
accelerator resources are errors, since no taint or limit could describe such a pool.

A pool "can launch" an accelerator when one of its instance requirements lists a value
whose instances carry it (`instance_families: [g5, m5]` can launch `nvidia.com/gpu`), the
notion the policy pack applies to a rendered NodePool (`nodepools.policies.resources`); such a pool
must be isolated and bounded like an accelerator-only one (see `resolve_karpenter_pool`).
A pool with no instance requirement at all is general purpose for both: it is not taken
to launch accelerators, although Karpenter would launch one for a pod that asks for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from nodepools.specs.catalog.accelerators import (
    AMD_GPU,
    AWS_NEURON,
    CATALOG,
    NVIDIA_GPU,
    Accelerator,
    lookup_accelerator,
)
from nodepools.specs.catalog.instance_types import catalog_names, instance_type
from nodepools.specs.core.base import Issue
from nodepools.specs.karpenter.labels import GPU_COUNT_LABEL, NEURON_COUNT_LABEL


class InstanceRequirements(Protocol):
    """The instance requirements of a Karpenter pool's args that decide its accelerator.

    A protocol rather than the args model itself, so this module needs nothing from
    `specs.karpenter_args` (which imports it)."""

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


@dataclass(frozen=True)
class CountRange:
    """The devices per instance a pool's requirements on a count key admit
    (`karpenter.k8s.aws/instance-gpu-count`, `instance-accelerator-count`): listed values
    (`In`), integer bounds (`Gt`, `Gte`, `Lt`, `Lte`; `Exists` is at least 1), or both.
    Only one admitted value is an exact count; bounds say which counts are possible, not
    which one a node has."""

    values: frozenset[int] | None = None  # `In`: only these; None: any within the bounds
    low: int = 0  # inclusive
    high: int | None = None  # inclusive; None: no upper bound

    def admits(self, count: int) -> bool:
        return (
            (self.values is None or count in self.values)
            and count >= self.low
            and (self.high is None or count <= self.high)
        )

    @property
    def admitted(self) -> tuple[int, ...] | None:
        """Every admitted count, when `In` lists them (None: bounds only, unknown set)."""
        if self.values is None:
            return None
        return tuple(sorted(v for v in self.values if self.admits(v)))

    @property
    def least(self) -> int:
        """The fewest devices an admitted instance has (0: instances without any too)."""
        admitted = self.admitted
        if admitted is None:
            return self.low
        return admitted[0] if admitted else 0

    @property
    def exact(self) -> int | None:
        """The one count admitted, if only one is."""
        admitted = self.admitted
        if admitted is not None:
            return admitted[0] if len(admitted) == 1 else None
        return self.low if self.high == self.low else None

    def describe(self) -> str:
        """`4`, `a count of one of [2, 4]`, `a count of at least 5`: for messages."""
        admitted = self.admitted
        if self.exact is not None:
            return str(self.exact)
        if admitted is not None:
            return f"a count of one of {list(admitted)}"
        if self.high is None:
            return f"a count of at least {self.low}"
        return f"a count of {self.low} to {self.high}"


# The count arg of each accelerator kind, and the requirement key it is written as.
_COUNT_LABELS = {"gpu_count": GPU_COUNT_LABEL, "neuron_count": NEURON_COUNT_LABEL}


def _count_range(
    args: InstanceRequirements, ranges: Mapping[str, CountRange], count_field: str
) -> CountRange | None:
    """What the count arg (an exact count) or the requirements on its key admit."""
    if count_field in ranges:
        return ranges[count_field]
    pinned: int | None = getattr(args, count_field)
    return None if pinned is None else CountRange(values=frozenset({pinned}))


def _resources_of_values(
    path: str, values: Iterable[str], resource_of: Any, issues: list[Issue]
) -> frozenset[str] | None:
    """The resources the values of one requirement allow; None if a CPU value is among them."""
    per_value = {value: resource_of(value) for value in values}
    if any(resources is None for resources in per_value.values()):
        return None
    pinned = {v: next(iter(r)) for v, r in per_value.items() if len(r) == 1}
    union = frozenset[str]().union(*per_value.values())
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


# The instance requirements, and the accelerator resources each of their values carries.
_INSTANCE_FIELDS: tuple[tuple[str, Any], ...] = (
    ("instance_types", _type_resources),
    ("instance_families", family_resource),
    ("instance_categories", _CATEGORY_RESOURCES.get),
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
_GPU_NAME_MAKERS: dict[str, str] = {
    gpu_label_name(accelerator.model): maker
    for accelerator in CATALOG.values()
    if accelerator.model
    for maker, resource in _GPU_MAKERS.items()
    if accelerator.resource == resource
}


def _name_resources(name: str) -> frozenset[str]:
    """The GPU resource instances whose `instance-gpu-name` is `name` carry: its maker's,
    or either GPU for a name the catalog does not know."""
    maker = _GPU_NAME_MAKERS.get(name)
    return _ANY_GPU if maker is None else frozenset({_GPU_MAKERS[maker]})


def _family_of(instance_type: str) -> str:
    return instance_type.split(".", 1)[0]


def _category_of(family: str) -> str | None:
    found = _FAMILY.match(family)
    return found["category"] if found else None


# `kubernetes.io/arch` (what `architectures` lists) of the catalog's EC2 architectures.
_KUBERNETES_ARCH = {"x86_64": "amd64", "arm64": "arm64"}


def _is_ec2(name: str) -> bool:
    return not name.startswith(("VM.", "BM."))  # OCI shapes are the catalog's other names


def _type_arches(name: str) -> frozenset[str] | None:
    """The `kubernetes.io/arch` of a catalog EC2 type, or None when the catalog lacks it."""
    info = instance_type(name)
    if info is None or info.cloud != "aws":
        return None
    return frozenset({_KUBERNETES_ARCH[info.arch]})


@cache
def _family_arch_table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for name in catalog_names():
        if _is_ec2(name) and (arches := _type_arches(name)) is not None:
            table.setdefault(_family_of(name), set()).update(arches)
    return {family: frozenset(arches) for family, arches in table.items()}


def _family_arches(family: str) -> frozenset[str] | None:
    """The `kubernetes.io/arch` values of an EC2 family's catalog types (None: unknown)."""
    return _family_arch_table().get(family)


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
        ("instance_types", types, _type_arches),
        ("instance_families", families, _family_arches),
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


# Fractional-GPU EC2 types (g6f, gr6f): the catalog names their model with its NVIDIA vGPU
# profile (`L4-3Q`, scripts/instance_catalog.py AWS_FRACTIONAL).
_VGPU_PROFILE = re.compile(r"-\d+q$")


@cache
def _fractional_gpu_types() -> dict[str, str]:
    """Fractional-GPU type -> its catalog model."""
    return {
        name: accelerator.model
        for name, accelerator in CATALOG.items()
        if _is_ec2(name) and _VGPU_PROFILE.search(accelerator.model.lower())
    }


@cache
def _fractional_gpu_families() -> frozenset[str]:
    """Families whose every catalog type has a fractional GPU."""
    fractional = _fractional_gpu_types()
    families = {_family_of(name) for name in fractional}
    return frozenset(
        family
        for family in families
        if all(
            name in fractional
            for name in catalog_names()
            if _is_ec2(name) and _family_of(name) == family
        )
    )


def fractional_gpu_issues(args: InstanceRequirements) -> list[Issue]:
    """Fractional-GPU types and families are refused: EC2 reports their GPU count as 0, and
    Karpenter (v1.14.1 `nvidiaGPUs()` sums it) offers 0 `nvidia.com/gpu` on them, so it never
    launches one for a pod requesting a GPU (aws/karpenter-provider-aws#8368, open)."""
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
    types = _fractional_gpu_types()
    if found := sorted(t for t in pinned_types if t in types):
        listed = ", ".join(f"{t}: {types[t]}" for t in found)
        issues.append(Issue("instance_types", f"{found!r} carry fractional GPUs ({listed}); {why}"))
    families = _fractional_gpu_families()
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
        _family_of,
    )
    exclusive(
        "instance_types",
        args.instance_types,
        "instance_categories",
        args.instance_categories,
        lambda value: _category_of(_family_of(value)),
    )
    exclusive(
        "instance_families",
        args.instance_families,
        "instance_categories",
        args.instance_categories,
        _category_of,
    )
    names: list[str] = list(args.gpu_names or [])
    makers: list[str] = list(args.gpu_manufacturers or [])
    known = {name: _GPU_NAME_MAKERS[name] for name in names if name in _GPU_NAME_MAKERS}
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
    return issues


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
    if _count_range(args, ranges, "gpu_count") is not None:
        add("gpu_count", _ANY_GPU)
    if args.gpu_names is not None and args.gpu_manufacturers:
        # The maker is said; names it excludes are reported by `unsatisfiable_issues`.
        add("gpu_names", _ANY_GPU)
    elif args.gpu_names is not None:
        # Names of both makers are a mix no taint or request could describe (reported).
        by_name = _resources_of_values("gpu_names", args.gpu_names, _name_resources, issues)
        if by_name is not None:
            # Names the catalog knows as AMD's (`radeon-pro-v520`) make an AMD pool; NVIDIA
            # or unknown names leave "any GPU", narrowed to NVIDIA below as always.
            add("gpu_names", by_name if by_name == frozenset({AMD_GPU}) else _ANY_GPU)
    if _count_range(args, ranges, "neuron_count") is not None:
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
        # A mix within one requirement is reported already, with its own message.
        return _mixed_profile(args, issues) if len(issues) == reported else AcceleratorProfile()
    # Only "any GPU" can be left open here (every other mix is reported above): the pool is
    # narrowed to NVIDIA so that its taint, limits and scheduling info hold for every node.
    narrow = len(resources) > 1
    resource = NVIDIA_GPU if narrow else next(iter(resources))
    _unreachable_values(args, resource, first, issues)
    counts, source, model = _per_instance_counts(args, resource, ranges, issues)
    return AcceleratorProfile(resource, counts, source, model, narrow)


def _split_values(args: InstanceRequirements) -> list[MixedValues]:
    """Each instance requirement's values, split into accelerator ones and CPU-only ones."""
    found: list[MixedValues] = []
    for path, resource_of in _INSTANCE_FIELDS:
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


def _per_instance_counts(
    args: InstanceRequirements,
    resource: str,
    ranges: Mapping[str, CountRange],
    issues: list[Issue],
) -> tuple[tuple[int, ...], str, str]:
    by_type: dict[str, Accelerator] = {}
    if args.instance_types:
        found = {t: lookup_accelerator(t) for t in args.instance_types}
        if all(a is not None and a.resource == resource for a in found.values()):
            by_type = {t: a for t, a in found.items() if a is not None}
    count_field = "neuron_count" if resource == AWS_NEURON else "gpu_count"
    wanted = _count_range(args, ranges, count_field)
    exact = None if wanted is None else wanted.exact
    if wanted is not None and by_type:
        source = ", ".join(f"{t} has {a.count}" for t, a in sorted(by_type.items()))
        if not any(wanted.admits(a.count) for a in by_type.values()):
            issues.append(
                Issue(
                    count_field, f"{wanted.describe()} matches none of `instance_types` ({source})"
                )
            )
        elif exact is None:
            # Bounds or several values keep the pinned types that have an admitted count.
            by_type = {t: a for t, a in by_type.items() if wanted.admits(a.count)}
    models = {a.model for a in by_type.values()}
    model = models.pop() if len(models) == 1 else ""
    if exact is not None:
        return (exact,), f"`{count_field}` is {exact}", model
    if by_type:
        counts = sorted({a.count for a in by_type.values()})
        source = ", ".join(f"{t} has {a.count}" for t, a in sorted(by_type.items()))
        return tuple(counts), source, model
    admitted = None if wanted is None else wanted.admitted
    if admitted:
        # Several listed counts: the node has one of them, which one is not known.
        return admitted, f"{_COUNT_LABELS[count_field]} is one of {list(admitted)}", model
    # Bounds only (`Gt 1`): which counts the instances have is not known here.
    return (), "", model
