"""OkeClusterAutoscaler: OKE's Cluster Autoscaler add-on, fed by a cluster's autoscaled pools.

An OKE node pool's autoscaling bounds do nothing by themselves: OKE resizes node pools only
when a cluster autoscaler is told which pools to manage and within which bounds. This
component installs OKE's own `ClusterAutoscaler` add-on (`oci.containerengine.Addon`) with
`nodes` = `min:max:<node pool OCID>` for every pool it is given, once per cluster. A fleet
(`deploy_fleet`) makes one for every OKE cluster with autoscaled pools, unless the cluster
says `cluster_autoscaler: null`; a program that builds pools itself makes one with
`OkeClusterAutoscaler.for_pools(name, [pool_a, pool_b])`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.preflight import checked
from nodepools.specs.clusters.targets import OkeAutoscalerAddon, is_basic
from nodepools.specs.core.base import Issue, SpecError, parse_spec
from nodepools.specs.pools.oke_autoscaler import OkeClusterAutoscalerArgs


@documented(OkeClusterAutoscalerArgs)
class OkeClusterAutoscaler(pulumi.ComponentResource):
    """The Cluster Autoscaler add-on of one OKE cluster. Outputs: `nodes` (the add-on's
    `nodes` argument) and `addon_id`."""

    TYPE = "nodepools:index:OkeClusterAutoscaler"

    nodes: pulumi.Output[str]
    addon_id: pulumi.Output[str]

    @classmethod
    def preflight(cls, name: str, args: Any) -> OkeClusterAutoscalerArgs:
        return parse_spec(OkeClusterAutoscalerArgs, args, f"OkeClusterAutoscaler {name!r}")

    @classmethod
    def for_pools(
        cls,
        name: str,
        pools: Sequence[Any],
        addon: OkeAutoscalerAddon | dict[str, Any] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> OkeClusterAutoscaler:
        """The add-on for OKE pool components (MachinePool, GpuSpotPool) of one cluster."""
        issues: list[str] = []
        ids = [getattr(p.resolved.cluster, "cluster_id", None) for p in pools]
        clusters = {i for i in ids if isinstance(i, str)}  # Outputs can't be compared now
        for pool in pools:
            resolved = pool.resolved
            if resolved.cluster.kind != "oke" or not resolved.autoscaled:
                issues.append(f"{resolved.pool_name!r} is not an autoscaled OKE pool")
            elif is_basic(resolved.cluster):
                issues.append(
                    f"{resolved.pool_name!r} is on a basic OKE cluster (`cluster_type: "
                    "basic`), which can't install add-ons; run the cluster autoscaler yourself"
                )
        if len(clusters) > 1:
            issues.append(f"the pools are on {len(clusters)} clusters; one add-on per cluster")
        if issues:
            raise SpecError(f"OkeClusterAutoscaler {name!r}", [Issue("pools", i) for i in issues])
        first = pools[0].resolved.cluster
        args: dict[str, Any] = {
            "cluster_id": first.cluster_id,
            "pools": [
                {
                    "name": p.resolved.pool_name,
                    "node_pool_id": p.pool_id,
                    "min_nodes": p.resolved.min_nodes,
                    "max_nodes": p.resolved.max_nodes,
                }
                for p in pools
            ],
        }
        if addon is not None:
            args["addon"] = addon
        return cls(name, args, opts)

    def __init__(self, name: str, args: Any, opts: pulumi.ResourceOptions | None = None):
        spec: OkeClusterAutoscalerArgs = checked(self, name, args)
        summary = {
            "authType": spec.addon.auth_type,
            "pools": [
                {"name": p.name, "minNodes": p.min_nodes, "maxNodes": p.max_nodes}
                for p in spec.pools
            ],
        }
        super().__init__(self.TYPE, name, {"spec": summary}, opts)
        from nodepools.backends.oke.addon import build_autoscaler

        addon = build_autoscaler(name, spec, self)
        self.nodes = addon.nodes
        self.addon_id = addon.addon_id
        self.register_outputs({"nodes": self.nodes, "addon_id": self.addon_id})
