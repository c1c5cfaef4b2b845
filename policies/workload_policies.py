"""Workloads placed on our pools: they use the accelerators they occupy, and stay unprivileged."""

from __future__ import annotations

from nodepools.policies.engine_values import mapping
from nodepools.policies.inventory import pools_by_name
from nodepools.policies.pods import DEPLOYMENT, pod_spec
from nodepools.specs.core.labels import POOL_LABEL
from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

POOL_WORKLOADS = "pool-workloads"
ALL_WORKLOADS = "all-workloads"


def _validate_accelerator_requests(args: StackValidationArgs, report: ReportViolation) -> None:
    pools = pools_by_name(args.resources)
    for resource in args.resources:
        if resource.resource_type != DEPLOYMENT:
            continue
        pod = pod_spec(resource.resource_type, resource.props)
        target = pod.target_pool if pod is not None else None
        # A Deployment aimed at a pool of another stack can't be checked from this one.
        pool = pools.get(target) if target is not None else None
        if pod is None or pool is None or not pool.accelerators:
            continue
        if any(pod.requested(a.resource) > 0 for a in pool.accelerators):
            continue
        wanted = " or ".join(f"`{a.resource}`" for a in pool.accelerators)
        deployment = mapping(resource.props.get("metadata")).get("name", resource.name)
        report(
            f"`{pod.path}.nodeSelector.{POOL_LABEL}`: Deployment '{deployment}' targets pool "
            f"'{pool.name}' but no container requests {wanted} in `resources.limits`; it would "
            "hold accelerator nodes without using them",
            resource.urn,
        )


def _validate_privileges(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pod = pod_spec(args.resource_type, args.props)
    if pod is None:
        return
    config = args.get_config()
    if config.get("scope", POOL_WORKLOADS) == POOL_WORKLOADS and pod.target_pool is None:
        return
    where = f"pool '{pod.target_pool}'" if pod.target_pool is not None else "the cluster"
    if pod.spec.get("hostNetwork") is True and config.get("allowHostNetwork") is not True:
        report(
            f"`{pod.path}.hostNetwork`: a workload on {where} sets `hostNetwork: true` "
            "(policy config `allowHostNetwork` is off)",
            None,
        )
    if config.get("allowPrivileged") is True:
        return
    for path, container in pod.containers():
        if mapping(container.get("securityContext")).get("privileged") is True:
            report(
                f"`{path}.securityContext.privileged`: container '{container.get('name')}' on "
                f"{where} sets `privileged: true` (policy config `allowPrivileged` is off)",
                None,
            )


recipe_requests_pool_accelerators = StackValidationPolicy(
    name="recipe-requests-pool-accelerators",
    description=(
        "Deployments that select a pool by `nodepools.dev/pool` request that pool's "
        "accelerator resource in their container limits."
    ),
    enforcement_level=EnforcementLevel.MANDATORY,
    validate=_validate_accelerator_requests,
)

pool_workloads_unprivileged = ResourceValidationPolicy(
    name="pool-workloads-unprivileged",
    description=(
        "Deployments and PodTemplates on our pools run neither privileged containers nor "
        "on the host network."
    ),
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "scope": {
                "type": "string",
                "enum": [POOL_WORKLOADS, ALL_WORKLOADS],
                "default": POOL_WORKLOADS,
                "description": (
                    "`pool-workloads` checks only workloads whose nodeSelector names a pool "
                    "(`nodepools.dev/pool`); `all-workloads` checks every one."
                ),
            },
            "allowPrivileged": {
                "type": "boolean",
                "default": False,
                "description": "Allow privileged containers.",
            },
            "allowHostNetwork": {
                "type": "boolean",
                "default": False,
                "description": "Allow pods on the host network.",
            },
        }
    ),
    validate=_validate_privileges,
)
