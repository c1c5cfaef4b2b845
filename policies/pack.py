"""The policies of the nodepools-guardrails pack, importable without starting a server.

`PolicyPack(...)` serves gRPC and blocks forever, so `__main__.py` is the only place that
builds it; the in-process runner (`nodepools.policies.runner`) reads the same list from here.
"""

from __future__ import annotations

from nodepools.policies.backends import bare_metal_boot_volume, rosa_multi_az_replicas
from nodepools.policies.budget import pool_hourly_budget
from nodepools.policies.cost import autoscaling_max_nodes, karpenter_limits, spot_max_price
from nodepools.policies.governance import kueue_quota_within_capacity
from nodepools.policies.interruption import karpenter_spot_interruption
from nodepools.policies.label_policies import restricted_label_domains
from nodepools.policies.scaling_notes import capacity_block_update, oke_pool_autoscaler
from nodepools.policies.taint_policies import accelerator_pool_tainted, spot_pool_tainted
from nodepools.policies.workload_policies import (
    pool_workloads_unprivileged,
    recipe_requests_pool_accelerators,
)
from pulumi_policy import EnforcementLevel, Policy

PACK_NAME = "nodepools-guardrails"
# Only used by a policy that names no level of its own; every policy here names one.
PACK_ENFORCEMENT_LEVEL = EnforcementLevel.ADVISORY

POLICIES: list[Policy] = [
    accelerator_pool_tainted,
    spot_pool_tainted,
    bare_metal_boot_volume,
    autoscaling_max_nodes,
    karpenter_limits,
    karpenter_spot_interruption,
    spot_max_price,
    pool_hourly_budget,
    restricted_label_domains,
    rosa_multi_az_replicas,
    kueue_quota_within_capacity,
    recipe_requests_pool_accelerators,
    pool_workloads_unprivileged,
    oke_pool_autoscaler,
    capacity_block_update,
]


def enforcement_level(policy: Policy) -> EnforcementLevel:
    """The level a policy runs at before any configuration, as the analyzer reports it."""
    return policy.enforcement_level or PACK_ENFORCEMENT_LEVEL
