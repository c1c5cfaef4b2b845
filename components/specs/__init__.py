"""Pure value types (pydantic v2): no pulumi or cloud SDK import, ever."""

from .accelerators import (
    ACCELERATOR_RESOURCES,
    AMD_GPU,
    AWS_NEURON,
    CATALOG,
    NVIDIA_GPU,
    Accelerator,
    is_bare_metal,
    is_flex,
    lookup_accelerator,
)
from .base import Issue, PathError, SpecError, SpecModel, parse_spec
from .clusters import CAPABILITIES, ClusterTarget, EksCluster, OkeCluster, OkePlacement
from .karpenter import (
    Budget,
    Disruption,
    KarpenterNodePoolArgs,
    ResolvedKarpenterPool,
    resolve_karpenter_pool,
)
from .karpenter_node_class import NodeClassArgs
from .labels import (
    MAX_NODES_TAG,
    MIN_NODES_TAG,
    POOL_LABEL,
    POOL_SELECTOR_LABEL,
    SHARED_POOL_LABEL,
    Labels,
    label_key_problem,
    label_value_problem,
)
from .pools import (
    GpuSpotPoolArgs,
    MachinePoolArgs,
    PoolArgsBase,
    ResolvedPool,
    accelerator_taint,
    resolve_gpu_spot_pool,
    resolve_pool,
)
from .rosa import RosaCluster
from .scaling import Scaling, Spot
from .taints import TAINT_EFFECTS, Taint, TaintEffect, Taints, merge_taints

__all__ = [
    "ACCELERATOR_RESOURCES",
    "AMD_GPU",
    "AWS_NEURON",
    "CAPABILITIES",
    "CATALOG",
    "MAX_NODES_TAG",
    "MIN_NODES_TAG",
    "NVIDIA_GPU",
    "POOL_LABEL",
    "POOL_SELECTOR_LABEL",
    "SHARED_POOL_LABEL",
    "TAINT_EFFECTS",
    "Accelerator",
    "Budget",
    "ClusterTarget",
    "Disruption",
    "EksCluster",
    "GpuSpotPoolArgs",
    "Issue",
    "KarpenterNodePoolArgs",
    "Labels",
    "MachinePoolArgs",
    "NodeClassArgs",
    "OkeCluster",
    "OkePlacement",
    "PathError",
    "PoolArgsBase",
    "ResolvedKarpenterPool",
    "ResolvedPool",
    "RosaCluster",
    "Scaling",
    "SpecError",
    "SpecModel",
    "Spot",
    "Taint",
    "TaintEffect",
    "Taints",
    "accelerator_taint",
    "is_bare_metal",
    "is_flex",
    "label_key_problem",
    "label_value_problem",
    "lookup_accelerator",
    "merge_taints",
    "parse_spec",
    "resolve_gpu_spot_pool",
    "resolve_karpenter_pool",
    "resolve_pool",
]
