"""Quotas that promise no more than the pools behind them can deliver."""

from __future__ import annotations

from nodepools.policies.engine_values import fmt, items, mapping, string_map
from nodepools.policies.inventory import accelerator_capacity, pools_by_name
from nodepools.policies.quantities import parse_quantity
from nodepools.specs.core.labels import POOL_LABEL
from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

KUEUE_RESOURCE_FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"
KUEUE_CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"


def _validate_quotas(args: StackValidationArgs, report: ReportViolation) -> None:
    pools = pools_by_name(args.resources)
    flavor_pools: dict[str, str] = {}
    for resource in args.resources:
        if resource.resource_type == KUEUE_RESOURCE_FLAVOR:
            name = mapping(resource.props.get("metadata")).get("name")
            pool = string_map(mapping(resource.props.get("spec")).get("nodeLabels")).get(POOL_LABEL)
            if name is not None and pool is not None:
                flavor_pools[str(name)] = pool
    for resource in args.resources:
        if resource.resource_type != KUEUE_CLUSTER_QUEUE:
            continue
        queue = mapping(resource.props.get("metadata")).get("name", resource.name)
        groups = items(mapping(resource.props.get("spec")).get("resourceGroups"))
        for g, group in enumerate(groups):
            for f, flavor in enumerate(items(mapping(group).get("flavors"))):
                flavor = mapping(flavor)
                pool_name = flavor_pools.get(str(flavor.get("name")))
                # Quotas may live in another stack than the pools (org-quotas): a flavor whose
                # pool isn't here can't be checked from this stack.
                pool = pools.get(pool_name) if pool_name is not None else None
                if pool is None:
                    continue
                for r, quota in enumerate(items(flavor.get("resources"))):
                    quota = mapping(quota)
                    resource_name = str(quota.get("name"))
                    nominal = parse_quantity(quota.get("nominalQuota"))
                    capacity = accelerator_capacity(pool, resource_name)
                    if nominal is None or capacity is None or nominal <= capacity:
                        continue
                    report(
                        f"`spec.resourceGroups[{g}].flavors[{f}].resources[{r}].nominalQuota`: "
                        f"ClusterQueue '{queue}' guarantees {fmt(nominal)} {resource_name} on "
                        f"flavor '{flavor.get('name')}', but pool '{pool.name}' can offer at "
                        f"most {fmt(capacity)}",
                        resource.urn,
                    )


kueue_quota_within_capacity = StackValidationPolicy(
    name="kueue-quota-within-capacity",
    description=(
        "A Kueue ClusterQueue's nominal quota on a flavor is at most the accelerator capacity "
        "of the pool behind that flavor."
    ),
    enforcement_level=EnforcementLevel.MANDATORY,
    validate=_validate_quotas,
)
