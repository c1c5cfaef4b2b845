"""Reserved capacity for a pool: EC2 Capacity Blocks for ML, On-Demand Capacity
Reservations, OCI capacity reservations.

EKS: the pool's launch template targets the reservation (`capacity_reservation_specification`);
a Capacity Block also needs the market type `capacity-block`, the instance type in the launch
template and the node group's capacity type `CAPACITY_BLOCK` (EKS user guide, "Create a managed
node group with Capacity Blocks for ML"). OKE: each placement's `capacity_reservation_id`.
ROSA: refused (OCM machine pools take no reservation).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from nodepools.json_values import is_list
from nodepools.specs.core.base import Issue, PathError, SpecModel
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


def reservation_issues(
    reservation: CapacityReservation,
    system: Literal["ec2", "oci"] | None,
    fields: Mapping[str, Any],
) -> list[Issue]:
    """What is wrong with `reservation` for a pool of `fields` (its other args) whose cloud
    takes `system`'s reservations (None: unknown, only the rules of every cloud), each at
    its path below `capacity_reservation`."""
    issues: list[Issue] = []
    spot = fields.get("spot")
    if spot is not None:
        issues.append(
            Issue(
                "capacity_reservation",
                f"`spot` {spot.model_dump()!r} and `capacity_reservation` exclude each other: "
                "reserved capacity is on-demand capacity set aside for you, spot is spare "
                "capacity; set `spot: null` (GpuSpotPool turns spot on by default)",
            )
        )
    if system == "oci":
        return issues + _oci_issues(reservation, fields.get("cluster"))
    if system == "ec2":
        return issues + _ec2_issues(reservation, fields)
    return issues


def _oci_issues(reservation: CapacityReservation, cluster: Any) -> list[Issue]:
    if reservation.ids is None:
        return []
    issues = [
        Issue(
            f"capacity_reservation.ids[{index}]",
            f"{found!r} is not an OCI capacity reservation OCID (ocid1.capacityreservation...)",
        )
        for index, found in enumerate(reservation.ids)
        if not OCI_RESERVATION_ID.fullmatch(found)
    ]
    placements = getattr(cluster, "placements", None)
    if is_list(placements) and len(reservation.ids) != len(placements):
        issues.append(
            Issue(
                "capacity_reservation.ids",
                f"{reservation.ids!r}: an OCI capacity reservation holds capacity in one "
                "availability domain, so give one id per `cluster.placements` entry "
                f"({len(placements)}), in their order",
            )
        )
    return issues


def _ec2_issues(reservation: CapacityReservation, fields: Mapping[str, Any]) -> list[Issue]:
    ids = reservation.ids
    issues = [
        Issue(
            f"capacity_reservation.ids[{index}]",
            f"{found!r} is not an EC2 capacity reservation id (`cr-` and 17 hex digits)",
        )
        for index, found in enumerate(ids or [])
        if not EC2_RESERVATION_ID.fullmatch(found)
    ]
    if ids is not None and len(ids) > 1:
        issues.append(
            Issue(
                "capacity_reservation.ids",
                f"{ids!r}: a launch template targets one capacity reservation; put them in a "
                "capacity reservation resource group and give `resource_group_arn`",
            )
        )
    mix = fields.get("instance_types")
    if reservation.type != "capacity_block":
        if ids is not None and mix:
            issues.append(
                Issue(
                    "capacity_reservation.ids",
                    f"{ids!r} reserves one instance type, so the other types of "
                    f"`instance_types` {mix!r} can't launch into it; give `instance_type`, or "
                    "a resource group of reservations (`resource_group_arn`)",
                )
            )
        # A reservation holds capacity in one Availability Zone: a launch it targets in
        # another zone fails. A resource group may hold reservations in several zones (EC2
        # launches into one of the instance's zone), so it may span the cluster's subnets.
        if ids is not None and (
            problem := cluster_subnets_problem(
                fields.get("cluster"), fields.get("network"), f"capacity reservation {ids[0]!r}"
            )
        ):
            issues.append(
                Issue(
                    "capacity_reservation.ids",
                    problem + " (a reservation serves one zone; a resource group of "
                    "reservations, `resource_group_arn`, may span zones)",
                )
            )
        return issues
    return issues + _capacity_block_issues(reservation, fields)


def _capacity_block_issues(
    reservation: CapacityReservation, fields: Mapping[str, Any]
) -> list[Issue]:
    issues: list[Issue] = []
    if reservation.resource_group_arn is not None:
        issues.append(
            Issue(
                "capacity_reservation.resource_group_arn",
                "a Capacity Block is targeted by its reservation id (`ids`), not by a resource "
                f"group ({reservation.resource_group_arn!r})",
            )
        )
    mix = fields.get("instance_types")
    if mix:
        issues.append(
            Issue(
                "capacity_reservation",
                f"`instance_types` {mix!r} can't use a Capacity Block: it reserves one "
                "instance type, which EKS takes from the launch template (the node group then "
                "names none); give `instance_type`",
            )
        )
    if problem := cluster_subnets_problem(
        fields.get("cluster"), fields.get("network"), "a Capacity Block"
    ):
        issues.append(Issue("capacity_reservation", problem))
    return issues


def capacity_block_update_note(
    reservation: CapacityReservation | None, min_nodes: int
) -> str | None:
    """What updating a Capacity Block node group that keeps nodes (`min_nodes` above 0)
    needs, or None (see `capacity_block_update_text`)."""
    if reservation is None or reservation.type != "capacity_block" or min_nodes <= 0:
        return None
    return capacity_block_update_text(min_nodes)


def capacity_block_update_text(min_nodes: int) -> str:
    """EKS updates a Capacity Block node group's version (Kubernetes version, AMI release,
    launch template) only at desired size 0 (EKS user guide, "Create a managed node group
    with Capacity Blocks for ML"); AWS's EKS Blueprints ML capacity-block pattern holds a
    block at a fixed size (min = max = desired 2) the rest of the time."""
    return (
        f"Capacity Block node group of at least {min_nodes} node(s): EKS updates its version "
        "(Kubernetes version, AMI release, launch template) only at desired size 0, so before "
        "such an update set the pool's size to 0 (`autoscaling: {min_replicas: 0, ...}` or "
        "`replicas: 0`), `up`, change the version, `up`, then restore the size; the block's "
        "instances also end 30 minutes before the block does"
    )
