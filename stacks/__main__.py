"""The stack program: builds the fleet declared in this stack's `nodepools:*` config.

`pulumi up --stack dev` runs it for real; `python -m nodepools plan --stack dev` runs it
offline. Each pool's scheduling info is exported for workloads to use, and so is where
each recipe went.
"""

import pulumi
from nodepools.fleet.deploy import deploy_fleet, read_stack_config

config = read_stack_config()
built = deploy_fleet(config)


def names_in(section: str) -> set[str]:
    """The components of a config section, by the names its entries give (importing their
    classes for an isinstance check would load their specs into stacks that have none)."""
    return {entry["name"] for entry in config.get(section) or []}


pools, recipes = names_in("pools"), names_in("recipes")

pulumi.export(
    "pools",
    {
        name: {
            "pool_name": component.pool_name,
            "pool_id": component.pool_id,
            "scheduling_info": component.scheduling_info,
        }
        for name, component in built.items()
        if name in pools
    },
)

pulumi.export(
    "recipes",
    {
        name: {"placement": component.placement, "status": component.status}
        for name, component in built.items()
        if name in recipes
    },
)
