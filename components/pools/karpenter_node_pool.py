"""KarpenterNodePool: a Karpenter v1 NodePool and its EC2NodeClass, validated before creation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulumi
from nodepools.backends import backend_for
from nodepools.backends.karpenter import checked_manifests, render_manifests
from nodepools.documentation import documented
from nodepools.outputs import known_output, plain_output
from nodepools.pools.pool_component import PoolComponent
from nodepools.preflight import checked
from nodepools.scheduling import SchedulingInfo
from nodepools.specs.core.base import Issue, SpecError, join_path
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
from nodepools.specs.karpenter.labels import NODEPOOL_LABEL
from nodepools.specs.karpenter.resolve import ResolvedKarpenterPool, resolve_karpenter_pool


@dataclass(frozen=True)
class CheckedKarpenterPool(ResolvedKarpenterPool):
    """A resolved pool with the manifests rendered from it and validated: what `preflight`
    returns, so that the constructor registers that very render instead of making another."""

    manifests: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    manifests_plain: bool = False  # no Output inside the manifests (found while validating)


def prepare_pool(
    args: KarpenterNodePoolArgs | dict[str, Any], name: str, subject: str, prefix: str = ""
) -> tuple[CheckedKarpenterPool, dict[str, dict[str, Any]]]:
    """Parse, resolve, render and validate: the pool and its manifests, or one SpecError
    listing every problem (paths under `prefix`), before anything is registered."""
    spec = parse_spec(KarpenterNodePoolArgs, args, subject, prefix)
    try:
        pool = resolve_karpenter_pool(spec, name, subject)
    except SpecError as exc:
        raise SpecError(subject, [_under(prefix, issue) for issue in exc.issues]) from None
    manifests = render_manifests(pool)
    issues, plain = checked_manifests(manifests, prefix)
    if issues:
        raise SpecError(subject, issues)
    checked = CheckedKarpenterPool(**vars(pool), manifests=manifests, manifests_plain=plain)
    return checked, manifests


def _under(prefix: str, issue: Issue) -> Issue:
    return Issue(join_path(prefix, issue.path), issue.message)


def karpenter_scheduling(pool: ResolvedKarpenterPool) -> SchedulingInfo:
    """Select the NodePool by `karpenter.sh/nodepool` (so Karpenter launches from this pool
    and no other) as well as by the identity label; tolerate its taints (not its startup
    taints, which are gone before pods land); request its accelerator, and an EFA device
    when the pool is for EFA (`extra_limits`)."""
    return SchedulingInfo.for_pool(
        pool.pool_name,
        pool.taints,
        pool.node_accelerator,
        extra_selector={NODEPOOL_LABEL: pool.pool_name},
        identity_label=pool.identity_label,
        extra_limits=pool.extra_limits,
    )


@documented(KarpenterNodePoolArgs)
class KarpenterNodePool(PoolComponent[CheckedKarpenterPool]):
    """Karpenter capacity: a `karpenter.sh/v1` NodePool and, unless `node_class_name` names an
    existing one, a `karpenter.k8s.aws/v1` EC2NodeClass (children `<name>-node-class`,
    `<name>-node-pool`; the NodePool depends on the class).

    Accelerator-only pools (every instance their requirements allow has one kind of
    accelerator) default to `WhenEmpty` consolidation after 10m and a
    `<accelerator>=true:NoSchedule` taint. A pool whose requirements also allow CPU-only
    instances must list that taint itself, and any pool that can launch an accelerator
    needs a limit on it: what the policy pack's mandatory rules ask of the NodePool. The
    rendered manifests are validated against the upstream CRDs before anything is
    registered.

    Spot pools (`capacity_types` with `spot`, or a capacity-type requirement that allows it)
    rely on Karpenter's interruption handling, which is cluster-wide: the controller's
    `settings.interruptionQueue` (an SQS queue fed by EventBridge with spot interruption
    warnings). Without it a reclaimed node is not drained within its two-minute notice. No
    NodePool field says whether it is set up, so the policy pack's advisory
    `karpenter-spot-interruption` reports every spot-capable pool, in the plan and in
    `pulumi preview`, until the pack config declares it
    (`{"karpenter-spot-interruption": {"interruptionQueueConfigured": true}}`).

    Outputs: `pool_name`, `pool_id` (the NodePool's name), `node_class_name`,
    `scheduling_info`, `scheduling_info_yaml`, `manifests` (the rendered dicts by role).
    """

    TYPE = "nodepools:index:KarpenterNodePool"

    node_class_name: pulumi.Output[str]
    manifests: pulumi.Output[dict[str, Any]]

    @classmethod
    def preflight(
        cls, name: str, args: KarpenterNodePoolArgs | dict[str, Any]
    ) -> CheckedKarpenterPool:
        """Everything the constructor checks (manifests validated too), registering nothing."""
        pool, _ = prepare_pool(args, name, f"KarpenterNodePool {name!r}")
        return pool

    def __init__(
        self,
        name: str,
        args: KarpenterNodePoolArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        pool: CheckedKarpenterPool = checked(self, name, args, opts)
        manifests = pool.manifests  # the render the preflight validated
        super().__init__(self.TYPE, name, pool, opts)
        self.scheduling = karpenter_scheduling(pool)
        built = backend_for("karpenter").build_pool(name, pool, self, manifests)
        self.pool_name = pulumi.Output.from_input(pool.pool_name)
        self.pool_id = built.pool_id
        self.node_class_name = built.node_class_name
        self.scheduling_info = plain_output(self.scheduling.to_dict())
        self.scheduling_info_yaml = pulumi.Output.from_input(self.scheduling.to_yaml())
        self.manifests = (
            plain_output(manifests) if pool.manifests_plain else known_output(manifests)
        )
        self.register_outputs(
            {
                **self._pool_outputs(),
                "node_class_name": self.node_class_name,
                "manifests": self.manifests,
            }
        )
