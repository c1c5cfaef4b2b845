"""What a pool costs at its largest: the same price table the plan's cost estimate reads.

`pool-hourly-budget` prices a pool at its maximum node count (the autoscaling maximum, or
the fixed size) with `nodepools.specs.prices.node_price`: on-demand, or the typical spot /
preemptible price for spot pools. A pool above the configured ceiling is reported; a pool
without a price (a type the table does not have, a flexible OCI shape, a Karpenter pool
sized by limits) is not priced here, and the plan lists it as "unknown price".
"""

from __future__ import annotations

from nodepools.policies.resources import config_number, fmt, pool_view
from nodepools.specs.prices import HOURS_PER_MONTH, node_price
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


def pool_hourly_max(
    instance_types: tuple[str, ...], spot: bool, max_nodes: float | None
) -> float | None:
    """USD per hour of a pool at `max_nodes` of its dearest type, or None when unpriced."""
    if max_nodes is None or not instance_types:
        return None
    prices = [node_price(t, spot=spot) for t in instance_types]
    if any(p is None for p in prices):
        return None
    return max(p.hourly for p in prices if p is not None) * max_nodes


def _validate_budget(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None:
        return
    hourly = pool_hourly_max(pool.instance_types, pool.spot, pool.max_nodes)
    if hourly is None:
        return
    ceiling = config_number(args, "maxPoolHourlyCost", DEFAULT_MAX_POOL_HOURLY)
    if hourly > ceiling:
        kind = "typical spot" if pool.spot else "on-demand"
        report(
            f"Pool '{pool.name}' costs up to {hourly:,.2f} USD/hour at its maximum of "
            f"{fmt(pool.max_nodes or 0)} {'/'.join(pool.instance_types)} nodes "
            f"(`{pool.path('max_nodes')}`, {kind} list price; about "
            f"{hourly * HOURS_PER_MONTH:,.0f} USD/month), above the ceiling of "
            f"{fmt(ceiling)} USD/hour (policy config `maxPoolHourlyCost`).",
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
