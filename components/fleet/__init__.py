"""A whole fleet from stack config: clusters, pools, recipes and governance, validated at once."""

from nodepools.fleet.deploy import deploy_fleet, read_stack_config, validate_fleet

__all__ = ["deploy_fleet", "read_stack_config", "validate_fleet"]
