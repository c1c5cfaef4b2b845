"""The resolved Karpenter pool: every default applied, requirements and limits checked
together; what the Karpenter backend renders (args: nodepools.specs.karpenter_args)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nodepools.specs.accelerators import (
    ACCELERATOR_RESOURCES,
    AMD_GPU,
    AWS_NEURON,
    NVIDIA_GPU,
    Accelerator,
)
from nodepools.specs.base import Issue, SpecError, format_path
from nodepools.specs.karpenter_accelerators import AcceleratorProfile, accelerator_profile
from nodepools.specs.karpenter_args import (
    ACCELERATOR_CONSOLIDATE_AFTER,
    ACCELERATOR_CONSOLIDATION_POLICY,
    ARCH_LABEL,
    CAPACITY_TYPE_LABEL,
    DEFAULT_CONSOLIDATE_AFTER,
    DEFAULT_CONSOLIDATION_POLICY,
    GPU_COUNT_LABEL,
    GPU_MANUFACTURER_LABEL,
    GPU_NAME_LABEL,
    INSTANCE_CATEGORY_LABEL,
    INSTANCE_FAMILY_LABEL,
    INSTANCE_TYPE_LABEL,
    NEURON_COUNT_LABEL,
    NEURON_NAME_LABEL,
    WHOLE_UNIT_LIMITS,
    Budget,
    KarpenterNodePoolArgs,
)
from nodepools.specs.karpenter_node_class import NodeClassArgs
from nodepools.specs.labels import (
    POOL_LABEL,
)
from nodepools.specs.pools import accelerator_taint, effective_pool_name
from nodepools.specs.taints import ISOLATING_EFFECTS, Taint, merge_taints

# --- the resolved pool ------------------------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    """One NodePool requirement (a node selector term Karpenter launches instances for)."""

    key: str
    operator: str
    values: tuple[str, ...]

    def to_manifest(self) -> dict[str, Any]:
        return {"key": self.key, "operator": self.operator, "values": list(self.values)}


@dataclass(frozen=True)
class ResolvedKarpenterPool:
    """A Karpenter pool with every default applied: what the backend renders."""

    component_name: str
    pool_name: str
    node_class: NodeClassArgs | None
    node_class_name: str
    capacity_types: tuple[str, ...]
    requirements: tuple[Requirement, ...]
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    startup_taints: tuple[Taint, ...]
    limits: dict[str, int | str]
    consolidation_policy: str
    consolidate_after: str
    budgets: tuple[Budget, ...] | None
    weight: int | None
    expire_after: str | None
    termination_grace_period: str | None
    profile: AcceleratorProfile = field(default_factory=AcceleratorProfile)
    instances: str = "any"  # what may be launched, for people (plan's capacity table)

    @property
    def accelerator(self) -> Accelerator | None:
        """What a pod asks for to run here: the fewest accelerators any node has (1 when
        unknown), so the request fits every instance the pool may launch."""
        resource = self.profile.resource
        if resource is None:
            return None
        vendor = {NVIDIA_GPU: "nvidia", AMD_GPU: "amd", AWS_NEURON: "aws"}[resource]
        count = min(self.profile.counts, default=1)
        return Accelerator(resource=resource, count=count, vendor=vendor, model=self.profile.model)

    def summary(self) -> dict[str, Any]:
        """Plain, secret-free description registered as the component's inputs."""
        profile = self.profile
        return {
            "poolName": self.pool_name,
            "clusterKind": "karpenter",
            "instanceType": self.instances,
            "capacityTypes": list(self.capacity_types),
            "nodeClassName": self.node_class_name,
            "acceleratorResource": profile.resource,
            "acceleratorsPerNode": min(profile.counts) if profile.counts else None,
            "acceleratorModel": profile.model or None,
            "limits": dict(self.limits),
            "labels": dict(self.labels),
            "taints": [str(t) for t in self.taints],
            "consolidationPolicy": self.consolidation_policy,
            "consolidateAfter": self.consolidate_after,
        }


def _requirements(
    args: KarpenterNodePoolArgs, profile: AcceleratorProfile, capacity_types: tuple[str, ...]
):
    def values(items: Iterable[Any]) -> tuple[str, ...]:
        return tuple(sorted({str(item) for item in items}))

    pinned: dict[str, Iterable[Any] | None] = {
        CAPACITY_TYPE_LABEL: capacity_types,
        ARCH_LABEL: args.architectures,
        INSTANCE_TYPE_LABEL: args.instance_types,
        INSTANCE_FAMILY_LABEL: args.instance_families,
        INSTANCE_CATEGORY_LABEL: args.instance_categories,
        GPU_COUNT_LABEL: None if args.gpu_count is None else [args.gpu_count],
        GPU_MANUFACTURER_LABEL: args.gpu_manufacturers
        or (["nvidia"] if profile.narrow_to_nvidia else None),
        GPU_NAME_LABEL: args.gpu_names,
        NEURON_COUNT_LABEL: None if args.neuron_count is None else [args.neuron_count],
        NEURON_NAME_LABEL: args.neuron_names,
    }
    return tuple(
        Requirement(key, "In", values(items))
        for key, items in sorted(pinned.items())
        if items is not None
    )


