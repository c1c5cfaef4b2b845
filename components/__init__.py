"""nodepools: accelerator node pools on Kubernetes as typed Pulumi components.

The public API, re-exported. Each name is imported from its module on first use
(PEP 562), so `import nodepools` costs next to nothing, and importing one part of the
library (`nodepools.validation` for the policy pack, the CLI) does not load every
component and model of the others. Cloud SDKs load only when a backend is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nodepools._lazy import lazy_exports

# public name -> the module (relative to this package) that defines it
_EXPORTS: dict[str, str] = {
    "Accelerator": ".specs",
    "AcceleratorStack": ".devices.accelerator_stack",
    "AcceleratorStackArgs": ".specs.devices.args",
    "EksCluster": ".specs",
    "GpuSpotPool": ".pools.gpu_spot_pool",
    "GpuSpotPoolArgs": ".specs",
    "KarpenterNodePool": ".pools.karpenter_node_pool",
    "KarpenterNodePoolArgs": ".specs",
    "MachinePool": ".pools.machine_pool",
    "MachinePoolArgs": ".specs",
    "NodeRole": ".pools.node_role",
    "NodeRoleArgs": ".specs.pools.node_role",
    "OkeCluster": ".specs",
    "OkeClusterAutoscaler": ".pools.oke_autoscaler",
    "OkeClusterAutoscalerArgs": ".specs.pools.oke_autoscaler",
    "KueueQueues": ".governance.kueue_queues",
    "KueueQueuesArgs": ".specs.governance.kueue",
    "OkePlacement": ".specs",
    "PoolComponent": ".pools.pool_component",
    "PoolPlatforms": ".governance.pool_platforms",
    "PoolPlatformsArgs": ".specs.governance.platforms",
    "PoolQuotas": ".governance.pool_quotas",
    "PoolQuotasArgs": ".specs.governance.quotas",
    "Recipe": ".workloads.recipe",
    "RecipeArgs": ".specs.workloads.recipe",
    "RosaCluster": ".specs",
    "Scaling": ".specs",
    "SchedulingInfo": ".scheduling",
    "SharedNodePool": ".pools.shared_node_pool",
    "SharedNodePoolArgs": ".specs.pools.shared",
    "SharedPoolDescription": ".specs.pools.shared",
    "SpecError": ".specs",
    "Spot": ".specs",
    "Taint": ".specs",
    "lookup_accelerator": ".specs",
}

# Spelled out (not derived from _EXPORTS) so linters and type checkers can read it.
__all__ = [
    "Accelerator",
    "AcceleratorStack",
    "AcceleratorStackArgs",
    "EksCluster",
    "GpuSpotPool",
    "GpuSpotPoolArgs",
    "KarpenterNodePool",
    "KarpenterNodePoolArgs",
    "KueueQueues",
    "KueueQueuesArgs",
    "MachinePool",
    "MachinePoolArgs",
    "NodeRole",
    "NodeRoleArgs",
    "OkeCluster",
    "OkeClusterAutoscaler",
    "OkeClusterAutoscalerArgs",
    "OkePlacement",
    "PoolComponent",
    "PoolPlatforms",
    "PoolPlatformsArgs",
    "PoolQuotas",
    "PoolQuotasArgs",
    "Recipe",
    "RecipeArgs",
    "RosaCluster",
    "Scaling",
    "SchedulingInfo",
    "SharedNodePool",
    "SharedNodePoolArgs",
    "SharedPoolDescription",
    "SpecError",
    "Spot",
    "Taint",
    "lookup_accelerator",
]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS, __all__)


if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, imported eagerly
    from nodepools.devices.accelerator_stack import AcceleratorStack
    from nodepools.governance.kueue_queues import KueueQueues
    from nodepools.governance.pool_platforms import PoolPlatforms
    from nodepools.governance.pool_quotas import PoolQuotas
    from nodepools.pools.gpu_spot_pool import GpuSpotPool
    from nodepools.pools.karpenter_node_pool import KarpenterNodePool
    from nodepools.pools.machine_pool import MachinePool
    from nodepools.pools.node_role import NodeRole
    from nodepools.pools.oke_autoscaler import OkeClusterAutoscaler
    from nodepools.pools.pool_component import PoolComponent
    from nodepools.pools.shared_node_pool import SharedNodePool
    from nodepools.scheduling import SchedulingInfo
    from nodepools.specs import (
        Accelerator,
        EksCluster,
        GpuSpotPoolArgs,
        KarpenterNodePoolArgs,
        MachinePoolArgs,
        OkeCluster,
        OkePlacement,
        RosaCluster,
        Scaling,
        SpecError,
        Spot,
        Taint,
        lookup_accelerator,
    )
    from nodepools.specs.devices.args import AcceleratorStackArgs
    from nodepools.specs.governance.kueue import KueueQueuesArgs
    from nodepools.specs.governance.platforms import PoolPlatformsArgs
    from nodepools.specs.governance.quotas import PoolQuotasArgs
    from nodepools.specs.pools.node_role import NodeRoleArgs
    from nodepools.specs.pools.oke_autoscaler import OkeClusterAutoscalerArgs
    from nodepools.specs.pools.shared import SharedNodePoolArgs, SharedPoolDescription
    from nodepools.specs.workloads.recipe import RecipeArgs
    from nodepools.workloads.recipe import Recipe
