"""What every resolved pool offers, whatever its kind: the interface pool components and the
fleet read, so that they use typed attributes instead of probing each kind for what it has.

`ResolvedPool` (MachinePool, GpuSpotPool, SharedNodePool) and `ResolvedKarpenterPool`
implement `ResolvedPoolProtocol`; only the Karpenter form implements `NodeClassPool`.
The types it names are imported for the checker only: at run time this module depends on
nothing but `typing`. The Karpenter form satisfies these structurally, so this module needs
nothing from the Karpenter specs (a layer above).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from nodepools.specs.catalog.accelerators import Accelerator
    from nodepools.specs.clusters.rosa import RosaCluster
    from nodepools.specs.clusters.targets import EksCluster, OkeCluster
    from nodepools.specs.core.taints import Taint


@runtime_checkable
class ResolvedPoolProtocol(Protocol):
    """A pool with every default applied, as pool components and the fleet read it."""

    @property
    def pool_name(self) -> str:
        """The pool's name in the cloud (and in its identity label)."""
        ...

    @property
    def cluster(self) -> EksCluster | OkeCluster | RosaCluster | None:
        """The cluster the pool is created in; None when no spec declares it (a Karpenter
        pool lives in the cluster of the Kubernetes provider)."""
        ...

    @property
    def instance_type(self) -> str | None:
        """The one instance type (the smallest of a mix); None when the pool has no single
        type (Karpenter launches whatever its requirements allow)."""
        ...

    @property
    def accelerator(self) -> Accelerator | None:
        """The hardware's accelerators per node; None for a pool without any."""
        ...

    @property
    def node_accelerator(self) -> Accelerator | None:
        """The accelerators as a node advertises them (MIG slices, time-sliced GPUs in place
        of the hardware's): what pods ask for."""
        ...

    @property
    def extra_limits(self) -> Mapping[str, int]:
        """Resources beyond the accelerator a pod of the pool asks for (EFA interfaces)."""
        ...

    @property
    def taints(self) -> Sequence[Taint]:
        """Every taint of the pool's nodes: what its pods tolerate."""
        ...

    def summary(self) -> dict[str, Any]:
        """Plain, secret-free description registered as the component's inputs."""
        ...


class NamedNodeClass(Protocol):
    """An EC2NodeClass the pool creates, as far as the fleet reads it."""

    @property
    def name(self) -> str | None:
        """The name given to the class; None when it follows the pool's name."""
        ...


@runtime_checkable
class NodeClassPool(Protocol):
    """A pool that launches its nodes through a Karpenter EC2NodeClass."""

    @property
    def node_class(self) -> NamedNodeClass | None:
        """The EC2NodeClass the pool creates; None when it uses an existing one by name."""
        ...

    @property
    def node_class_name(self) -> str:
        """The name of the EC2NodeClass it launches through, created or existing."""
        ...