def _limit_issues(
    limits: dict[str, int | str], profile: AcceleratorProfile, issues: list[Issue]
) -> None:
    for key, value in limits.items():
        path = format_path(["limits", key])
        # Nodes, pods and extended resources (accelerators) come in whole units.
        whole_units = key in WHOLE_UNIT_LIMITS or "/" in key
        if whole_units and not (isinstance(value, int) or value.isdigit()):
            issues.append(Issue(path, f"{value!r} must be a whole number of {key}"))
            continue
        if key not in ACCELERATOR_RESOURCES or profile.launchable is None:
            continue
        if key != profile.launchable:
            issues.append(
                Issue(
                    path,
                    f"the only accelerator the pool launches is {profile.launchable}, so a "
                    f"limit on {key} ({value!r}) has no effect; remove it",
                )
            )
            continue
        step = math.gcd(*profile.counts) if profile.counts else 1
        if int(value) % step:
            issues.append(
                Issue(
                    path,
                    f"{int(value)} is not a multiple of {step}, the {key} count per instance "
                    f"({profile.counts_source}): Karpenter could never use the remaining "
                    f"{int(value) % step}; use {int(value) - int(value) % step} or "
                    f"{int(value) - int(value) % step + step}",
                )
            )


def _accelerator_issues(
    args: KarpenterNodePoolArgs, profile: AcceleratorProfile, issues: list[Issue]
) -> None:
    """A pool that can launch accelerator instances is isolated like one that only launches
    them: the policy pack's `accelerator-pool-tainted` is mandatory, and a pool it would fail
    is refused here, before anything exists."""
    resource = profile.launchable
    if resource is None:
        return
    mixed = profile.mixed_values
    if mixed is not None and not any(
        t.key == resource and t.effect in ISOLATING_EFFECTS for t in args.taints
    ):
        issues.append(
            Issue(
                mixed.path,
                f"{list(mixed.values)!r} lets the pool launch {resource} instances: "
                f"{mixed.describe()}; so it gets no {resource} taint by default, and pods "
                f"that don't request {resource} could take its accelerator nodes. List only "
                f"accelerator {mixed.kind} (and give CPU instances a pool of their own), or "
                f"add the taint `{resource}=true:NoSchedule` to `taints` (every node of the "
                "pool then carries it)",
            )
        )
    # A pool without a limit on its accelerator is accepted: Karpenter accepts it and many
    # clusters bound spend elsewhere (cluster-wide limits, quotas, budgets). The policy
    # pack's `karpenter-limits` says so in every plan (advisory).


def _describe_instances(args: KarpenterNodePoolArgs) -> str:
    for label, values in (
        ("", args.instance_types),
        ("families ", args.instance_families),
        ("categories ", args.instance_categories),
    ):
        if values:
            return label + ",".join(values)
    return "any"


def resolve_karpenter_pool(
    args: KarpenterNodePoolArgs, component_name: str, subject: str | None = None
) -> ResolvedKarpenterPool:
    """Apply the defaults; raise one SpecError with every cross-field problem."""
    issues: list[Issue] = []
    pool_name, name_issue = effective_pool_name(args.pool_name, component_name)
    if name_issue:
        issues.append(name_issue)
    profile = accelerator_profile(args, issues)
    _limit_issues(args.limits, profile, issues)
    _accelerator_issues(args, profile, issues)
    if issues:
        raise SpecError(subject or f"KarpenterNodePool {component_name!r}", issues)

    capacity_types = tuple(args.capacity_types or (["spot"] if args.spot else ["on-demand"]))
    default_taints: list[Taint] = []
    if profile.resource is not None:
        default_taints.append(accelerator_taint(Accelerator(resource=profile.resource, count=1)))
    disruption = args.disruption
    gpu_pool = profile.accelerator_only
    return ResolvedKarpenterPool(
        component_name=component_name,
        pool_name=pool_name,
        node_class=args.node_class,
        node_class_name=args.node_class_name or pool_name,
        capacity_types=capacity_types,
        requirements=_requirements(args, profile, capacity_types),
        labels=dict(sorted({**args.labels, POOL_LABEL: pool_name}.items())),
        taints=tuple(merge_taints(default_taints, args.taints)),
        startup_taints=tuple(args.startup_taints),
        limits=dict(args.limits),
        consolidation_policy=disruption.consolidation_policy
        or (ACCELERATOR_CONSOLIDATION_POLICY if gpu_pool else DEFAULT_CONSOLIDATION_POLICY),
        consolidate_after=disruption.consolidate_after
        or (ACCELERATOR_CONSOLIDATE_AFTER if gpu_pool else DEFAULT_CONSOLIDATE_AFTER),
        budgets=None if disruption.budgets is None else tuple(disruption.budgets),
        weight=args.weight,
        expire_after=args.expire_after,
        termination_grace_period=args.termination_grace_period,
        profile=profile,
        instances=_describe_instances(args),
    )
