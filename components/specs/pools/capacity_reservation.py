"""Reserved capacity for a pool: EC2 Capacity Blocks for ML, On-Demand Capacity
Reservations, OCI capacity reservations (issue 14).

EKS: the pool's launch template targets the reservation (`capacity_reservation_specification`);
a Capacity Block also needs the market type `capacity-block`, the instance type in the launch
template and the node group's capacity type `CAPACITY_BLOCK` (EKS user guide, "Create a managed
node group with Capacity Blocks for ML"). OKE: each placement's `capacity_reservation_id`.
ROSA: refused (OCM machine pools take no reservation).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from nodepools.json_values import is_list
from nodepools.specs.core.base import PathError, SpecModel
from nodepools.specs.pools.network import cluster_subnets_problem
from pydantic import Field, model_validator

EC2_RESERVATION_ID = re.compile(r"^cr-[0-9a-f]{17}$")
OCI_RESERVATION_ID = re.compile(r"^ocid1\.capacityreservation\.[a-z0-9-]+\.[a-z0-9-]*\.[a-z0-9]+$")
RESOURCE_GROUP_ARN = re.compile(r"^arn:aws[a-z-]*:resource-groups:[a-z0-9-]+:\d{12}:group/[\w.-]+$")


class CapacityReservation(SpecModel):
    """The reserved capacity a pool's nodes launch into: exactly one of `ids` or
    `resource_group_arn`."""

    type: Literal["capacity_block", "on_demand"] = Field(
        description="`capacity_block`: an EC2 Capacity Block for ML (EKS only); `on_demand`: "
        "an On-Demand Capacity Reservation (EKS) or an OCI capacity reservation (OKE). "
        "Required."
    )
    ids: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Reservation ids: EKS one `cr-...` (a launch template targets one; group "
        "several in a resource group); OKE one `ocid1.capacityreservation...` per placement, "
        "or one for a single placement. Default None.",
    )
    resource_group_arn: str | None = Field(
        default=None,
        description="EKS On-Demand Capacity Reservations only: a capacity reservation "
        "resource group to launch into (`arn:aws:resource-groups:...:group/<name>`). "
        "Default None.",
    )

    @model_validator(mode="after")
    def _one_target(self) -> CapacityReservation:
        if (self.ids is None) == (self.resource_group_arn is None):
            raise ValueError(
                "give exactly one of `ids` or `resource_group_arn` (got ids "
                f"{self.ids!r} and resource_group_arn {self.resource_group_arn!r})"
            )
        if self.resource_group_arn is not None and not RESOURCE_GROUP_ARN.fullmatch(
            self.resource_group_arn
        ):
            raise PathError(
                "resource_group_arn",
                f"{self.resource_group_arn!r} is not a resource group ARN "
                "(arn:aws:resource-groups:<region>:<account>:group/<name>)",
            )
        if self.ids is not None and len(set(self.ids)) != len(self.ids):
            raise PathError("ids", f"{self.ids!r} lists a reservation twice")
        return self


def check_capacity_reservation(reservation: CapacityReservation, fields: dict[str, Any]) -> None:
    """Raise the first problem of `reservation` for a pool of `fields` (its other args, as
    validated so far), as a PathError below `capacity_reservation` or a ValueError at it."""
    cluster = fields.get("cluster")
    kind = getattr(cluster, "kind", None)
    if kind == "rosa":
        raise ValueError(
            "ROSA machine pools can't take `capacity_reservation`: OCM machine pools have no "
            "capacity reservation setting; remove it"
        )
    if fields.get("spot") is not None:
        raise ValueError(
            f"`spot` {fields['spot'].model_dump()!r} and `capacity_reservation` exclude each "
            "other: reserved capacity is on-demand capacity set aside for you, spot is spare "
            "capacity; set `spot: null` (GpuSpotPool turns spot on by default)"
        )
    if kind == "oke":
        _check_oke(reservation, cluster)
    elif kind == "eks":
        _check_eks(reservation, fields)


def _check_oke(reservation: CapacityReservation, cluster: Any) -> None:
    if reservation.type == "capacity_block":
        raise PathError(
            "type",
            "'capacity_block' is an EC2 purchase option; OCI capacity reservations are "
            "`on_demand` on OKE",
        )
    if reservation.resource_group_arn is not None:
        raise PathError(
            "resource_group_arn",
            f"{reservation.resource_group_arn!r} is an AWS resource group; OKE takes OCI "
            "capacity reservation OCIDs in `ids`",
        )
    ids = reservation.ids or []
    for index, found in enumerate(ids):
        if not OCI_RESERVATION_ID.fullmatch(found):
            raise PathError(
                f"ids[{index}]",
                f"{found!r} is not an OCI capacity reservation OCID (ocid1.capacityreservation...)",
            )
    placements = getattr(cluster, "placements", None)
    if is_list(placements) and len(ids) != len(placements):
        raise PathError(
            "ids",
            f"{ids!r}: an OCI capacity reservation holds capacity in one availability domain, "
            f"so give one id per `cluster.placements` entry ({len(placements)}), in their order",
        )


def _check_eks(reservation: CapacityReservation, fields: dict[str, Any]) -> None:
    for index, found in enumerate(reservation.ids or []):
        if not EC2_RESERVATION_ID.fullmatch(found):
            raise PathError(
                f"ids[{index}]",
                f"{found!r} is not an EC2 capacity reservation id (`cr-` and 17 hex digits)",
            )
    if reservation.ids is not None and len(reservation.ids) > 1:
        raise PathError(
            "ids",
            f"{reservation.ids!r}: a launch template targets one capacity reservation; put "
            "them in a capacity reservation resource group and give `resource_group_arn`",
        )
    if reservation.type != "capacity_block":
        if reservation.ids is not None and fields.get("instance_types"):
            raise PathError(
                "ids",
                f"{reservation.ids!r} reserves one instance type, so the other types of "
                f"`instance_types` {fields['instance_types']!r} can't launch into it; give "
                "`instance_type`, or a resource group of reservations (`resource_group_arn`)",
            )
        return
    if reservation.resource_group_arn is not None:
        raise PathError(
            "resource_group_arn",
            "a Capacity Block is targeted by its reservation id (`ids`), not by a resource "
            f"group ({reservation.resource_group_arn!r})",
        )
    if fields.get("instance_types"):
        raise ValueError(
            f"`instance_types` {fields['instance_types']!r} can't use a Capacity Block: it "
            "reserves one instance type, which EKS takes from the launch template (the node "
            "group then names none); give `instance_type`"
        )
    replicas, scaling, size = fields.get("replicas"), fields.get("autoscaling"), fields.get("size")
    if size is not None:  # a SharedNodePool: fixed at `size` nodes
        minimum, where = size, "`size`"
    elif replicas is not None:
        minimum, where = replicas, "`replicas`"
    else:
        minimum, where = getattr(scaling, "min_replicas", 0), "`autoscaling.min_replicas`"
    if minimum:
        raise ValueError(
            f"{where} {minimum!r} can't be used with a Capacity Block: its instances exist only "
            "inside the block's window (EC2 terminates them 30 minutes before it ends) and EKS "
            "updates such a node group only at desired size 0; use `autoscaling` with "
            "`min_replicas: 0` and scale up while the block is active"
        )
    if problem := cluster_subnets_problem(
        fields.get("cluster"), fields.get("network"), "a Capacity Block"
    ):
        raise ValueError(problem)
