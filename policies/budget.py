"""What a pool costs at its largest, priced exactly as the plan prices it.

`pool-hourly-budget` prices a pool with `nodepools.specs.catalog.pool_cost.pool_cost`, the function
the plan's cost estimate uses: at its maximum node count (the autoscaling maximum, the fixed
size, or for a Karpenter pool of one instance type what its `limits` allow), on-demand, or
the typical spot / preemptible price for pools that buy spot only; an OKE flexible shape by
its OCPUs and memory. A pool above the configured ceiling is reported. A pool the function
can't price (a type the table does not have, a Karpenter pool of several families or
without limits, a Capacity Block) is not judged here; the plan shows it as "unknown price"
with the reason.
"""

from __future__ import annotations

from nodepools.policies.engine_values import config_number, fmt
from nodepools.policies.pool_model import PoolView
from nodepools.policies.resources import pool_view
from nodepools.specs.catalog.pool_cost import (
    CAPACITY_BLOCK,
    SPOT,
    PoolCost,
    karpenter_nodes,
    pool_cost,
    priced_as_spot,
)
from nodepools.specs.catalog.prices import HOURS_PER_MONTH
from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

# USD per pool-hour at the pool's largest size: above ten p5.48xlarge ($550/h), so by default
# it catches a mistyped maximum (1000 nodes for 10) rather than a deliberate big pool.
DEFAULT_MAX_POOL_HOURLY = 1000.0


def pool_cost_of(pool: PoolView) -> PoolCost:
    """The pool's cost, from the pack's view of it, by the plan's function."""
    capacity = pool.capacity_types or ((SPOT,) if pool.spot else ("on-demand",))
    if pool.platform == "karpenter":
        _, max_nodes = karpenter_nodes(pool.replicas, pool.limits, pool.instance_types)
    else:
        max_nodes = None if pool.max_nodes is None else int(pool.max_nodes)
    return pool_cost(
        pool.instance_types,
        spot=priced_as_spot(capacity),
        min_nodes=int(pool.min_nodes or 0),
        max_nodes=max_nodes,
        ocpus=pool.ocpus,
        memory_gb=pool.memory_gb,
        capacity_block=CAPACITY_BLOCK in pool.capacity_types,
    )


def _validate_budget(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None:
        return
    cost = pool_cost_of(pool)
    hourly = cost.hourly_max
    if hourly is None or cost.dearest is None or cost.max_nodes is None:
        return  # unpriced or unbounded: the plan says which and why
    ceiling = config_number(args, "maxPoolHourlyCost", DEFAULT_MAX_POOL_HOURLY)
    if hourly > ceiling:
        where = (
            pool.path("limits")
            if pool.platform == "karpenter" and pool.replicas is None
            else pool.path("max_nodes")
        )
        report(
            f"`{where}`: pool '{pool.name}' costs up to {hourly:,.2f} USD/hour at its maximum "
            f"of {cost.max_nodes} {'/'.join(pool.instance_types)} nodes "
            f"({cost.dearest.basis} list price; about {hourly * HOURS_PER_MONTH:,.0f} USD/month), "
            f"above the ceiling of {fmt(ceiling)} USD/hour (policy config `maxPoolHourlyCost`)",
            None,
        )


pool_hourly_budget = ResourceValidationPolicy(
    name="pool-hourly-budget",
    description=(
        "A node pool at its maximum size costs no more per hour than the configured ceiling "
        "(list prices from the plan's price table)."
    ),
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            "maxPoolHourlyCost": {
                "type": "number",
                "minimum": 0,
                "default": DEFAULT_MAX_POOL_HOURLY,
                "description": "Highest cost of one pool at its maximum size, in USD per hour.",
            }
        }
    ),
    validate=_validate_budget,
)
