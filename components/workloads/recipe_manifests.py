"""A recipe's Kubernetes objects as plain dicts (pure: the backend only registers them).

Placed recipes select their pool by its identity label and tolerate its taints; waiting
ones select shared nodes of their shape (and selector), so their pods stay Pending until a
matching pool exists and start there without another deployment.
"""

from __future__ import annotations

from typing import Any

from nodepools.scheduling import SchedulingInfo, toleration_for
from nodepools.specs.catalog.accelerators import Accelerator
from nodepools.specs.core.labels import (
    INSTANCE_TYPE_LABEL,
    POOL_SELECTOR_LABEL,
    RECIPE_LABEL,
    SHARED_POOL_LABEL,
)
from nodepools.specs.pools.resolve import accelerator_taint
from nodepools.specs.workloads.recipe import ResolvedRecipe
from nodepools.workloads.placement import Decision
from nodepools.workloads.recipe_disruption import termination_settings

# Pulumi waits for a Deployment to become available and for a Service to have endpoints.
# A recipe's pods may rightly stay Pending (it waits for a pool, or its pool is created in
# the same update and bare-metal nodes take long to join), so waiting would fail the update.
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}


def recipe_scheduling(recipe: ResolvedRecipe, decision: Decision) -> SchedulingInfo:
    """nodeSelector, tolerations and accelerator limits of the recipe's pods."""
    pool = decision.pool
    if pool is not None:
        # The pool speaks for its nodes: its resource name and taints win over the catalog.
        resource = pool.accelerator_resource or recipe.accelerator_resource
        accelerator = (
            Accelerator(resource=resource, count=recipe.gpus) if recipe.gpus and resource else None
        )
        return SchedulingInfo.for_pool(
            pool.name, pool.taints or (), accelerator, accelerators_per_pod=recipe.gpus
        )
    selector = {INSTANCE_TYPE_LABEL: recipe.shape}
    if decision.status == "waiting":
        selector[SHARED_POOL_LABEL] = "true"
        if recipe.selector is not None:
            selector[POOL_SELECTOR_LABEL] = recipe.selector
    tolerations: tuple[dict[str, str], ...] = ()
    limits: dict[str, int] = {}
    if recipe.gpus and recipe.accelerator_resource:
        # The taint a shared pool of this shape has by default (see SharedNodePoolArgs).
        taint = accelerator_taint(Accelerator(resource=recipe.accelerator_resource, count=1))
        tolerations = (toleration_for(taint),)
        limits[recipe.accelerator_resource] = recipe.gpus
    return SchedulingInfo(dict(sorted(selector.items())), tolerations, limits)


def _resources(recipe: ResolvedRecipe, scheduling: SchedulingInfo) -> dict[str, Any]:
    requests: dict[str, str] = {}
    limits: dict[str, str] = {}
    if recipe.cpu is not None:
        # No CPU limit: CFS throttling slows GPU feeders without protecting anyone.
        requests["cpu"] = recipe.cpu
    if recipe.memory is not None:
        requests["memory"] = limits["memory"] = recipe.memory
    for resource, count in scheduling.limits.items():
        # Extended resources can't be overcommitted: requests must equal limits.
        requests[resource] = limits[resource] = str(count)
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = dict(sorted(requests.items()))
    if limits:
        resources["limits"] = dict(sorted(limits.items()))
    return resources


def _container(recipe: ResolvedRecipe, scheduling: SchedulingInfo) -> dict[str, Any]:
    container: dict[str, Any] = {"name": recipe.name, "image": recipe.image}
    if recipe.command:
        container["command"] = list(recipe.command)
    if recipe.args:
        container["args"] = list(recipe.args)
    if recipe.env:
        container["env"] = [{"name": key, "value": value} for key, value in recipe.env]
    if recipe.port is not None:
        container["ports"] = [{"containerPort": recipe.port, "protocol": "TCP"}]
    resources = _resources(recipe, scheduling)
    if resources:
        container["resources"] = resources
    return container


def _metadata(recipe: ResolvedRecipe) -> dict[str, Any]:
    return {
        "name": recipe.name,
        "namespace": recipe.namespace,
        "labels": {RECIPE_LABEL: recipe.name},
        "annotations": dict(SKIP_AWAIT),
    }


def deployment_manifest(recipe: ResolvedRecipe, scheduling: SchedulingInfo) -> dict[str, Any]:
    """`metadata` and `spec` of the recipe's Deployment."""
    pod_labels = {RECIPE_LABEL: recipe.name}
    pod_spec = {
        "nodeSelector": dict(scheduling.node_selector),
        "tolerations": [dict(t) for t in scheduling.tolerations],
        "containers": [_container(recipe, scheduling)],
        **termination_settings(recipe),
    }
    return {
        "metadata": _metadata(recipe),
        "spec": {
            "replicas": recipe.replicas,
            "selector": {"matchLabels": pod_labels},
            # Placement counted this recipe's replicas only: a surge pod would need
            # accelerators that other recipes hold and stay Pending, stalling the rollout.
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
            },
            "template": {"metadata": {"labels": dict(pod_labels)}, "spec": pod_spec},
        },
    }


def service_manifest(recipe: ResolvedRecipe) -> dict[str, Any] | None:
    """`metadata` and `spec` of the recipe's ClusterIP Service, or None without a port."""
    if recipe.port is None:
        return None
    return {
        "metadata": _metadata(recipe),
        "spec": {
            "type": "ClusterIP",
            "selector": {RECIPE_LABEL: recipe.name},
            "ports": [{"port": recipe.port, "targetPort": recipe.port, "protocol": "TCP"}],
        },
    }
