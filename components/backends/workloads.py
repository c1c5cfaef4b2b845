"""Kubernetes workloads: a recipe's Deployment, Service and PodDisruptionBudget.

The objects are rendered as plain dicts by `nodepools.workloads.recipe_manifests`; this
module only registers them, as pulumi_kubernetes's typed classes do (`KubernetesObject`),
without importing pulumi_kubernetes (its core/v1 module alone costs a cold plan ~250 ms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
from nodepools.backends.provider_resource import KubernetesObject


@dataclass(frozen=True)
class BuiltRecipe:
    deployment: KubernetesObject
    service: KubernetesObject | None


def _manifest(api_version: str, kind: str, rendered: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, **rendered}


def build_recipe(
    name: str,
    deployment: dict[str, Any],
    service: dict[str, Any] | None,
    parent: pulumi.Resource,
) -> BuiltRecipe:
    # Parented to the recipe only: a recipe never depends on a pool, so deleting it never
    # touches one, and its pool may be created later (the pods wait until then).
    child = pulumi.ResourceOptions(parent=parent)
    built_deployment = KubernetesObject(
        f"{name}-deployment", _manifest("apps/v1", "Deployment", deployment), opts=child
    )
    built_service = (
        KubernetesObject(f"{name}-service", _manifest("v1", "Service", service), opts=child)
        if service is not None
        else None
    )
    return BuiltRecipe(built_deployment, built_service)


def build_disruption_budget(
    name: str, budget: dict[str, Any], parent: pulumi.Resource
) -> KubernetesObject:
    return KubernetesObject(
        f"{name}-pdb",
        _manifest("policy/v1", "PodDisruptionBudget", budget),
        opts=pulumi.ResourceOptions(parent=parent),
    )
