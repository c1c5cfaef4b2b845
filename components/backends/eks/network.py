"""What an EKS pool's `network` adds: EFA interfaces, the security group their traffic
needs, a cluster placement group, and the one subnet the pool is pinned to.

EFA traffic between nodes must be allowed both ways by a security group that references
itself; EKS puts no security group on interfaces a launch template defines, so the
interfaces carry that group and the ones the user lists (the cluster security group).
Card 0's interface is the primary one (device index 0); every other card's is device
index 1 on its card, as EC2 wants for multi-card instances. Every resource here is
auto-named by Pulumi, so a replacement (create-before-delete) never collides.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
from nodepools.specs.core.labels import POOL_LABEL
from nodepools.specs.pools.network import CREATE_CLUSTER_GROUP
from nodepools.specs.pools.resolve import ResolvedPool


@dataclass(frozen=True)
class PoolNetworkResources:
    """What the launch template takes from the pool's network (its `network_interfaces`
    and `placement` blocks)."""

    network_interfaces: list[aws.ec2.LaunchTemplateNetworkInterfaceArgs] | None
    placement: aws.ec2.LaunchTemplatePlacementArgs | None


def pool_subnet_ids(pool: ResolvedPool) -> pulumi.Input[list[pulumi.Input[str]]]:
    """The node group's subnets: `network.subnet_id` alone when given, else the cluster's."""
    if pool.network is not None and pool.network.subnet_id is not None:
        return [pool.network.subnet_id]
    return pool.cluster.subnet_ids


def pool_tags(pool: ResolvedPool) -> dict[str, str]:
    """The AWS tags of everything an EKS pool makes: the cluster's, the pool's own `tags`,
    and its name (unless `identity_label` is false)."""
    identity = {POOL_LABEL: pool.pool_name} if pool.identity_label else {}
    return dict(sorted({**pool.cluster.tags, **pool.tags, **identity}.items()))


def efa_security_group(
    name: str, pool: ResolvedPool, parent: pulumi.Resource
) -> aws.ec2.SecurityGroup:
    """`<pool>-efa`: all traffic to and from itself, in and out (EFA's requirement)."""
    assert pool.network is not None
    child = pulumi.ResourceOptions(parent=parent)
    group = aws.ec2.SecurityGroup(
        f"{name}-efa",
        vpc_id=pool.network.vpc_id,
        description="EFA: all traffic between the nodes of one pool",
        tags=pool_tags(pool),
        opts=child,
    )
    aws.vpc.SecurityGroupIngressRule(
        f"{name}-efa-ingress",
        security_group_id=group.id,
        referenced_security_group_id=group.id,
        ip_protocol="-1",
        description="EFA from the pool's nodes",
        opts=child,
    )
    aws.vpc.SecurityGroupEgressRule(
        f"{name}-efa-egress",
        security_group_id=group.id,
        referenced_security_group_id=group.id,
        ip_protocol="-1",
        description="EFA to the pool's nodes",
        opts=child,
    )
    return group


def efa_interfaces(
    count: int, security_groups: pulumi.Input[list[str]], *, efa_only: bool = False
) -> list[aws.ec2.LaunchTemplateNetworkInterfaceArgs]:
    """One EFA interface per network card: card 0 the primary (device 0), others device 1;
    with `efa_only`, cards 1 and up `efa-only` (no IP address), card 0 `efa` (the primary
    interface needs an IP; terraform-aws-eks `enable_efa_only`)."""
    return [
        aws.ec2.LaunchTemplateNetworkInterfaceArgs(
            network_card_index=card,
            device_index=0 if card == 0 else 1,
            interface_type="efa-only" if efa_only and card > 0 else "efa",
            security_groups=security_groups,
            # The provider types this flag as a string.
            delete_on_termination="true",
        )
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
        interfaces = efa_interfaces(pool.efa_interfaces, security_groups, efa_only=network.efa_only)
    placement = None
    if network.placement_group == CREATE_CLUSTER_GROUP:
        created = aws.ec2.PlacementGroup(
            f"{name}-placement-group",
            strategy="cluster",
            tags=pool_tags(pool),
            opts=pulumi.ResourceOptions(parent=parent),
        )
        # Auto-named by the provider; the launch template places its instances by this name.
        placement = aws.ec2.LaunchTemplatePlacementArgs(group_name=created.name)
    elif network.placement_group is not None:
        placement = aws.ec2.LaunchTemplatePlacementArgs(group_name=network.placement_group)
    return PoolNetworkResources(interfaces, placement)
