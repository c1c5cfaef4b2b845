"""What a fleet's entries and the hooks that look up their references share.

Kept apart from `deploy` so the hooks (`recipes`, `governance_refs`) can name these types
without importing the module that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nodepools.specs.clusters.targets import ClusterTarget


@dataclass
class FleetContext:
    """What references are looked up in while the fleet is validated and built."""

    clusters: dict[str, ClusterTarget] = field(default_factory=dict)
    invalid_clusters: set[str] = field(default_factory=set)  # declared, but reported as invalid
    # entry name -> path of the entry that took it
    entry_paths: dict[str, str] = field(default_factory=dict)
    pool_names: dict[tuple[str, str], str] = field(default_factory=dict)  # (cluster, pool) -> path
    # (cluster, EC2NodeClass name) -> path of the entry that creates the class.
    node_class_names: dict[tuple[str, str], str] = field(default_factory=dict)
    entries: dict[str, tuple[str, Any]] = field(default_factory=dict)  # name -> (component, args)
    built: dict[str, Any] = field(default_factory=dict)  # name -> component resource
    # (component class, name) -> (args, preflight result): what the constructors reuse.
    preflights: dict[tuple[type, str], tuple[Any, Any]] = field(default_factory=dict)
    current_entry: str | None = None  # the entry being prepared (for hooks that need it)
    # AcceleratorStack entry -> {served pool name -> pool entry name}.
    device_pools: dict[str, dict[str, str]] = field(default_factory=dict)
    # AcceleratorStack entry -> the cluster its pools are on (a description of it).
    device_clusters: dict[str, str] = field(default_factory=dict)
    # Pool entry -> what its nodes advertise once an AcceleratorStack serves it.
    advertised: dict[str, Any] = field(default_factory=dict)
    # The node labels and selector of each managed pool (`fleet.selectors`).
    pool_labels: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class FleetEntry:
    section: str
    component: str
    name: str
    args: Any  # the validated args model
    path: str


def cluster_handle(cluster: ClusterTarget) -> object:
    """What the cloud knows a cluster by: an EKS cluster's name, an OKE or ROSA cluster's id
    (a string, or an Output until deploy time)."""
    return cluster.cluster_name if cluster.kind == "eks" else cluster.cluster_id
