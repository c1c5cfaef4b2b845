"""Pure value types (pydantic v2): no pulumi or cloud SDK import, ever.

Re-exported by name; each name is imported from its module on first use (PEP 562), so a
user of one kind of pool does not build the models of every other kind (the Karpenter
specs are a third of this package's import time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nodepools._lazy import lazy_exports

# public name -> the module (relative to this package) that defines it
_EXPORTS: dict[str, str] = {
    "ACCELERATOR_RESOURCES": ".accelerators",
    "AMD_GPU": ".accelerators",
    "AWS_NEURON": ".accelerators",
    "Accelerator": ".accelerators",
    "Budget": ".karpenter_args",
    "CAPABILITIES": ".clusters",
    "CATALOG": ".accelerators",
    "ClusterTarget": ".clusters",
    "Disruption": ".karpenter_args",
    "EksCluster": ".clusters",
    "GpuSpotPoolArgs": ".pools",
    "Issue": ".base",
    "KarpenterNodePoolArgs": ".karpenter_args",
    "Labels": ".labels",
    "MAX_NODES_TAG": ".labels",
    "MIN_NODES_TAG": ".labels",
    "MachinePoolArgs": ".pools",
    "NVIDIA_GPU": ".accelerators",
    "NodeClassArgs": ".karpenter_node_class",
    "OkeCluster": ".clusters",
    "OkePlacement": ".clusters",
    "POOL_LABEL": ".labels",
    "POOL_SELECTOR_LABEL": ".labels",
    "PathError": ".base",
    "PoolArgsBase": ".pools",
    "ResolvedKarpenterPool": ".karpenter_resolve",
    "ResolvedPool": ".pools",
    "RosaCluster": ".rosa_cluster",
    "SHARED_POOL_LABEL": ".labels",
    "Scaling": ".scaling",
    "SpecError": ".base",
    "SpecModel": ".base",
    "Spot": ".scaling",
    "TAINT_EFFECTS": ".taints",
    "Taint": ".taints",
    "TaintEffect": ".taints",
    "Taints": ".taints",
    "accelerator_taint": ".pools",
    "is_bare_metal": ".accelerators",
    "is_flex": ".accelerators",
    "label_key_problem": ".labels",
    "label_value_problem": ".labels",
    "lookup_accelerator": ".accelerators",
    "merge_taints": ".taints",
    "parse_spec": ".base",
    "resolve_gpu_spot_pool": ".pools",
    "resolve_karpenter_pool": ".karpenter_resolve",
    "resolve_pool": ".pools",
}

# Spelled out (not derived from _EXPORTS) so linters and type checkers can read it.
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


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS, __all__)


if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, imported eagerly
    from nodepools.specs.accelerators import (
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
    from nodepools.specs.base import Issue, PathError, SpecError, SpecModel, parse_spec
    from nodepools.specs.clusters import (
        CAPABILITIES,
        ClusterTarget,
        EksCluster,
        OkeCluster,
        OkePlacement,
    )
    from nodepools.specs.karpenter_args import Budget, Disruption, KarpenterNodePoolArgs
    from nodepools.specs.karpenter_node_class import NodeClassArgs
    from nodepools.specs.karpenter_resolve import ResolvedKarpenterPool, resolve_karpenter_pool
    from nodepools.specs.labels import (
        MAX_NODES_TAG,
        MIN_NODES_TAG,
        POOL_LABEL,
        POOL_SELECTOR_LABEL,
        SHARED_POOL_LABEL,
        Labels,
        label_key_problem,
        label_value_problem,
    )
    from nodepools.specs.pools import (
        GpuSpotPoolArgs,
        MachinePoolArgs,
        PoolArgsBase,
        ResolvedPool,
        accelerator_taint,
        resolve_gpu_spot_pool,
        resolve_pool,
    )
    from nodepools.specs.rosa_cluster import RosaCluster
    from nodepools.specs.scaling import Scaling, Spot
    from nodepools.specs.taints import TAINT_EFFECTS, Taint, TaintEffect, Taints, merge_taints
