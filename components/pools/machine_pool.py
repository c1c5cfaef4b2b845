"""MachinePool: a node pool on any supported cluster (EKS, OKE; ROSA through its backend)."""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.pools.pool_component import PoolComponent
from nodepools.preflight import checked
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.args import MachinePoolArgs
from nodepools.specs.pools.resolve import ResolvedPool, resolve_pool


@documented(MachinePoolArgs)
class MachinePool(PoolComponent[ResolvedPool]):
    """A node pool with labels, taints, fixed or autoscaled size, spot and boot volume.

    `args` is a `MachinePoolArgs` or the equivalent dict; every problem is reported at
    once, with its path, before anything is registered.
    """

    TYPE = "nodepools:index:MachinePool"
    # EKS: the IAM role the nodes assume (the cluster's `node_role_arn`, else the pool's
    # own NodeRole's); None on OKE and ROSA.
    node_role_arn: pulumi.Output[str | None]

    @classmethod
    def resolve(cls, name: str, args: MachinePoolArgs | dict[str, Any]) -> ResolvedPool:
        spec = parse_spec(MachinePoolArgs, args, f"MachinePool {name!r}")
        return resolve_pool(spec, name)

    def __init__(
        self,
        name: str,
        args: MachinePoolArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        pool = checked(self, name, args, opts)
        super().__init__(self.TYPE, name, pool, opts)
        self._publish(self._backend().build_pool(name, self.resolved, self))
        self.register_outputs(self._pool_outputs())
