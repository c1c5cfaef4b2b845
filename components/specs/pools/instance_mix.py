"""A pool of several instance types (`instance_types`, EKS only): what a mix must share, and
which of its types stands for the pool.

The node group may launch any type of the mix, so the pool promises only what every type
has: its scheduling info, autoscaler tags and checks use the mix's weakest type (fewest
accelerators, then least memory), and its accelerators are what every type has at least.
"""

from __future__ import annotations

from typing import Any, cast

from nodepools.specs.catalog.accelerators import Accelerator, lookup_accelerator
from nodepools.specs.catalog.instance_checks import instance_type_problem
from nodepools.specs.catalog.instance_types import architecture, instance_type
from nodepools.specs.core.base import Issue


def mix_issues(names: list[str], cluster: Any) -> list[Issue]:
    """What is wrong with `names` as one pool's types on `cluster` (a cloud that takes a
    mix: see `ClusterCapabilities.refused`), each at its path below `instance_types`."""
    if len(set(names)) != len(names):
        return [Issue("instance_types", f"{names!r} lists a type twice")]
    issues: list[Issue] = []
    for index, name in enumerate(names):
        path = f"instance_types[{index}]"
        if problem := instance_type_problem(name, cluster):
            issues.append(Issue(path, problem))
        elif instance_type(name) is None:
            issues.append(
                Issue(
                    path,
                    f"{name!r} is not in the instance catalog; a mix needs every type's "
                    "accelerators and memory to find its smallest (use `instance_type` "
                    "for a type outside the catalog)",
                )
            )
    if issues:
        return issues
    arches = {name: architecture(name) for name in names}
    if len(set(arches.values())) > 1:
        issues.append(
            Issue(
                "instance_types",
                f"the types of a pool must share one CPU architecture: {arches!r}",
            )
        )
    resources = {
        name: (found.resource if (found := lookup_accelerator(name)) else None) for name in names
    }
    if len(set(resources.values())) > 1:
        issues.append(
            Issue(
                "instance_types",
                f"the types of a pool must share one accelerator resource: {resources!r}",
            )
        )
    return issues


def smallest_of_mix(names: Any) -> str | None:
    """The type of an `instance_types` mix with the fewest accelerators, then least memory
    (then fewest vCPUs, then name); None when a name is not a catalog type."""
    if not isinstance(names, list) or not names:
        return None
    keys: list[tuple[int, int, int, str]] = []
    for name in cast("list[object]", names):
        found = instance_type(name)
        if found is None:
            return None
        count = found.accelerator.count if found.accelerator else 0
        keys.append((count, found.memory_mib or 0, found.vcpus or 0, found.name))
    return min(keys)[3]


def mix_accelerator(names: tuple[str, ...] | list[str]) -> Accelerator | None:
    """The accelerators every type of a mix has at least: the fewest, the least memory per
    accelerator, and the model only when all types share it (a node-group label names it)."""
    found = [lookup_accelerator(name) for name in names]
    present = [a for a in found if a is not None]
    if not present or len(present) != len(found):
        return None
    memories = [a.memory_mib for a in present]
    known = [m for m in memories if m is not None]
    return present[0].model_copy(
        update={
            "count": min(a.count for a in present),
            "vendor": present[0].vendor if len({a.vendor for a in present}) == 1 else "other",
            "model": present[0].model if len({a.model for a in present}) == 1 else "",
            "memory_mib": min(known) if len(known) == len(memories) else None,
        }
    )
