"""Recipe: a workload deployed onto a shared pool, independent of the pools' lifecycle."""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.outputs import known_output
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.workloads.recipe import RecipeArgs, resolve_recipe
from nodepools.workloads.placement import decide
from nodepools.workloads.recipe_disruption import disruption_budget_manifest
from nodepools.workloads.recipe_manifests import (
    deployment_manifest,
    recipe_scheduling,
    service_manifest,
)


@documented(RecipeArgs)
class Recipe(pulumi.ComponentResource):
    """A Deployment (and a Service when `port` is set) placed onto one of its `pools`.

    Placement (see `nodepools.workloads.placement`): a pool of `node_shape` (with the
    `shared_pool_selector`, if given) with room for `gpus x replicas` accelerators, the
    most free one first, ties by name. A recipe that fits none is deployed anyway and
    waits: its pods select shared nodes of its shape and stay Pending until a matching
    pool exists. A standalone Recipe is placed alone against its own `pools` (it can't see
    what other recipes use) unless `placement` pins it; a fleet places all its recipes
    together and pins each. Recipes never parent or depend on pools: removing one never
    touches a pool, and a pool may be created after its recipes.

    On spot capacity (placed on a pool with `spot`, or waiting for a matching spot pool) it
    also gets a PodDisruptionBudget `<name>-pdb` selecting exactly its pods
    (`disruption_budget`, default `minAvailable: 0`; null for none).

    Outputs: `placement` (pool name or None), `status` (`placed`, `waiting`, or
    `unshared` when `use_shared_pool` is false), `deployment_name`, `service_name` (or
    None) and `scheduling_info`.
    """

    TYPE = "nodepools:index:Recipe"

    placement: pulumi.Output[str | None]
    status: pulumi.Output[str]
    deployment_name: pulumi.Output[str]
    service_name: pulumi.Output[str | None]
    scheduling_info: pulumi.Output[dict[str, Any]]

    def __init__(
        self,
        name: str,
        args: RecipeArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        spec = parse_spec(RecipeArgs, args, f"Recipe {name!r}")
        recipe = resolve_recipe(spec, name)
        decision = decide(recipe)
        scheduling = recipe_scheduling(recipe, decision)
        super().__init__(self.TYPE, name, {"spec": recipe.summary()}, opts)
        # The backend imports pulumi_kubernetes: only once a recipe is built.
        from nodepools.backends.workloads import build_disruption_budget, build_recipe

        built = build_recipe(
            name, deployment_manifest(recipe, scheduling), service_manifest(recipe), self
        )
        budget = disruption_budget_manifest(recipe, decision)
        if budget is not None:
            build_disruption_budget(name, budget, self)
        self.resolved = recipe
        self.decision = decision
        self.placement = pulumi.Output.from_input(decision.pool_name)
        self.status = pulumi.Output.from_input(decision.status)
        self.deployment_name = built.deployment_name
        self.service_name = built.service_name
        self.scheduling_info = known_output(scheduling.to_dict())
        self.register_outputs(
            {
                "placement": self.placement,
                "status": self.status,
                "deployment_name": self.deployment_name,
                "service_name": self.service_name,
                "scheduling_info": self.scheduling_info,
            }
        )
