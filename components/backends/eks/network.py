"""What an EKS pool's `network` adds (issue 14): EFA interfaces, the security group their
traffic needs, a cluster placement group, and the one subnet the pool is pinned to.

EFA traffic between nodes must be allowed both ways by a security group that references
itself; EKS puts no security group on interfaces a launch template defines, so the
interfaces carry that group and the ones the user lists (the cluster security group).
Card 0's interface is the primary one (device index 0); every other card's is device
index 1 on its card, as EC2 wants for multi-card instances. Every resource here is
auto-named by Pulumi, so a replacement (create-before-delete) never collides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
from nodepools.backends.provider_resource import (
    Ec2PlacementGroup,
    Ec2SecurityGroup,
    VpcSecurityGroupEgressRule,
    VpcSecurityGroupIngressRule,
)
from nodepools.specs.core.labels import POOL_LABEL
from nodepools.specs.pools.network import CREATE_CLUSTER_GROUP
from nodepools.specs.pools.resolve import ResolvedPool


@dataclass(frozen=True)
class PoolNetworkResources:
    """What the launch template takes from the pool's network (its `networkInterfaces`
    and `placement` blocks)."""

    network_interfaces: list[dict[str, Any]] | None
    placement: dict[str, Any] | None


def pool_subnet_ids(pool: ResolvedPool) -> Any:
    """The node group's subnets: `network.subnet_id` alone when given, else the cluster's."""
    if pool.network is not None and pool.network.subnet_id is not None:
        return [pool.network.subnet_id]
    return pool.cluster.subnet_ids


def pool_tags(pool: ResolvedPool) -> dict[str, str]:
    """The AWS tags of everything an EKS pool makes: the cluster's, and the pool's name."""
    return {**pool.cluster.tags, POOL_LABEL: pool.pool_name}


def efa_security_group(name: str, pool: ResolvedPool, parent: pulumi.Resource) -> Ec2SecurityGroup:
    """`<pool>-efa`: all traffic to and from itself, in and out (EFA's requirement)."""
    assert pool.network is not None
    child = pulumi.ResourceOptions(parent=parent)
    group = Ec2SecurityGroup(
        f"{name}-efa",
        {
            "vpcId": pool.network.vpc_id,
            "description": "EFA: all traffic between the nodes of one pool",
            "tags": pool_tags(pool),
        },
        opts=child,
    )
    for rule_class, suffix, description in (
        (VpcSecurityGroupIngressRule, "ingress", "EFA from the pool's nodes"),
        (VpcSecurityGroupEgressRule, "egress", "EFA to the pool's nodes"),
    ):
        rule_class(
            f"{name}-efa-{suffix}",
            {
                "securityGroupId": group.id,
                "referencedSecurityGroupId": group.id,
                "ipProtocol": "-1",
                "description": description,
            },
            opts=child,
        )
    return group


def efa_interfaces(
    count: int, security_groups: pulumi.Input[list[pulumi.Input[str]]]
) -> list[dict[str, Any]]:
    """One EFA interface per network card: card 0 the primary (device 0), others device 1."""
    return [
        {
            "networkCardIndex": card,
            "deviceIndex": 0 if card == 0 else 1,
            "interfaceType": "efa",
            "securityGroups": security_groups,
            "deleteOnTermination": "true",
        }
        for card in range(count)
    ]


def build_network(name: str, pool: ResolvedPool, parent: pulumi.Resource) -> PoolNetworkResources:
    """The security group and placement group of the pool's `network`, and what its launch
    template takes from them."""
    network = pool.network
    if network is None:
        return PoolNetworkResources(None, None)
    interfaces = None
    if network.efa:
        group = efa_security_group(name, pool, parent)
        security_groups = pulumi.Output.all(group.id, network.security_group_ids).apply(
            lambda found: [found[0], *found[1]]
        )
        interfaces = efa_interfaces(pool.efa_interfaces, security_groups)
    placement = None
    if network.placement_group == CREATE_CLUSTER_GROUP:
        created = Ec2PlacementGroup(
            f"{name}-placement-group",
            {"strategy": "cluster", "tags": pool_tags(pool)},
            opts=pulumi.ResourceOptions(parent=parent),
        )
        placement = {"groupName": created.output("name")}
    elif network.placement_group is not None:
        placement = {"groupName": network.placement_group}
    return PoolNetworkResources(interfaces, placement)
