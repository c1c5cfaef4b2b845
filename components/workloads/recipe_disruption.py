"""A recipe on spot capacity: its PodDisruptionBudget and its pods' termination grace.

Pure: plain dicts, registered by `nodepools.backends.workloads`. See
`nodepools.specs.workloads.recipe_disruption` for why a spot recipe gets a budget.
"""

from __future__ import annotations

from typing import Any

from nodepools.specs.core.labels import RECIPE_LABEL
from nodepools.specs.workloads.recipe import ResolvedRecipe, matches
from nodepools.workloads.placement import Decision


def runs_on_spot(recipe: ResolvedRecipe, decision: Decision) -> bool:
    """Whether the recipe's pods can land on spot capacity.

    A placed recipe runs on its pool. A waiting one selects every shared node of its shape
    (and selector), so it runs on spot as soon as one of its matching candidates is spot. An
    unshared recipe names no pool: nothing says it runs on spot.
    """
    if decision.pool is not None:
        return decision.pool.spot
    if decision.status == "waiting":
        return any(
            pool.spot and matches(pool, recipe.shape, recipe.selector) for pool in recipe.pools
        )
    return False


def disruption_budget_manifest(recipe: ResolvedRecipe, decision: Decision) -> dict[str, Any] | None:
    """`metadata` and `spec` of the recipe's PodDisruptionBudget, or None: not on spot, or
    `disruption_budget: null`."""
    budget = recipe.disruption_budget
    if budget is None or not runs_on_spot(recipe, decision):
        return None
    return {
        "metadata": {
            "name": recipe.name,
            "namespace": recipe.namespace,
            "labels": {RECIPE_LABEL: recipe.name},
        },
        "spec": {
            **budget.spec_bound(),
            # The Deployment's own selector: exactly the recipe's pods.
            "selector": {"matchLabels": {RECIPE_LABEL: recipe.name}},
        },
    }


def termination_settings(recipe: ResolvedRecipe) -> dict[str, Any]:
    """Pod spec fields for how the recipe's pods are stopped (empty: Kubernetes' defaults)."""
    if recipe.termination_grace_period_seconds is None:
        return {}
    return {"terminationGracePeriodSeconds": recipe.termination_grace_period_seconds}
