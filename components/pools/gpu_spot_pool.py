"""GpuSpotPool: a MachinePool with accelerator and spot defaults."""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.pools.pool_component import PoolComponent
from nodepools.preflight import checked
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.args import GpuSpotPoolArgs
from nodepools.specs.pools.resolve import ResolvedPool, resolve_gpu_spot_pool


@documented(GpuSpotPoolArgs)
class GpuSpotPool(PoolComponent[ResolvedPool]):
    """Spot accelerator capacity that scales from zero and keeps other pods off.

    Defaults: autoscaling 0..3, spot on, taints `<accelerator>=true:NoSchedule` and
    `spot=true:PreferNoSchedule`, label `node-type=gpu` (see `GpuSpotPoolArgs`). On OKE its
    taints also hold `oci.oraclecloud.com/oke-is-preemptible:NoSchedule`, which OKE puts on
    preemptible nodes itself (tolerated by its scheduling info, never registered), and
    scale from zero needs `nvidia.com/gpu` nodes (the OCI cluster autoscaler's only GPU
    resource): elsewhere give `autoscaling.min_replicas` of at least 1.
    """

    TYPE = "nodepools:index:GpuSpotPool"
    # EKS: the IAM role the nodes assume (the cluster's `node_role_arn`, else the pool's
    # own NodeRole's); None on OKE and ROSA.
    node_role_arn: pulumi.Output[str | None]

    @classmethod
    def resolve(cls, name: str, args: GpuSpotPoolArgs | dict[str, Any]) -> ResolvedPool:
        spec = parse_spec(GpuSpotPoolArgs, args, f"GpuSpotPool {name!r}")
        return resolve_gpu_spot_pool(spec, name)

    def __init__(
        self,
        name: str,
        args: GpuSpotPoolArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        pool = checked(self, name, args, opts)
        super().__init__(self.TYPE, name, pool, opts)
        self._publish(self._backend().build_pool(name, self.resolved, self))
        self.register_outputs(self._pool_outputs())
