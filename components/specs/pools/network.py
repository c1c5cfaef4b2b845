"""A pool's network: EFA interfaces, a placement group, the one subnet they need.

EKS only: the pool's launch template carries one EFA interface per network card, a
security group letting the nodes' EFA traffic through, and the placement group. OKE node
pools and ROSA machine pools have no argument for any of it; their `ClusterCapabilities`
refuse `network`. Which instance types have EFA, and how many interfaces, is the catalog's
`efa_interfaces` (scripts/instance_catalog.py, from Karpenter's generated instance-type list).
"""

from __future__ import annotations

from typing import Annotated, Any

from nodepools.json_values import is_list
from nodepools.specs.catalog.instance_types import instance_type
from nodepools.specs.clusters.identifiers import (
    check_security_group_id,
    check_subnet_id,
    check_vpc_id,
)
from nodepools.specs.core.base import Issue, PathError, SpecModel, is_output, wired
from pydantic import Field, ValidationInfo, field_validator

# The Kubernetes extended resource the EFA device plugin advertises per node.
EFA_RESOURCE = "vpc.amazonaws.com/efa"
# `placement_group` value that makes the pool create its own cluster placement group.
CREATE_CLUSTER_GROUP = "cluster"


class PoolNetwork(SpecModel):
    """EFA and placement of a pool's nodes (EKS only)."""

    efa: bool = Field(
        default=False,
        description="Give every node one EFA interface per network card (the launch "
        "template's `network_interfaces`), a security group allowing all traffic between "
        "the pool's nodes, and the `vpc.amazonaws.com/efa` limit in the scheduling info. "
        "Needs an instance type with EFA, one subnet, `vpc_id` and `security_group_ids`. "
        "Default false.",
    )
    efa_only: bool = Field(
        default=False,
        description="With `efa`: the interfaces of network cards 1 and up are `efa-only` "
        "(EFA without an IP address: they take no subnet addresses), card 0's stays `efa` "
        "(EC2 wants an IP interface there), as terraform-aws-eks's `enable_efa_only`. Needs "
        "the VPC CNI 1.18.4 or later. Default false: every interface is `efa`.",
    )
    placement_group: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        description="`cluster`: the pool creates a placement group of strategy `cluster`; "
        "any other value names an existing placement group. Needs one subnet. Default None: "
        "no placement group.",
    )
    subnet_id: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="The one subnet (one availability zone) the pool's nodes are launched "
        "in, instead of the cluster's `subnet_ids` (or an Output). Default None: the "
        "cluster's subnets (EFA, placement groups and capacity blocks then need the cluster "
        "to list exactly one).",
    )
    vpc_id: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="VPC of the pool's subnet (or an Output), for the EFA security group; "
        "required with `efa`, not used otherwise. Default None.",
    )
    security_group_ids: Annotated[Any, wired(list[Annotated[Any, wired(str)]])] = Field(
        default_factory=list[Any],
        description="Security groups put on every EFA interface beside the pool's own EFA "
        "group (or an Output). EKS attaches none to interfaces a launch template defines, so "
        "list the cluster security group (`vpc_config.cluster_security_group_id`); required "
        "(at least one) with `efa`, not used otherwise. Default [].",
    )

    _subnet_id = field_validator("subnet_id")(check_subnet_id)
    _vpc_id = field_validator("vpc_id")(check_vpc_id)

    @field_validator("security_group_ids")
    @classmethod
    def _group_ids(cls, groups: Any, info: ValidationInfo) -> Any:
        for index, group in enumerate(groups if is_list(groups) else []):
            try:
                check_security_group_id(group, info)
            except ValueError as exc:
                raise PathError(f"[{index}]", str(exc)) from None
        return groups


def efa_interfaces(name: str) -> int | None:
    """EFA interfaces a node of `name` carries (0: none), None when the catalog can't say."""
    found = instance_type(name)
    return None if found is None else found.efa_interfaces


def efa_type_problem(name: str) -> str | None:
    """Why a pool of `name` can't have `network.efa`, or None."""
    count = efa_interfaces(name)
    if count:
        return None
    if count is None:
        return (
            f"the instance catalog does not know the EFA interfaces of {name!r}, so the "
            "launch template can't be given them; use a type the catalog lists with EFA "
            "(e.g. `p5.48xlarge`, `p4d.24xlarge`, `g6e.48xlarge`)"
        )
    return (
        f"{name!r} has no EFA interface (EC2 supports EFA on some types only); remove `efa` "
        "or use a type with EFA"
    )


def cluster_subnets_problem(cluster: Any, network: PoolNetwork | None, needs: str) -> str | None:
    """Why the pool can't be pinned to one subnet: no `network.subnet_id` and the cluster
    lists several subnets (or an Output, whose length is unknown), when `needs` wants one."""
    if network is not None and network.subnet_id is not None:
        return None
    subnets = getattr(cluster, "subnet_ids", None)
    if is_list(subnets) and len(subnets) == 1:
        return None
    listed = (
        "is an Output (its length is unknown until apply)"
        if is_output(subnets)
        else f"lists {len(subnets) if is_list(subnets) else '?'} subnets ({subnets!r})"
    )
    return (
        f"{needs} {'need' if ' and ' in needs else 'needs'} the pool's nodes in one "
        f"availability zone, but `cluster.subnet_ids` "
        f"{listed}: set `network.subnet_id` to the one subnet to launch in"
    )


def network_issues(network: PoolNetwork, cluster: Any, types: list[str]) -> list[Issue]:
    """What is wrong with `network` for a pool of `types` on `cluster` (a cloud that takes
    one: see `ClusterCapabilities.refused`), each at its path below `network`."""
    issues: list[Issue] = []
    if network.efa_only and not network.efa:
        issues.append(
            Issue(
                "network.efa_only",
                "`efa_only` sets the type of EFA interfaces; set `efa: true` or remove it",
            )
        )
    if network.efa:
        for index, name in enumerate(types):
            if problem := efa_type_problem(name):
                where = f" (`instance_types[{index}]`)" if len(types) > 1 else ""
                issues.append(Issue("network.efa", problem + where))
        if network.vpc_id is None:
            issues.append(
                Issue(
                    "network.vpc_id",
                    "`efa` needs the VPC of the pool's subnet, for its EFA security group",
                )
            )
        if is_list(network.security_group_ids) and not network.security_group_ids:
            issues.append(
                Issue(
                    "network.security_group_ids",
                    "`efa` replaces the node's network interfaces, and EKS puts no security "
                    "group on interfaces a launch template defines: list the cluster security "
                    "group (and any other the nodes need); got []",
                )
            )
    else:
        issues += [
            Issue(
                f"network.{unused}",
                f"{getattr(network, unused)!r} is only used by EFA interfaces; set "
                "`efa: true` or remove it",
            )
            for unused in ("vpc_id", "security_group_ids")
            if unused in network.model_fields_set
        ]
    wants = [
        what
        for what, given in (
            ("`network.efa`", network.efa),
            ("`network.placement_group`", network.placement_group is not None),
        )
        if given
    ]
    if wants and (problem := cluster_subnets_problem(cluster, network, " and ".join(wants))):
        issues.append(Issue("network.subnet_id", problem))
    return issues
