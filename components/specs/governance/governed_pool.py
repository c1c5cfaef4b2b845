"""A pool as governance sees it: how to select its nodes, its taints, its capacity.

PoolQuotas and PoolPlatforms take pools either as pool components (their `.resolved`
spec is read: a `ResolvedPool` of the managed node-group pools or a Karpenter pool's
`ResolvedKarpenterPool`) or as plain descriptions of pools that exist outside this program
(a Run:ai or OSMO cluster's node pools often do). All become a `PoolDescription`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

from nodepools.specs.catalog.accelerators import NVIDIA_GPU
from nodepools.specs.core.base import SpecModel
from nodepools.specs.core.kube import Amount, ObjectName
from nodepools.specs.core.labels import POOL_LABEL, LabelKey, Labels
from nodepools.specs.core.taints import Taint, Taints
from pydantic import BeforeValidator, Field

if TYPE_CHECKING:
    from nodepools.specs.karpenter.resolve import ResolvedKarpenterPool
    from nodepools.specs.pools.resolve import ResolvedPool

# Where the resolved pools live. Not imported here: a stack without such pools (governance
# of pools described by hand, or no Karpenter pool) would build their specs' models only
# to find none. An instance of either exists only once its module is loaded.
_POOLS = "nodepools.specs.pools.resolve"
_KARPENTER_RESOLVE = "nodepools.specs.karpenter.resolve"

DEFAULT_POOL = "default"


class PoolDescription(SpecModel):
    """A pool: its name, the node labels that select it, its taints and its capacity."""

    name: ObjectName = Field(
        description="Pool name; `default` stands for the nodes in no other pool. Its "
        "Kubernetes form (lowercase, `_` -> `-`) names the pool's objects. Required."
    )
    node_labels: Labels = Field(
        default_factory=dict,
        description="Labels every node of the pool carries (and no node outside it); "
        "default {} (PoolQuotas wants them on every pool but `default`).",
    )
    taints: Taints = Field(
        default_factory=list[Taint], description="The pool's node taints; default []."
    )
    gpus: int = Field(
        default=0, ge=0, description="Accelerators in the whole pool (all nodes); default 0."
    )
    cpu: Amount | None = Field(
        default=None, description="CPU cores in the whole pool; default None (unknown)."
    )
    memory: Amount | None = Field(
        default=None, description="Memory of the whole pool, e.g. `4880Gi`; default None (unknown)."
    )
    gpu_resource: LabelKey = Field(
        default=NVIDIA_GPU,
        description=f"Extended resource the pool's accelerators are counted in; default `{NVIDIA_GPU}`.",
    )
    gpus_per_node: int | None = Field(
        default=None,
        ge=1,
        description="Accelerators per node (a pod can't use more); default None (unknown).",
    )

    @property
    def is_default(self) -> bool:
        return self.name == DEFAULT_POOL


def describe_resolved(pool: ResolvedPool, name: str | None = None) -> dict[str, Any]:
    """A pool component's description: selected by its identity label, capacity at max size.

    `name` is how the governance spec refers to it (the fleet entry or component name).
    CPU and memory capacity are left unknown: the catalog knows accelerators, not cores.
    """
    accelerator = pool.accelerator
    description: dict[str, Any] = {
        "name": name or pool.component_name,
        # The identity label, or every label of a pool without one (`identity_label: false`).
        "node_labels": pool.node_selector,
        "taints": list(pool.taints),
        "gpus": pool.accelerators_per_node * pool.max_nodes,
    }
    if accelerator is not None:
        description["gpu_resource"] = accelerator.resource
        description["gpus_per_node"] = accelerator.count
    return description


def describe_karpenter(pool: ResolvedKarpenterPool, name: str | None = None) -> dict[str, Any]:
    """A Karpenter pool's description: selected by its identity label (a template label of
    its NodePool), capacity from its `limits`, the most Karpenter will launch.

    Accelerators count in the resource the pool can launch, up to its limit on it (the
    component requires one); cpu and memory are known when the pool limits them.
    """
    description: dict[str, Any] = {
        "name": name or pool.component_name,
        "node_labels": {POOL_LABEL: pool.pool_name},
        "taints": list(pool.taints),
        "gpus": 0,
    }
    resource = pool.profile.launchable
    if resource is not None:
        description["gpu_resource"] = resource
        description["gpus"] = int(pool.limits.get(resource, 0))
        if pool.profile.accelerator_only and pool.profile.counts:
            description["gpus_per_node"] = min(pool.profile.counts)
    for key in ("cpu", "memory"):
        if key in pool.limits:
            description[key] = pool.limits[key]
    return description


def describe_pool(value: Any, name: str | None = None) -> dict[str, Any] | None:
    """The description of a pool component or a resolved pool spec, or None for anything
    else. Components are duck-typed (by `.resolved`): this package never imports pulumi."""
    resolved = getattr(value, "resolved", value)
    pools = sys.modules.get(_POOLS)
    if pools is not None and isinstance(resolved, pools.ResolvedPool):
        return describe_resolved(resolved, name)
    karpenter = sys.modules.get(_KARPENTER_RESOLVE)
    if karpenter is not None and isinstance(resolved, karpenter.ResolvedKarpenterPool):
        return describe_karpenter(resolved, name)
    return None


def _from_component(value: Any) -> Any:
    described = describe_pool(value)
    if described is not None:
        return described
    if isinstance(value, str):
        raise ValueError(
            f"{value!r} is a name; give a pool component or a description "
            "{name, node_labels, taints, gpus, cpu, memory} (names refer to fleet pools "
            "only in stack config)"
        )
    return value


# A pool field: a pool component, a ResolvedPool or a plain description.
GovernedPool = Annotated[PoolDescription, BeforeValidator(_from_component)]
