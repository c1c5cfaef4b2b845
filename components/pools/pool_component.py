"""The outputs every pool component shares, and how they are published."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import pulumi
from nodepools.backends import BuiltPool, backend_for, check_pool
from nodepools.outputs import plain_output
from nodepools.scheduling import SchedulingInfo
from nodepools.specs.catalog.instance_types import unknown_type_warning
from nodepools.specs.pools.resolve import ResolvedPool

if TYPE_CHECKING:
    from nodepools.specs.karpenter.resolve import ResolvedKarpenterPool


class PoolComponent(pulumi.ComponentResource):
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
    def preflight(cls, name: str, args: Any) -> ResolvedPool | ResolvedKarpenterPool:
        """Everything the constructor checks, registering nothing: the resolved pool, or one
        SpecError. The fleet runs it on every entry before it builds any of them."""
        pool = cls.resolve(name, args)
        check_pool(pool)
        return pool

    def __init__(
        self,
        type_token: str,
        name: str,
        pool: ResolvedPool,
        opts: pulumi.ResourceOptions | None,
        props: dict[str, Any] | None = None,
    ):
        super().__init__(type_token, name, {"spec": pool.summary(), **(props or {})}, opts)
        self.resolved = pool
        # A new type may well exist: a warning in the plan, not an error. (Karpenter pools
        # have no single instance type.)
        instance_type = getattr(pool, "instance_type", None)
        warning = unknown_type_warning(instance_type) if instance_type else None
        if warning and getattr(pool, "accelerator", None) is None:
            pulumi.log.warn(warning, resource=self)
        # Karpenter pools pass their own resolved form, without `extra_limits` (and replace
        # this scheduling info with theirs).
        extra_limits: dict[str, int] = getattr(pool, "extra_limits", None) or {}
        # What a node advertises (MIG slices, time-sliced GPUs), not the hardware's count.
        accelerator = getattr(pool, "node_accelerator", pool.accelerator)
        self.scheduling = SchedulingInfo.for_pool(
            pool.pool_name, pool.taints, accelerator, extra_limits=extra_limits
        )

    def _backend(self) -> ModuleType:
        """The cloud backend of the pool; constructors call its `build_pool` themselves
        (`self._backend().build_pool(name, self.resolved, self)`), then `_publish`: the
        SDK records the call stack of every registration, and a helper frame between
        the constructor and the backend would be walked for each child resource."""
        return backend_for(self.resolved.cluster.kind)

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

    def _pool_outputs(self) -> dict[str, pulumi.Output[Any]]:
        outputs: dict[str, pulumi.Output[Any]] = {
            "pool_name": self.pool_name,
            "pool_id": self.pool_id,
            "scheduling_info": self.scheduling_info,
            "scheduling_info_yaml": self.scheduling_info_yaml,
        }
        # Pools built from a ResolvedPool (`_publish`) publish their nodes' role too.
        role: pulumi.Output[str | None] | None = getattr(self, "node_role_arn", None)
        if role is not None:
            outputs["node_role_arn"] = role
        return outputs
