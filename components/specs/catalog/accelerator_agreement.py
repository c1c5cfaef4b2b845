"""Whether a pool's declared `accelerator` agrees with what the catalog knows its instance
types carry: the same resource, maker and count per node.

A pool that promises accelerators its instances lack gets GPU AMIs, accelerator taints and
scale-from-zero tags offering devices that never appear, so pods asking for them wait
forever. A type the catalog does not know is not checked (it may be new: the pool warns
instead, and its `accelerator` is taken as given).
"""

from __future__ import annotations

from nodepools.specs.catalog.accelerators import Accelerator
from nodepools.specs.catalog.instance_types import (
    CatalogAccelerator,
    accelerated_family,
    instance_type,
)
from nodepools.specs.core.base import Issue


def describe(accelerator: CatalogAccelerator) -> str:
    """`1 NVIDIA A10G (nvidia.com/gpu)`, for messages."""
    model = f" {accelerator.model}" if accelerator.model else ""
    return f"{accelerator.count} {accelerator.vendor}{model} (`{accelerator.resource}`)"


def _declared(accelerator: Accelerator) -> str:
    return repr(accelerator.model_dump(exclude_unset=True))


def declared_accelerator_issues(names: list[str], accelerator: Accelerator) -> list[Issue]:
    """Every way the declared `accelerator` disagrees with the catalog's record of `names`
    (one type, or every type of a mix), each at its path below `accelerator`. Types the
    catalog does not know are left out."""
    # An accelerated family's type without a recorded accelerator (dl2q: Qualcomm AI 100)
    # is as unknown as a type the catalog lacks: its `accelerator` is what it has.
    known = {
        name: entry
        for name in names
        if (entry := instance_type(name)) is not None
        and (entry.accelerator is not None or not accelerated_family(name))
    }
    if not known:
        return []
    cpu_only = [name for name, entry in known.items() if entry.accelerator is None]
    if cpu_only:
        listed = ", ".join(repr(name) for name in cpu_only)
        return [
            Issue(
                "accelerator",
                f"{_declared(accelerator)} can't be used: {listed} "
                f"{'has' if len(cpu_only) == 1 else 'have'} no accelerators (instance "
                f"catalog), so no node would advertise `{accelerator.resource}`; remove "
                "`accelerator`, or use an instance type that has them",
            )
        ]
    carried = {name: entry.accelerator for name, entry in known.items() if entry.accelerator}
    what = "; ".join(f"{name} has {describe(found)}" for name, found in sorted(carried.items()))
    issues: list[Issue] = []
    if any(found.resource != accelerator.resource for found in carried.values()):
        issues.append(
            Issue(
                "accelerator.resource",
                f"{accelerator.resource!r} is not what the pool's instances carry ({what}); "
                "give the catalog's resource, or leave `accelerator` out",
            )
        )
    if "vendor" in accelerator.model_fields_set and any(
        found.vendor != accelerator.vendor for found in carried.values()
    ):
        issues.append(
            Issue(
                "accelerator.vendor",
                f"{accelerator.vendor!r} is not the maker of the pool's accelerators ({what})",
            )
        )
    # A mix promises what every type has at least (the fewest), as it does undeclared.
    fewest = min(found.count for found in carried.values())
    if accelerator.count != fewest:
        every = "every type of the mix has at least" if len(carried) > 1 else "a node has"
        issues.append(
            Issue(
                "accelerator.count",
                f"{accelerator.count} is not the {fewest} {every} ({what}): the pool would "
                "promise devices no node advertises (or hide some it has); give "
                f"{fewest}, or leave `accelerator` out",
            )
        )
    return issues


def advertised_resource_problem(shape: str, resource: str | None, count: int | None) -> str | None:
    """Why a shared pool of `shape` can't advertise `count` of `resource` (a description of
    a pool made elsewhere): accelerators on a type the catalog knows has none, or a resource
    of another maker than the type's (device software may cut GPUs into MIG slices or
    time-slice them, so only the maker's domain is compared, not the name or count)."""
    entry = instance_type(shape)
    if entry is None or not (resource or count):
        return None
    if entry.accelerator is None and accelerated_family(shape):
        return None  # an accelerator the catalog has no record of
    if entry.accelerator is None:
        given = f"`{resource}`" if resource else f"{count} accelerators"
        return (
            f"{given} can't be advertised by {shape!r}: it has no accelerators (instance "
            "catalog); remove them, or check the shape"
        )
    domain = entry.accelerator.resource.split("/", 1)[0]
    if resource and resource.split("/", 1)[0] != domain:
        return (
            f"`{resource}` can't be advertised by {shape!r}: its accelerators are "
            f"{describe(entry.accelerator)}, advertised as `{domain}/...` resources"
        )
    return None


def with_catalog_facts(
    declared: Accelerator | None, catalog: Accelerator | None
) -> Accelerator | None:
    """The pool's accelerator: the declared one with what it leaves out (maker, model,
    memory) taken from the catalog's, when both name the same resource; else whichever is
    given (a declared one wins). Device software serves accelerators by maker, so a
    declared `{resource: nvidia.com/gpu, count: 8}` must not lose the catalog's `nvidia`."""
    if declared is None or catalog is None or declared.resource != catalog.resource:
        return declared or catalog
    missing = {
        name: getattr(catalog, name)
        for name in ("vendor", "model", "memory_mib")
        if name not in declared.model_fields_set
    }
    return declared.model_copy(update=missing) if missing else declared
