"""Karpenter spot pools need Karpenter's interruption handling, which the pool can't show.

AWS gives a spot instance a two-minute interruption notice (an EventBridge event). Karpenter
acts on it only when its controller reads those events from an SQS queue: the Helm value
`settings.interruptionQueue` (`INTERRUPTION_QUEUE` in the controller's environment), a queue
that EventBridge rules feed with spot interruption warnings, rebalance recommendations,
scheduled health events and instance state changes. With the queue, Karpenter taints and
drains the node within the notice, through the eviction API (PodDisruptionBudgets and each
pod's termination grace apply), and launches a replacement early. Without it, the node
simply disappears: pods get no SIGTERM grace and are rescheduled only after the node is gone.

That setting is cluster-wide and lives in the controller's install, not in any NodePool, so
the pack can't read it: it is declared in the policy config (`interruptionQueueConfigured`),
the same file for `pulumi preview --policy-pack-config` and the offline plan's
`--policy-config`. Until it is declared, every NodePool that can launch spot capacity gets
this advisory.
"""

from __future__ import annotations

from nodepools.policies.engine_values import items, mapping
from nodepools.policies.karpenter_pools import CAPACITY_TYPE_LABEL
from nodepools.policies.resources import KARPENTER_NODE_POOL, pool_view
from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

INTERRUPTION_QUEUE_CONFIGURED = "interruptionQueueConfigured"
SPOT = "spot"


def spot_capacity_requirement(spec: object) -> tuple[str, str] | None:
    """How a NodePool's `spec` lets Karpenter launch spot capacity (the requirement's path,
    and the requirement as written), or None when it can't: no capacity-type requirement
    means on-demand only."""
    requirements = mapping(mapping(mapping(spec).get("template")).get("spec")).get("requirements")
    for index, raw in enumerate(map(mapping, items(requirements))):
        if raw.get("key") != CAPACITY_TYPE_LABEL:
            continue
        operator = str(raw.get("operator"))
        values = [str(v) for v in items(raw.get("values"))]
        allows_spot = (
            (operator == "In" and SPOT in values)
            or (operator == "NotIn" and SPOT not in values)
            or operator == "Exists"
        )
        if allows_spot:
            shown = f" [{', '.join(values)}]" if values else ""
            return (
                f"spec.template.spec.requirements[{index}]",
                f"{CAPACITY_TYPE_LABEL} {operator}{shown}",
            )
    return None


def _validate_interruption_handling(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type != KARPENTER_NODE_POOL:
        return
    if args.get_config().get(INTERRUPTION_QUEUE_CONFIGURED) is True:
        return
    found = spot_capacity_requirement(args.props.get("spec"))
    pool = pool_view(args.resource_type, args.props, args.name)
    if found is None or pool is None:
        return
    path, requirement = found
    report(
        f"`{path}`: NodePool '{pool.name}' can launch spot capacity (`{requirement}`) but no "
        "interruption handling is declared: unless Karpenter's controller reads an interruption "
        "queue (Helm value `settings.interruptionQueue`, an SQS queue fed by EventBridge), a "
        "reclaimed spot node is not drained within its two-minute notice and its pods stop "
        "without their termination grace; once the queue is set up, declare it in the policy "
        f'config: `{{"karpenter-spot-interruption": {{"{INTERRUPTION_QUEUE_CONFIGURED}": true}}}}`',
        None,
    )


karpenter_spot_interruption = ResourceValidationPolicy(
    name="karpenter-spot-interruption",
    description=(
        "Karpenter NodePools that can launch spot capacity run where Karpenter's interruption "
        "handling (`settings.interruptionQueue`) is set up, as declared in the policy config."
    ),
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            INTERRUPTION_QUEUE_CONFIGURED: {
                "type": "boolean",
                "default": False,
                "description": "Karpenter's controller has an interruption queue "
                "(`settings.interruptionQueue`) on the clusters this stack deploys to.",
            }
        }
    ),
    validate=_validate_interruption_handling,
)
