"""Backends: a resolved spec in, provider resources out. One room per cloud for managed
pools (`eks`, `oke`, `rosa`), one per domain that has resources of its own (`karpenter`,
`devices`, `governance` for OSMO, `workloads`), the Kubernetes objects' classes
(`kubernetes`) and the dynamic providers' plumbing (`dynamic_support`, `http_retry`).

Backends are imported on first use, so `import nodepools` never loads a cloud SDK and a
user of one cloud never pays for another; each cloud's SDK is imported by its own
backend only, and a cloud SDK is an extra of the distribution (`extras`: which one each
kind needs, and the one-line refusal when it is missing). The cloud rooms are independent
of each other; `karpenter` uses the EKS
room's AWS pieces and `devices` the OKE room's add-ons.

May import: `nodepools.specs`, `nodepools.validation`, `nodepools.json_values`; never the
layers that call them (pools, workloads, devices, governance, fleet, planning).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

# cluster kind -> module exposing `build_pool(name, pool, parent) -> BuiltPool`
BACKEND_MODULES: dict[str, str] = {
    "eks": "nodepools.backends.eks.node_group",
    "oke": "nodepools.backends.oke.node_pool",
    "rosa": "nodepools.backends.rosa.machine_pool",
    # Karpenter pools render custom resources rather than build from a ResolvedPool; its
    # `build_pool` takes a ResolvedKarpenterPool.
    "karpenter": "nodepools.backends.karpenter",
}


# cluster kind -> "module:function" checking a ResolvedPool against that cloud's own rules
# (raising SpecError) without importing its SDK: run by every pool before registering.
BACKEND_CHECKS: dict[str, str] = {
    "eks": "nodepools.specs.pools.eks_tags:check_eks_pool",
    "rosa": "nodepools.backends.rosa.request_body:machine_pool_body",
    "oke": "nodepools.specs.pools.resolved_checks:check_resolved_pool",
}


@dataclass(frozen=True)
class BuiltPool:
    """What a backend made: the pool's cloud id and its main resource."""

    pool_id: Any  # pulumi.Output[str]
    resource: Any  # the node group / node pool / machine pool resource
    # EKS: the ARN of the role the nodes assume (given, or of the `node_role` it created).
    node_role_arn: Any = None  # pulumi.Output[str] | None
    # EKS: the `NodeRole` component of the role the pool created, None when given one.
    node_role: Any = None  # pulumi.ComponentResource | None


def backend_for(kind: str) -> ModuleType:
    try:
        module_name = BACKEND_MODULES[kind]
    except KeyError:
        raise ValueError(
            f"no backend for cluster kind {kind!r}; known kinds: {sorted(BACKEND_MODULES)}"
        ) from None
    return importlib.import_module(module_name)


def check_pool(pool: Any) -> None:
    """Run the cloud's own pre-registration check of `pool`, if its backend has one."""
    target = BACKEND_CHECKS.get(pool.cluster.kind)
    if target is not None:
        module_name, function = target.split(":")
        getattr(importlib.import_module(module_name), function)(pool)
