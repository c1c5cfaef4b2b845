"""nodepools: accelerator node pools on Kubernetes as typed Pulumi components.

The public API, re-exported. Cloud SDKs load only when a backend is first used.
"""

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
