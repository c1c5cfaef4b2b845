"""Bounds on how much capacity a pool can buy: node ceilings, Karpenter limits, spot price."""

from __future__ import annotations

from nodepools.policies.engine_values import config_number, fmt, mapping
from nodepools.policies.resources import pool_view
from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

DEFAULT_MAX_NODES = 100
# USD per instance-hour. Above the on-demand price of the largest GPU instances, so by
# default it only catches typos (a bid of 3000 meant as 3.000); organisations tighten it.
DEFAULT_MAX_SPOT_PRICE = 100.0


def _validate_max_nodes(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None or pool.max_nodes is None:
        return
    ceiling = config_number(args, "maxNodes", DEFAULT_MAX_NODES)
    if pool.max_nodes > ceiling:
        report(
            f"`{pool.path('max_nodes')}`: pool '{pool.name}' can scale to "
            f"{fmt(pool.max_nodes)} nodes, above the ceiling of {fmt(ceiling)} "
            "(policy config `maxNodes`)",
            None,
        )


def _validate_karpenter_limits(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None or pool.platform != "karpenter":
        return
    if mapping(args.props.get("spec")).get("replicas") is not None:
        # A static NodePool is bounded by its replica count, and Karpenter refuses any limit
        # but `nodes` on it.
        return
    if not pool.limits:
        report(
            f"`{pool.path('limits')}`: NodePool '{pool.name}' declares none, so Karpenter may "
            "launch instances without bound; set at least `cpu` and `memory`"
            + (
                " and the accelerators it can launch ("
                + ", ".join(a.resource for a in pool.accelerators)
                + ")"
                if pool.accelerators
                else ""
            ),
            None,
        )
        return
    for accelerator in pool.accelerators:
        if accelerator.resource not in pool.limits:
            report(
                f"`{pool.path('limits')}`: NodePool '{pool.name}' can launch "
                f"{accelerator.resource} instances but its limits "
                f"({', '.join(sorted(pool.limits))}) do not bound `{accelerator.resource}`",
                None,
            )


def _validate_spot_price(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None or pool.max_price is None:
        return
    cap = config_number(args, "maxPricePerHour", DEFAULT_MAX_SPOT_PRICE)
    if pool.max_price > cap:
        report(
            f"`{pool.path('max_price')}`: pool '{pool.name}' bids up to {fmt(pool.max_price)} "
            f"USD/hour for spot capacity, above the cap of {fmt(cap)} "
            "(policy config `maxPricePerHour`)",
            None,
        )


autoscaling_max_nodes = ResourceValidationPolicy(
    name="autoscaling-max-nodes",
    description="A node pool's maximum node count stays within the configured ceiling.",
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "maxNodes": {
                "type": "integer",
                "minimum": 0,
                "default": DEFAULT_MAX_NODES,
                "description": "Largest autoscaling maximum (or fixed size) a pool may declare.",
            }
        }
    ),
    validate=_validate_max_nodes,
)

karpenter_limits = ResourceValidationPolicy(
    name="karpenter-limits",
    description=(
        "Karpenter NodePools declare `spec.limits`, including every accelerator resource "
        "they can launch."
    ),
    enforcement_level=EnforcementLevel.ADVISORY,
    validate=_validate_karpenter_limits,
)

spot_max_price = ResourceValidationPolicy(
    name="spot-max-price",
    description="A spot pool's maximum price per instance-hour stays within the configured cap.",
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "maxPricePerHour": {
                "type": "number",
                "minimum": 0,
                "default": DEFAULT_MAX_SPOT_PRICE,
                "description": "Highest spot max price, in USD per instance-hour.",
            }
        }
    ),
    validate=_validate_spot_price,
)
