"""OKE cluster add-ons (`pulumi_oci.containerengine.Addon`): the Cluster Autoscaler, and the
GPU device plugins of an AcceleratorStack."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
from nodepools.specs.pools.oke_autoscaler import (
    OkeClusterAutoscalerArgs,
    addon_configuration,
    nodes_value,
)
from pulumi_oci import containerengine

ADDON_NAME = "ClusterAutoscaler"


@dataclass(frozen=True)
class BuiltAutoscaler:
    nodes: Any  # pulumi.Output[str]
    addon_id: Any  # pulumi.Output[str]


def build_addon(
    name: str,
    addon_name: str,
    cluster_id: pulumi.Input[str],
    configurations: Mapping[str, pulumi.Input[str]],
    parent: pulumi.Resource,
    version: str | None = None,
) -> containerengine.Addon:
    """One add-on of the cluster, configured key by key (in the order given); removing it
    removes what it runs (its Deployment or DaemonSet) too."""
    return containerengine.Addon(
        name,
        addon_name=addon_name,
        cluster_id=cluster_id,
        version=version,
        remove_addon_resources_on_delete=True,
        configurations=[
            containerengine.AddonConfigurationArgs(key=key, value=value)
            for key, value in configurations.items()
        ],
        opts=pulumi.ResourceOptions(parent=parent),
    )


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
    addon = build_addon(
        f"{name}-addon",
        ADDON_NAME,
        spec.cluster_id,
        {c["key"]: c["value"] for c in addon_configuration(spec.addon, nodes)},
        parent,
    )
    return BuiltAutoscaler(nodes=nodes, addon_id=addon.id)
