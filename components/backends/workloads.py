"""Kubernetes workloads (pulumi_kubernetes): a recipe's Deployment, Service and
PodDisruptionBudget.

The objects are rendered as plain dicts by `nodepools.workloads.recipe_manifests`; this module only
registers them, so `import nodepools` never loads pulumi_kubernetes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s


@dataclass(frozen=True)
class BuiltRecipe:
    deployment: Any  # k8s.apps.v1.Deployment
    service: Any  # k8s.core.v1.Service | None


def build_recipe(
    name: str,
    deployment: dict[str, Any],
    service: dict[str, Any] | None,
    parent: pulumi.Resource,
) -> BuiltRecipe:
    # Parented to the recipe only: a recipe never depends on a pool, so deleting it never
    # touches one, and its pool may be created later (the pods wait until then).
    child = pulumi.ResourceOptions(parent=parent)
    built_deployment = k8s.apps.v1.Deployment(
        f"{name}-deployment",
        metadata=deployment["metadata"],
        spec=deployment["spec"],
        opts=child,
    )
    built_service = (
        k8s.core.v1.Service(
            f"{name}-service", metadata=service["metadata"], spec=service["spec"], opts=child
        )
        if service is not None
        else None
    )
    return BuiltRecipe(built_deployment, built_service)


def build_disruption_budget(
    name: str, budget: dict[str, Any], parent: pulumi.Resource
) -> Any:  # k8s.policy.v1.PodDisruptionBudget
    return k8s.policy.v1.PodDisruptionBudget(
        f"{name}-pdb",
        metadata=budget["metadata"],
        spec=budget["spec"],
        opts=pulumi.ResourceOptions(parent=parent),
    )
