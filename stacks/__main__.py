"""The stack program: builds the fleet declared in this stack's `nodepools:*` config.

`pulumi up --stack dev` runs it for real; `python -m nodepools plan --stack dev` runs it
offline. Each pool's scheduling info is exported for workloads to use, and so is where
each recipe went.
"""

import pulumi
from nodepools.fleet.deploy import deploy_fleet, read_stack_config
from nodepools.pools.pool_component import PoolComponent

config = read_stack_config()
built = deploy_fleet(config)
# Recipes by the names their config entries give (importing the Recipe class for an
# isinstance check would load the recipe modules into stacks that have none).
recipe_names = {entry["name"] for entry in config.get("recipes") or []}

pulumi.export(
    "pools",
    {
        name: {
            "pool_name": component.pool_name,
            "pool_id": component.pool_id,
            "scheduling_info": component.scheduling_info,
        }
        for name, component in built.items()
        if isinstance(component, PoolComponent)
    },
)

pulumi.export(
    "recipes",
    {
        name: {"placement": component.placement, "status": component.status}
        for name, component in built.items()
        if name in recipe_names
    },
)
