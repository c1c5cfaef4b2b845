"""How many accelerators each instance of a Karpenter pool carries: what the count args or
the requirements on a count key admit, checked against the pinned instance types.

The count decides what a pod of the pool requests (the fewest any node has) and what its
accelerator limit must be a multiple of.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nodepools.specs.catalog.accelerators import AWS_NEURON, Accelerator, lookup_accelerator
from nodepools.specs.core.base import Issue
from nodepools.specs.karpenter.instance_requirements import InstanceRequirements
from nodepools.specs.karpenter.labels import GPU_COUNT_LABEL, NEURON_COUNT_LABEL


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


def count_range(
    args: InstanceRequirements, ranges: Mapping[str, CountRange], count_field: str
) -> CountRange | None:
    """What the count arg (an exact count) or the requirements on its key admit."""
    if count_field in ranges:
        return ranges[count_field]
    pinned: int | None = getattr(args, count_field)
    return None if pinned is None else CountRange(values=frozenset({pinned}))


def per_instance_counts(
    args: InstanceRequirements,
    resource: str,
    ranges: Mapping[str, CountRange],
    issues: list[Issue],
) -> tuple[tuple[int, ...], str, str]:
    """The counts of `resource` an instance of the pool may carry, where they come from (for
    messages) and the one model of the pinned types, if they share one; a count no pinned
    type has is reported."""
    by_type: dict[str, Accelerator] = {}
    if args.instance_types:
        found = {t: lookup_accelerator(t) for t in args.instance_types}
        if all(a is not None and a.resource == resource for a in found.values()):
            by_type = {t: a for t, a in found.items() if a is not None}
    count_field = "neuron_count" if resource == AWS_NEURON else "gpu_count"
    wanted = count_range(args, ranges, count_field)
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
