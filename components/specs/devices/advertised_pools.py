"""Pool descriptions as recipes and quotas see them once the device software runs: a pool
whose GPUs are cut into MIG slices or time-sliced advertises another resource, or more of
it, than its hardware has (`AcceleratorStack.advertised`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only SharedNodePool's stacks load its specs
    from nodepools.specs.pools.shared import SharedPoolDescription


@dataclass(frozen=True)
class AdvertisedPool:
    """What one node of a pool advertises (`resource`, `count`) against what it has."""

    resource: str
    count: int
    hardware_resource: str
    hardware_count: int

    @property
    def changed(self) -> bool:
        return (self.resource, self.count) != (self.hardware_resource, self.hardware_count)


def advertise_shared(
    description: SharedPoolDescription, advertised: AdvertisedPool | None
) -> SharedPoolDescription:
    """A SharedNodePool's description for recipes, in the resource its nodes advertise."""
    if advertised is None or not advertised.changed:
        return description
    return description.model_copy(
        update={"gpus_per_node": advertised.count, "accelerator_resource": advertised.resource}
    )


def advertise_governed(
    description: dict[str, Any], advertised: AdvertisedPool | None
) -> dict[str, Any]:
    """A governed pool's description for quotas, in the resource its nodes advertise: its
    accelerators (hardware units) counted in advertised units."""
    if advertised is None or not advertised.changed:
        return description
    if description.get("gpu_resource") != advertised.hardware_resource:
        return description
    per_unit = advertised.count // advertised.hardware_count
    out = {**description, "gpu_resource": advertised.resource}
    out["gpus"] = int(description.get("gpus") or 0) * per_unit
    if description.get("gpus_per_node") is not None:
        out["gpus_per_node"] = int(description["gpus_per_node"]) * per_unit
    return out
