"""A pool as AcceleratorStack serves it (`ServedPool` fields), from a resolved pool of any
kind: what it is called, which labels select its nodes, its taints and startup taints, its
accelerators, the instance types its nodes may have and whether they carry EFA."""

from __future__ import annotations

from typing import Any

from nodepools.specs.catalog.instance_types import catalog_accelerators
from nodepools.specs.karpenter.labels import (
    INSTANCE_FAMILY_LABEL,
    INSTANCE_TYPE_LABEL,
    NODEPOOL_LABEL,
)


def _karpenter_types(requirements: Any, resource: str | None) -> list[str]:
    """Instance types a Karpenter pool may launch, as far as its `In` requirements say:
    listed types, or the catalog's types of listed families that carry `resource`."""
    types: list[str] = []
    for requirement in requirements:
        if requirement.operator != "In":
            continue
        if requirement.key == INSTANCE_TYPE_LABEL:
            types += list(requirement.values)
        elif requirement.key == INSTANCE_FAMILY_LABEL:
            families = set(requirement.values)
            types += [
                name
                for name, acc in catalog_accelerators().items()
                if name.split(".", 1)[0] in families and acc.get("resource") == resource
            ]
    return sorted(set(types))


def served_pool(resolved: Any) -> dict[str, Any]:
    """`ServedPool` fields for a resolved pool (`ResolvedPool` or `ResolvedKarpenterPool`)."""
    accelerator = resolved.accelerator
    entry: dict[str, Any] = {
        "name": resolved.pool_name,
        "accelerator": accelerator,
        "taints": list(resolved.taints),
    }
    requirements = getattr(resolved, "requirements", None)
    if requirements is not None:  # Karpenter
        entry["startup_taints"] = list(resolved.startup_taints)
        entry["instance_types"] = _karpenter_types(
            requirements, accelerator.resource if accelerator else None
        )
        if not resolved.identity_label:
            # Karpenter labels every node it launches with its NodePool's name.
            entry["node_labels"] = {NODEPOOL_LABEL: resolved.pool_name}
    else:
        entry["instance_types"] = list(resolved.instance_types or [resolved.instance_type])
        if not resolved.identity_label:
            entry["node_labels"] = resolved.node_selector
    # EKS `network.efa` (interfaces per node) or Karpenter `efa`.
    if getattr(resolved, "efa_interfaces", 0) or getattr(resolved, "efa", False):
        entry["efa"] = True
    return entry
