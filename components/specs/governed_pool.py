"""A pool as governance sees it: how to select its nodes, its taints, its capacity.

PoolQuotas and PoolPlatforms take pools either as pool components (their `.resolved`
spec is read) or as plain descriptions of pools that exist outside this program (a
Run:ai or OSMO cluster's node pools often do). Both become a `PoolDescription`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from .accelerators import NVIDIA_GPU
from .base import SpecModel
from .kube import Amount, ObjectName
from .labels import POOL_LABEL, LabelKey, Labels
from .pools import ResolvedPool
from .taints import Taints

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
    taints: Taints = Field(default_factory=list, description="The pool's node taints; default [].")
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
        "node_labels": {POOL_LABEL: pool.pool_name},
        "taints": list(pool.taints),
        "gpus": pool.accelerators_per_node * pool.max_nodes,
    }
    if accelerator is not None:
        description["gpu_resource"] = accelerator.resource
        description["gpus_per_node"] = accelerator.count
    return description


def _from_component(value: Any) -> Any:
    # A PoolComponent (duck-typed: this package never imports pulumi) or its resolved spec.
    resolved = getattr(value, "resolved", None)
    if isinstance(resolved, ResolvedPool):
        return describe_resolved(resolved)
    if isinstance(value, ResolvedPool):
        return describe_resolved(value)
    if isinstance(value, str):
        raise ValueError(
            f"{value!r} is a name; give a pool component or a description "
            "{name, node_labels, taints, gpus, cpu, memory} (names refer to fleet pools "
            "only in stack config)"
        )
    return value


# A pool field: a pool component, a ResolvedPool or a plain description.
GovernedPool = Annotated[PoolDescription, BeforeValidator(_from_component)]
