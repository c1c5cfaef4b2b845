"""SharedNodePool: long-lived, fixed-size capacity that recipes are placed onto and leave."""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.pools.pool_component import PoolComponent
from nodepools.preflight import checked
from nodepools.scheduling import SchedulingInfo
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.resolve import ResolvedPool
from nodepools.specs.pools.shared import (
    SharedNodePoolArgs,
    SharedPoolDescription,
    describe_shared_pool,
    resolve_shared_pool,
)


@documented(SharedNodePoolArgs)
class SharedNodePool(PoolComponent[ResolvedPool]):
    """A node pool shared by recipes (OKE first; EKS through the same backends).

    Its nodes carry the pool identity label, `nodepools.dev/shared-pool: "true"` and, with
    a `selector`, `nodepools.dev/pool-selector: <selector>`. Accelerator shapes are tainted
    `<accelerator resource>=true:NoSchedule` by default, spot pools (`spot`) also
    `spot=true:PreferNoSchedule`. Its `scheduling_info` asks for one
    accelerator per pod (the pool is shared; a Recipe sets its own count).

    Outputs: the pool outputs plus `shape`, `selector`, `gpus_per_node`, `total_gpus`.
    `pool_description` is what a `Recipe` takes in `pools`.
    """

    TYPE = "nodepools:index:SharedNodePool"
    # EKS: the IAM role the nodes assume (the cluster's `node_role_arn`, else the pool's
    # own NodeRole's); None on OKE and ROSA.
    node_role_arn: pulumi.Output[str | None]

    shape: pulumi.Output[str]
    selector: pulumi.Output[str | None]
    gpus_per_node: pulumi.Output[int]
    total_gpus: pulumi.Output[int]

    @classmethod
    def resolve(cls, name: str, args: SharedNodePoolArgs | dict[str, Any]) -> ResolvedPool:
        spec = parse_spec(SharedNodePoolArgs, args, f"SharedNodePool {name!r}")
        return resolve_shared_pool(spec, name)

    def __init__(
        self,
        name: str,
        args: SharedNodePoolArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        pool = checked(self, name, args, opts)
        self.pool_description: SharedPoolDescription = describe_shared_pool(pool)
        super().__init__(self.TYPE, name, pool, opts)
        self.scheduling = SchedulingInfo.for_pool(
            pool.pool_name,
            pool.taints,
            pool.accelerator,
            accelerators_per_pod=1 if pool.accelerator else None,
        )
        self._publish(self._backend().build_pool(name, self.resolved, self))
        description = self.pool_description
        self.shape = pulumi.Output.from_input(description.shape)
        self.selector = pulumi.Output.from_input(description.selector)
        self.gpus_per_node = pulumi.Output.from_input(pool.accelerators_per_node)
        self.total_gpus = pulumi.Output.from_input(description.total_gpus)
        self.register_outputs(
            {
                **self._pool_outputs(),
                "shape": self.shape,
                "selector": self.selector,
                "gpus_per_node": self.gpus_per_node,
                "total_gpus": self.total_gpus,
            }
        )
