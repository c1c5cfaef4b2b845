"""nodepools: accelerator node pools on Kubernetes as typed Pulumi components.

The public API, re-exported. Each name is imported from its module on first use
(PEP 562), so `import components` costs next to nothing, and importing one part of the
library (`components.validation` for the policy pack, the CLI) does not load every
component and model of the others. Cloud SDKs load only when a backend is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

# public name -> the module (relative to this package) that defines it
_EXPORTS: dict[str, str] = {
    "Accelerator": ".specs",
    "EksCluster": ".specs",
    "GpuSpotPool": ".gpu_spot_pool",
    "GpuSpotPoolArgs": ".specs",
    "KarpenterNodePool": ".karpenter_node_pool",
    "KarpenterNodePoolArgs": ".specs",
    "MachinePool": ".machine_pool",
    "MachinePoolArgs": ".specs",
    "OkeCluster": ".specs",
    "OkePlacement": ".specs",
    "PoolComponent": ".pool_component",
    "PoolPlatforms": ".platforms",
    "PoolPlatformsArgs": ".specs.platforms",
    "PoolQuotas": ".quotas",
    "PoolQuotasArgs": ".specs.quotas",
    "Recipe": ".recipe",
    "RecipeArgs": ".specs.recipe",
    "RosaCluster": ".specs",
    "Scaling": ".specs",
    "SchedulingInfo": ".scheduling",
    "SharedNodePool": ".shared_node_pool",
    "SharedNodePoolArgs": ".specs.shared",
    "SharedPoolDescription": ".specs.shared",
    "SpecError": ".specs",
    "Spot": ".specs",
    "Taint": ".specs",
    "lookup_accelerator": ".specs",
}

# Spelled out (not derived from _EXPORTS) so linters and type checkers can read it.
__all__ = [
    "Accelerator",
    "EksCluster",
    "GpuSpotPool",
    "GpuSpotPoolArgs",
    "KarpenterNodePool",
    "KarpenterNodePoolArgs",
    "MachinePool",
    "MachinePoolArgs",
    "OkeCluster",
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
    from .gpu_spot_pool import GpuSpotPool
    from .karpenter_node_pool import KarpenterNodePool
    from .machine_pool import MachinePool
    from .platforms import PoolPlatforms
    from .pool_component import PoolComponent
    from .quotas import PoolQuotas
    from .recipe import Recipe
    from .scheduling import SchedulingInfo
    from .shared_node_pool import SharedNodePool
    from .specs import (
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
    from .specs.platforms import PoolPlatformsArgs
    from .specs.quotas import PoolQuotasArgs
    from .specs.recipe import RecipeArgs
    from .specs.shared import SharedNodePoolArgs, SharedPoolDescription
