"""Pure value types (pydantic v2): what users write, with defaults applied and every rule
checked. Never imports pulumi or a cloud SDK.

One sub-package per domain, lowest first: `core` (base model, errors, labels, taints,
scaling), `catalog` (instance types, accelerators, prices), `clusters` (cluster targets and
what each cloud accepts), `pools` (managed pools and their settings), then `karpenter` and
`workloads` (recipes), then `devices` (device software) and `governance` (quotas,
platforms, OSMO). Each domain may import the domains before it, never one beside or after.

May import: `nodepools.validation` (Kubernetes syntax, quantities, CRD facts) and
`nodepools.json_values`. Names are re-exported here and imported from their module on
first use (PEP 562), so a user of one kind of pool does not build the models of every
other kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nodepools._lazy import lazy_exports

# public name -> the module (relative to this package) that defines it
_EXPORTS: dict[str, str] = {
    "ACCELERATOR_RESOURCES": ".catalog.accelerators",
    "AMD_GPU": ".catalog.accelerators",
    "AWS_NEURON": ".catalog.accelerators",
    "Accelerator": ".catalog.accelerators",
    "Budget": ".karpenter.disruption",
    "CAPABILITIES": ".clusters.capabilities",
    "CATALOG": ".catalog.accelerators",
    "ClusterTarget": ".clusters.targets",
    "Disruption": ".karpenter.disruption",
    "EksCluster": ".clusters.targets",
    "GpuSpotPoolArgs": ".pools.args",
    "Issue": ".core.base",
    "KarpenterNodePoolArgs": ".karpenter.args",
    "Labels": ".core.labels",
    "MAX_NODES_TAG": ".core.labels",
    "MIN_NODES_TAG": ".core.labels",
    "MachinePoolArgs": ".pools.args",
    "NVIDIA_GPU": ".catalog.accelerators",
    "NodeClassArgs": ".karpenter.node_class",
    "OkeCluster": ".clusters.targets",
    "OkePlacement": ".clusters.targets",
    "POOL_LABEL": ".core.labels",
    "POOL_SELECTOR_LABEL": ".core.labels",
    "PathError": ".core.base",
    "PoolArgsBase": ".pools.args",
    "ResolvedKarpenterPool": ".karpenter.resolve",
    "ResolvedPool": ".pools.resolve",
    "RosaCluster": ".clusters.rosa",
    "SHARED_POOL_LABEL": ".core.labels",
    "Scaling": ".core.scaling",
    "SpecError": ".core.base",
    "SpecModel": ".core.base",
    "Spot": ".core.scaling",
    "TAINT_EFFECTS": ".core.taints",
    "Taint": ".core.taints",
    "TaintEffect": ".core.taints",
    "Taints": ".core.taints",
    "accelerator_taint": ".pools.resolve",
    "is_bare_metal": ".catalog.accelerators",
    "is_flex": ".catalog.accelerators",
    "label_key_problem": ".core.labels",
    "label_value_problem": ".core.labels",
    "lookup_accelerator": ".catalog.accelerators",
    "merge_taints": ".core.taints",
    "parse_spec": ".core.parse",
    "resolve_gpu_spot_pool": ".pools.resolve",
    "resolve_karpenter_pool": ".karpenter.resolve",
    "resolve_pool": ".pools.resolve",
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
    from nodepools.specs.catalog.accelerators import (
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
    from nodepools.specs.clusters.capabilities import CAPABILITIES
    from nodepools.specs.clusters.rosa import RosaCluster
    from nodepools.specs.clusters.targets import (
        ClusterTarget,
        EksCluster,
        OkeCluster,
        OkePlacement,
    )
    from nodepools.specs.core.base import Issue, PathError, SpecError, SpecModel
    from nodepools.specs.core.labels import (
        MAX_NODES_TAG,
        MIN_NODES_TAG,
        POOL_LABEL,
        POOL_SELECTOR_LABEL,
        SHARED_POOL_LABEL,
        Labels,
        label_key_problem,
        label_value_problem,
    )
    from nodepools.specs.core.parse import parse_spec
    from nodepools.specs.core.scaling import Scaling, Spot
    from nodepools.specs.core.taints import TAINT_EFFECTS, Taint, TaintEffect, Taints, merge_taints
    from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
    from nodepools.specs.karpenter.disruption import Budget, Disruption
    from nodepools.specs.karpenter.node_class import NodeClassArgs
    from nodepools.specs.karpenter.resolve import ResolvedKarpenterPool, resolve_karpenter_pool
    from nodepools.specs.pools.args import GpuSpotPoolArgs, MachinePoolArgs, PoolArgsBase
    from nodepools.specs.pools.resolve import (
        ResolvedPool,
        accelerator_taint,
        resolve_gpu_spot_pool,
        resolve_pool,
    )
