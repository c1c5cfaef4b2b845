"""Taints that keep ordinary pods off special capacity (accelerators, spot)."""

from __future__ import annotations

from nodepools.policies.pool_model import PoolView, Taint
from nodepools.policies.resources import pool_view
from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

# PreferNoSchedule only discourages the scheduler; a pod without the toleration can still
# take a GPU node, so only the two hard effects isolate accelerator capacity.
_ISOLATING_EFFECTS = ("NoSchedule", "NoExecute")
SPOT_TAINT_KEY = "spot"


def _describe(taints: tuple[Taint, ...]) -> str:
    if not taints:
        return "no taints"
    rendered = [
        f"{t.key}={t.value}:{t.effect}" if t.value is not None else f"{t.key}:{t.effect}"
        for t in taints
    ]
    return ", ".join(rendered)


def _shapes(pool: PoolView) -> str:
    return ", ".join(pool.instance_types) or "its instance requirements"


def _validate_accelerator_taint(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None:
        return
    for accelerator in pool.accelerators:
        if any(
            t.key == accelerator.resource and t.effect in _ISOLATING_EFFECTS for t in pool.taints
        ):
            continue
        report(
            f"`{pool.path('taints')}`: pool '{pool.name}' runs {accelerator.resource} capacity "
            f"({_shapes(pool)}) but holds {_describe(pool.taints)}; add "
            f"`{accelerator.resource}=true:NoSchedule` so only pods that request "
            f"{accelerator.resource} are scheduled there",
            None,
        )


def _validate_spot_taint(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None or not pool.spot:
        return
    if any(t.key == SPOT_TAINT_KEY for t in pool.taints):
        return
    report(
        f"`{pool.path('taints')}`: pool '{pool.name}' uses spot/preemptible capacity but holds "
        f"{_describe(pool.taints)}; add `{SPOT_TAINT_KEY}=true:PreferNoSchedule` so only pods "
        "that tolerate interruption opt in",
        None,
    )


accelerator_pool_tainted = ResourceValidationPolicy(
    name="accelerator-pool-tainted",
    description=(
        "Accelerator node pools carry a NoSchedule or NoExecute taint keyed on their "
        "accelerator resource (nvidia.com/gpu, amd.com/gpu, aws.amazon.com/neuron)."
    ),
    enforcement_level=EnforcementLevel.MANDATORY,
    validate=_validate_accelerator_taint,
)

spot_pool_tainted = ResourceValidationPolicy(
    name="spot-pool-tainted",
    description="Spot and preemptible node pools carry a `spot` taint.",
    enforcement_level=EnforcementLevel.ADVISORY,
    validate=_validate_spot_taint,
)
