"""Pools whose size needs something outside the pool: an OKE pool's autoscaler, a Capacity
Block's version updates. Advisory findings in the plan naming what to do."""

from __future__ import annotations

from nodepools.policies.engine_values import fmt, mapping, number
from nodepools.policies.resources import EKS_NODE_GROUP, OKE_NODE_POOL, pool_view
from nodepools.specs.pools.capacity_reservation import capacity_block_update_text
from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

OKE_ADDON = "oci:ContainerEngine/addon:Addon"
# OKE's name of its Cluster Autoscaler add-on (what `OkeClusterAutoscaler` installs).
CLUSTER_AUTOSCALER_ADDON = "ClusterAutoscaler"


def _validate_oke_autoscaler(args: StackValidationArgs, report: ReportViolation) -> None:
    # The clusters an autoscaler add-on of this stack resizes pools of; None: not known yet
    # (an Output), which may be any of them.
    clusters = [
        resource.props.get("clusterId")
        for resource in args.resources
        if resource.resource_type == OKE_ADDON
        and resource.props.get("addonName") == CLUSTER_AUTOSCALER_ADDON
    ]
    for resource in args.resources:
        if resource.resource_type != OKE_NODE_POOL:
            continue
        pool = pool_view(resource.resource_type, resource.props, resource.name)
        if pool is None or pool.max_nodes is None or pool.min_nodes == pool.max_nodes:
            continue
        cluster = resource.props.get("clusterId")
        if any(c is None or cluster is None or c == cluster for c in clusters):
            continue
        report(
            f"`{pool.path('max_nodes')}`: OKE node pool '{pool.name}' is autoscaled "
            f"({fmt(pool.min_nodes or 0)}..{fmt(pool.max_nodes)}), but no Cluster Autoscaler "
            f"add-on of this stack resizes the pools of its cluster, so it stays at its "
            "initial size: add `OkeClusterAutoscaler.for_pools(name, [pool, ...])` to the "
            "program (a fleet makes one itself unless the cluster says "
            "`cluster_autoscaler: null`), or run a cluster autoscaler yourself and disable "
            "this policy",
            resource.urn,
        )


def _validate_capacity_block_update(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type != EKS_NODE_GROUP:
        return
    if args.props.get("capacityType") != "CAPACITY_BLOCK":
        return
    low = number(mapping(args.props.get("scalingConfig")).get("minSize"))
    if low is None or low <= 0:
        return
    report(f"`scalingConfig.minSize`: {capacity_block_update_text(int(low))}", None)


oke_pool_autoscaler = StackValidationPolicy(
    name="oke-pool-autoscaler",
    description="Autoscaled OKE node pools have a Cluster Autoscaler add-on in the stack.",
    enforcement_level=EnforcementLevel.ADVISORY,
    validate=_validate_oke_autoscaler,
)

capacity_block_update = ResourceValidationPolicy(
    name="capacity-block-update",
    description="EKS Capacity Block node groups held above zero nodes say what a version "
    "update needs (desired size 0).",
    enforcement_level=EnforcementLevel.ADVISORY,
    validate=_validate_capacity_block_update,
)
