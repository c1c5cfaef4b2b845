"""The cloud's limits on a pool with its defaults applied (`ResolvedPool`): its labels and
taints as they will be sent (the pool's defaults counted), and what its autoscaler can do
with the resolved bounds and accelerators. Read from the cluster's `ClusterCapabilities`.

Run by every managed pool before it registers anything (`nodepools.backends.BACKEND_CHECKS`).
"""

from __future__ import annotations

from nodepools.specs.clusters.capabilities import ClusterCapabilities, capabilities_for
from nodepools.specs.core.base import Issue, SpecError, format_path
from nodepools.specs.pools.resolve import ResolvedPool


def label_limit_issues(pool: ResolvedPool, caps: ClusterCapabilities) -> list[Issue]:
    """What the cloud refuses of the pool's labels and taints (stricter than Kubernetes on
    EKS), each at its path with the value quoted."""
    title = caps.title
    issues: list[Issue] = []
    for key, value in pool.labels.items():
        path = format_path(("labels", key))
        if caps.label_key_max is not None and len(key) > caps.label_key_max:
            issues.append(
                Issue(
                    path,
                    f"label key {key!r} is {len(key)} characters long; {title} take label "
                    f"keys of at most {caps.label_key_max} characters, prefix included: use a "
                    "shorter prefix",
                )
            )
        if not value and not caps.empty_label_values:
            issues.append(
                Issue(
                    path,
                    f"label {key!r} has the empty value {value!r}; {title} refuse empty label "
                    "values: give it one (e.g. 'true')",
                )
            )
    if caps.taints_max is not None and len(pool.taints) > caps.taints_max:
        issues.append(
            Issue(
                "taints",
                f"{len(pool.taints)} taints (the pool's defaults included); {title} take at "
                f"most {caps.taints_max}",
            )
        )
    for index, taint in enumerate(pool.taints):
        if caps.taint_key_max is not None and len(taint.key) > caps.taint_key_max:
            issues.append(
                Issue(
                    f"taints[{index}].key",
                    f"taint key {taint.key!r} is {len(taint.key)} characters long; {title} "
                    f"take taint keys of at most {caps.taint_key_max} characters, prefix "
                    "included: use a shorter prefix",
                )
            )
    return issues


def autoscaling_issues(pool: ResolvedPool, caps: ClusterCapabilities) -> list[Issue]:
    """What the cluster's autoscaler can't do for the pool: be installed as an add-on where
    the cluster takes none, or scale up from zero for an accelerator it does not model."""
    if not pool.autoscaled:
        return []
    issues: list[Issue] = []
    bounds = f"{pool.min_nodes}..{pool.max_nodes}"
    if not caps.cluster_addons and getattr(pool.cluster, "cluster_autoscaler", None) is not None:
        issues.append(
            Issue(
                "autoscaling",
                f"{bounds} needs a cluster autoscaler, and the cluster's `cluster_autoscaler` "
                f"would install it as an add-on, but {caps.cluster_addons_why}; set the cluster's "
                "`cluster_autoscaler: null` and run the cluster autoscaler yourself, use "
                "fixed `replicas`, or an enhanced cluster",
            )
        )
    accelerator = pool.node_accelerator
    resources = caps.scale_from_zero_resources
    if (
        pool.min_nodes == 0
        and accelerator is not None
        and resources is not None
        and accelerator.resource not in resources
    ):
        issues.append(
            Issue(
                "autoscaling.min_replicas",
                f"0 (autoscaling {bounds}) can't be used: {caps.scale_from_zero_why}, so pods "
                f"asking for `{accelerator.resource}` never scale this pool up from zero; set "
                "`min_replicas` to at least 1",
            )
        )
    return issues


def resolved_pool_issues(pool: ResolvedPool) -> list[Issue]:
    """Everything the pool's cloud refuses of the resolved pool."""
    caps = capabilities_for(pool.cluster)
    if caps is None:
        return []
    return [*label_limit_issues(pool, caps), *autoscaling_issues(pool, caps)]


def check_resolved_pool(pool: ResolvedPool) -> None:
    """Raise SpecError with every problem of `resolved_pool_issues`."""
    issues = resolved_pool_issues(pool)
    if issues:
        raise SpecError(f"pool {pool.component_name!r}", issues)
