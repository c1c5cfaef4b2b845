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
from typing import TYPE_CHECKING, Any, cast

import pulumi
from nodepools.backends.extras import OCI, require
from nodepools.documentation import documented
from nodepools.preflight import checked
from nodepools.specs.clusters.targets import OkeAutoscalerAddon, is_basic
from nodepools.specs.core.base import Issue, SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.oke_autoscaler import OkeClusterAutoscalerArgs
from nodepools.specs.pools.protocol import ResolvedPoolProtocol

if TYPE_CHECKING:
    from nodepools.pools.pool_component import PoolComponent
    from nodepools.specs.pools.resolve import ResolvedPool


@documented(OkeClusterAutoscalerArgs)
class OkeClusterAutoscaler(pulumi.ComponentResource):
    """The Cluster Autoscaler add-on of one OKE cluster. Outputs: `nodes` (the add-on's
    `nodes` argument) and `addon_id`."""

    TYPE = "nodepools:index:OkeClusterAutoscaler"

    nodes: pulumi.Output[str]
    addon_id: pulumi.Output[str]

    @classmethod
    def preflight(cls, name: str, args: Any) -> OkeClusterAutoscalerArgs:
        spec = parse_spec(OkeClusterAutoscalerArgs, args, f"OkeClusterAutoscaler {name!r}")
        require(OCI, f"OkeClusterAutoscaler {name!r}", "an OKE cluster add-on")
        return spec

    @classmethod
    def for_pools(
        cls,
        name: str,
        pools: Sequence[PoolComponent[ResolvedPool]] | Any,
        addon: OkeAutoscalerAddon | dict[str, Any] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> OkeClusterAutoscaler:
        """The add-on for OKE pool components (MachinePool, GpuSpotPool) of one cluster."""
        subject = f"OkeClusterAutoscaler {name!r}"
        if isinstance(pools, str | bytes) or not isinstance(pools, Sequence) or not pools:
            raise SpecError(
                subject,
                [
                    Issue(
                        "pools",
                        f"{pools!r}: give a list of at least one autoscaled OKE pool component "
                        "(MachinePool, GpuSpotPool), e.g. "
                        f"`OkeClusterAutoscaler.for_pools({name!r}, [pool])`",
                    )
                ],
            )
        issues: list[Issue] = []
        given = cast("Sequence[Any]", pools)
        for index, pool in enumerate(given):
            resolved: Any = getattr(pool, "resolved", None)
            if getattr(resolved, "cluster", None) is None:
                issues.append(
                    Issue(
                        f"pools[{index}]",
                        f"{pool!r} is not a managed pool component (MachinePool, GpuSpotPool)",
                    )
                )
            elif resolved.cluster.kind != "oke" or not resolved.autoscaled:
                issues.append(
                    Issue(
                        f"pools[{index}]", f"{resolved.pool_name!r} is not an autoscaled OKE pool"
                    )
                )
            elif is_basic(resolved.cluster):
                issues.append(
                    Issue(
                        f"pools[{index}]",
                        f"{resolved.pool_name!r} is on a basic OKE cluster (`cluster_type: "
                        "basic`), which can't install add-ons; run the cluster autoscaler "
                        "yourself",
                    )
                )
        # An Output can't be compared before deploy: only the known ids count.
        clusters = {
            i for i in (_cluster_id(p.resolved) for p in given if not issues) if isinstance(i, str)
        }
        if len(clusters) > 1:
            issues.append(
                Issue("pools", f"the pools are on {len(clusters)} clusters; one add-on per cluster")
            )
        if issues:
            raise SpecError(subject, issues)
        pools = cast("Sequence[PoolComponent[ResolvedPool]]", pools)
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
        spec: OkeClusterAutoscalerArgs = checked(self, name, args, opts)
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


def _cluster_id(pool: ResolvedPoolProtocol) -> object:
    """The id of the pool's cluster (OKE, ROSA); None for a cluster known by name (EKS)."""
    cluster = pool.cluster
    if cluster is None or cluster.kind == "eks":
        return None
    return cluster.cluster_id
