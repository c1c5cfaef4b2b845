"""Kubernetes workloads: a recipe's Deployment, Service and PodDisruptionBudget.

Their `metadata` and `spec` are rendered as plain dicts by
`nodepools.workloads.recipe_manifests`; this module registers them through pulumi_kubernetes's
typed classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pulumi
from pulumi_kubernetes.apps.v1 import Deployment
from pulumi_kubernetes.core.v1 import Service
from pulumi_kubernetes.policy.v1 import PodDisruptionBudget


@dataclass(frozen=True)
class BuiltRecipe:
    deployment: Deployment
    service: Service | None
    # `metadata.name` of each, as the API server returns it.
    deployment_name: pulumi.Output[str]
    service_name: pulumi.Output[str | None]


def build_recipe(
    name: str,
    deployment: dict[str, Any],
    service: dict[str, Any] | None,
    parent: pulumi.Resource,
) -> BuiltRecipe:
    # Parented to the recipe only: a recipe never depends on a pool, so deleting it never
    # touches one, and its pool may be created later (the pods wait until then).
    child = pulumi.ResourceOptions(parent=parent)
    built_deployment = Deployment(
        f"{name}-deployment", metadata=deployment["metadata"], spec=deployment["spec"], opts=child
    )
    built_service = (
        Service(f"{name}-service", metadata=service["metadata"], spec=service["spec"], opts=child)
        if service is not None
        else None
    )
    return BuiltRecipe(
        deployment=built_deployment,
        service=built_service,
        deployment_name=built_deployment.metadata.apply(
            lambda metadata: cast("str", metadata.name)
        ),
        service_name=built_service.metadata.apply(lambda metadata: metadata.name)
        if built_service is not None
        else pulumi.Output.from_input(None),
    )


def build_disruption_budget(
    name: str, budget: dict[str, Any], parent: pulumi.Resource
) -> PodDisruptionBudget:
    return PodDisruptionBudget(
        f"{name}-pdb",
        metadata=budget["metadata"],
        spec=budget["spec"],
        opts=pulumi.ResourceOptions(parent=parent),
    )
