"""OKE's Cluster Autoscaler add-on (`oci:ContainerEngine/addon:Addon`, provider_resource)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
from nodepools.backends.provider_resource import OkeAddon
from nodepools.specs.pools.oke_autoscaler import (
    OkeClusterAutoscalerArgs,
    addon_configuration,
    nodes_value,
)

ADDON_NAME = "ClusterAutoscaler"


@dataclass(frozen=True)
class BuiltAutoscaler:
    nodes: Any  # pulumi.Output[str]
    addon_id: Any  # pulumi.Output[str]


def build_autoscaler(
    name: str, spec: OkeClusterAutoscalerArgs, parent: pulumi.Resource
) -> BuiltAutoscaler:
    """One add-on; its `nodes` waits for the node pools' OCIDs."""
    bounds = [(p.min_nodes, p.max_nodes, p.node_pool_id) for p in spec.pools]
    nodes = pulumi.Output.all(*(pool_id for _, _, pool_id in bounds)).apply(
        lambda ids: nodes_value(
            [(low, high, i) for (low, high, _), i in zip(bounds, ids, strict=True)]
        )
    )
    addon = OkeAddon(
        f"{name}-addon",
        {
            "addonName": ADDON_NAME,
            "clusterId": spec.cluster_id,
            # The add-on's Deployment goes with it: nothing of ours is left scaling pools.
            "removeAddonResourcesOnDelete": True,
            "configurations": [
                {"key": c["key"], "value": c["value"]}
                for c in addon_configuration(spec.addon, nodes)
            ],
        },
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return BuiltAutoscaler(nodes=nodes, addon_id=addon.id)
