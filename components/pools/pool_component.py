"""The outputs every pool component shares, and how they are published."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Generic, TypeGuard, TypeVar, cast

import pulumi
from nodepools.backends import BuiltPool, backend_for, check_pool
from nodepools.backends.extras import require_for_kind
from nodepools.outputs import plain_output
from nodepools.scheduling import SchedulingInfo
from nodepools.specs.catalog.instance_types import unknown_type_warning
from nodepools.specs.pools.protocol import ResolvedPoolProtocol
from nodepools.specs.pools.resolve import ResolvedPool

# The resolved form a pool component is built from: `ResolvedPool` for the managed pools,
# the Karpenter form for Karpenter's.
PoolT = TypeVar("PoolT", bound=ResolvedPoolProtocol)


class PoolComponent(pulumi.ComponentResource, Generic[PoolT]):
    """Base of every node-pool component.

    Outputs: `pool_name`, `pool_id`, `scheduling_info` (dict with `nodeSelector`,
    `tolerations`, `resources.limits`) and `scheduling_info_yaml` (the same, as YAML);
    pools built from a resolved pool add `node_role_arn` (EKS: the IAM role the nodes
    assume, given or created; None elsewhere).
    The resolved spec (secret-free) is registered as the component's inputs, so `plan`
    and `pulumi stack export` can show what the pool is.
    """

    pool_name: pulumi.Output[str]
    pool_id: pulumi.Output[str]
    scheduling_info: pulumi.Output[dict[str, Any]]
    scheduling_info_yaml: pulumi.Output[str]

    @classmethod
    def resolve(cls, name: str, args: Any) -> ResolvedPool:
        """Parse `args` and apply every default; raises SpecError. Each pool defines it."""
        raise NotImplementedError

    @classmethod
    def preflight(cls, name: str, args: Any) -> ResolvedPoolProtocol:
        """Everything the constructor checks, registering nothing: the resolved pool, or one
        SpecError. The fleet runs it on every entry before it builds any of them."""
        pool = cls.resolve(name, args)
        if pool.cluster is not None:
            require_for_kind(pool.cluster.kind, f"{cls.__name__} {name!r}")
        check_pool(pool)
        return pool

    def __init__(
        self,
        type_token: str,
        name: str,
        pool: PoolT,
        opts: pulumi.ResourceOptions | None,
        props: dict[str, Any] | None = None,
    ):
        super().__init__(type_token, name, {"spec": pool.summary(), **(props or {})}, opts)
        self.resolved: PoolT = pool
        # Set by `_publish`: the role of pools whose backend gives their nodes one.
        self._node_role_arn: pulumi.Output[str | None] | None = None
        # A new type may well exist: a warning in the plan, not an error.
        instance_type = pool.instance_type
        warning = unknown_type_warning(instance_type) if instance_type else None
        if warning and pool.accelerator is None:
            pulumi.log.warn(warning, resource=self)
        # Karpenter's: families, categories and types its requirements name.
        for warning in getattr(pool, "warnings", ()):
            pulumi.log.warn(warning, resource=self)
        # What a node advertises (MIG slices, time-sliced GPUs), not the hardware's count.
        self.scheduling = SchedulingInfo.for_pool(
            pool.pool_name, pool.taints, pool.node_accelerator, extra_limits=pool.extra_limits
        )
        if isinstance(pool, ResolvedPool) and not pool.identity_label:
            self.scheduling = managed_pool_scheduling(pool)
            pulumi.log.info(without_identity_note(pool), resource=self)

    def _backend(self) -> ModuleType:
        """The cloud backend of the pool; constructors call its `build_pool` themselves
        (`self._backend().build_pool(name, self.resolved, self)`), then `_publish`: the
        SDK records the call stack of every registration, and a helper frame between
        the constructor and the backend would be walked for each child resource."""
        cluster = self.resolved.cluster
        if cluster is None:
            raise TypeError(f"pool {self.resolved.pool_name!r} has no cluster to build in")
        return backend_for(cluster.kind)

    def _publish(self, built: BuiltPool) -> None:
        """Assign the pool's outputs from what its backend built."""
        self.pool_name = pulumi.Output.from_input(self.resolved.pool_name)
        self.pool_id = built.pool_id
        self.scheduling_info = plain_output(self.scheduling.to_dict())
        self.scheduling_info_yaml = pulumi.Output.from_input(self.scheduling.to_yaml())
        # EKS pools: the role their nodes assume (given, or their NodeRole's); None on
        # clouds whose pools have no such role.
        self.node_role_arn = (
            built.node_role_arn
            if built.node_role_arn is not None
            else pulumi.Output.from_input(None)
        )
        self._node_role_arn = self.node_role_arn

    def _pool_outputs(self) -> dict[str, pulumi.Output[Any]]:
        outputs: dict[str, pulumi.Output[Any]] = {
            "pool_name": self.pool_name,
            "pool_id": self.pool_id,
            "scheduling_info": self.scheduling_info,
            "scheduling_info_yaml": self.scheduling_info_yaml,
        }
        # Pools built through `_publish` publish their nodes' role too.
        if self._node_role_arn is not None:
            outputs["node_role_arn"] = self._node_role_arn
        return outputs


def managed_pool_scheduling(pool: ResolvedPool) -> SchedulingInfo:
    """A managed pool's scheduling info: selected by its identity label, or, without one
    (`identity_label: false`), by every label it gives its nodes."""
    return SchedulingInfo.for_pool(
        pool.pool_name,
        pool.taints,
        pool.node_accelerator,
        extra_selector=pool.node_selector,
        identity_label=pool.identity_label,
        extra_limits=pool.extra_limits,
    )


def without_identity_note(pool: ResolvedPool) -> str:
    """What the plan and `pulumi preview` say of a pool without its identity label."""
    return (
        f"pool {pool.pool_name!r} has no identity label (`identity_label: false`): its "
        f"scheduling info selects its nodes by its labels {pool.node_selector}, so no other "
        "pool's nodes may carry all of them"
    )


def is_managed_pool(component: object) -> TypeGuard[PoolComponent[ResolvedPool]]:
    """Whether `component` is a pool built from a `ResolvedPool` (MachinePool, GpuSpotPool,
    SharedNodePool): one with a declared cluster, sizes and a cloud backend."""
    if not isinstance(component, PoolComponent):
        return False
    # The narrowing leaves the type argument unknown; every one is a ResolvedPoolProtocol.
    pool = cast("PoolComponent[ResolvedPoolProtocol]", component).resolved
    return isinstance(pool, ResolvedPool)
