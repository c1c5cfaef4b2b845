"""nodepools: accelerator node pools on Kubernetes as typed Pulumi components.

The public API, re-exported. Cloud SDKs load only when a backend is first used.
"""

from .gpu_spot_pool import GpuSpotPool
from .machine_pool import MachinePool
from .pool_component import PoolComponent
from .recipe import Recipe
from .scheduling import SchedulingInfo
from .shared_node_pool import SharedNodePool
from .specs import (
    Accelerator,
    EksCluster,
    GpuSpotPoolArgs,
    MachinePoolArgs,
    OkeCluster,
    OkePlacement,
    Scaling,
    SpecError,
    Spot,
    Taint,
    lookup_accelerator,
)
from .specs.recipe import RecipeArgs
from .specs.shared import SharedNodePoolArgs, SharedPoolDescription

__all__ = [
    "Accelerator",
    "EksCluster",
    "GpuSpotPool",
    "GpuSpotPoolArgs",
    "MachinePool",
    "MachinePoolArgs",
    "OkeCluster",
    "OkePlacement",
    "PoolComponent",
    "Recipe",
    "RecipeArgs",
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
