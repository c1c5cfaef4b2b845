"""A whole fleet from stack configuration: clusters, pools, device software, recipes and
governance, every entry validated before any is built.

May import: the component packages (`pools`, `workloads`, `devices`, `governance`) and
everything below them; never `planning` or `provider`.
"""

from nodepools.fleet.deploy import deploy_fleet, read_stack_config, validate_fleet

__all__ = ["deploy_fleet", "read_stack_config", "validate_fleet"]
