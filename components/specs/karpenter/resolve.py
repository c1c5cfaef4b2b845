"""The resolved Karpenter pool: every default applied, requirements and limits checked
together; what the Karpenter backend renders (args: nodepools.specs.karpenter.args)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nodepools.specs.catalog.accelerators import (
    ACCELERATOR_RESOURCES,
    AMD_GPU,
    AWS_NEURON,
    NVIDIA_GPU,
    Accelerator,
)
from nodepools.specs.clusters.capabilities import CAPABILITIES
from nodepools.specs.core.base import Issue, SpecError, format_path
from nodepools.specs.core.labels import (
    POOL_LABEL,
)
from nodepools.specs.core.taints import ISOLATING_EFFECTS, Taint, merge_taints
from nodepools.specs.karpenter.accelerator_counts import CountRange
from nodepools.specs.karpenter.accelerators import AcceleratorProfile, accelerator_profile
from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
from nodepools.specs.karpenter.disruption import (
    ACCELERATOR_CONSOLIDATE_AFTER,
    ACCELERATOR_CONSOLIDATION_POLICY,
    DEFAULT_CONSOLIDATE_AFTER,
    DEFAULT_CONSOLIDATION_POLICY,
    Budget,
    Disruption,
)
from nodepools.specs.karpenter.efa_checks import efa_issues
from nodepools.specs.karpenter.instance_names import name_warnings
from nodepools.specs.karpenter.labels import (
    ARCH_LABEL,
    CAPACITY_TYPE_LABEL,
    GPU_COUNT_LABEL,
    GPU_MANUFACTURER_LABEL,
    GPU_NAME_LABEL,
    INSTANCE_CATEGORY_LABEL,
    INSTANCE_FAMILY_LABEL,
    INSTANCE_TYPE_LABEL,
    NEURON_COUNT_LABEL,
    NEURON_NAME_LABEL,
)
from nodepools.specs.karpenter.node_class import NodeClassArgs
from nodepools.specs.karpenter.requirements import NodeRequirement, requirement_manifest
from nodepools.specs.karpenter.values import WHOLE_UNIT_LIMITS
from nodepools.specs.pools.resolve import accelerator_taint, effective_pool_name

# --- the resolved pool ------------------------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    """One NodePool requirement (a node selector term Karpenter launches instances for)."""

    key: str
    operator: str
    values: tuple[str, ...]
    min_values: int | None = None

    def to_manifest(self) -> dict[str, Any]:
        return requirement_manifest(self.key, self.operator, self.values, self.min_values)


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
    replicas: int | None
    expire_after: str | None
    identity_label: bool
    termination_grace_period: str | None
    profile: AcceleratorProfile = field(default_factory=AcceleratorProfile)
    # Write `spec.disruption` (given, or our accelerator default); else Karpenter's defaults.
    write_disruption: bool = True
    efa: bool = False
    annotations: dict[str, str] = field(default_factory=dict[str, str])
    node_annotations: dict[str, str] = field(default_factory=dict[str, str])
    instances: str = "any"  # what may be launched, for people (plan's capacity table)
    # Names the catalog lacks (EC2 may have them): plan warnings, not errors.
    warnings: tuple[str, ...] = ()

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
            **({"replicas": self.replicas} if self.replicas is not None else {}),
        }

    # What `ResolvedPoolProtocol` (nodepools.specs.pools.protocol) asks of every pool.

    @property
    def cluster(self) -> None:
        """None: the pool lives in the cluster of the Kubernetes provider, which no spec
        declares."""
        return None

    @property
    def instance_type(self) -> None:
        """None: Karpenter launches whatever the requirements allow, no single type."""
        return None

    @property
    def node_accelerator(self) -> Accelerator | None:
        """The accelerator itself: nothing re-advertises a Karpenter pool's devices."""
        return self.accelerator

    @property
    def extra_limits(self) -> dict[str, int]:
        """One EFA device per pod when the pool is for EFA: Karpenter then launches only
        types that offer one."""
        from nodepools.specs.pools.network import EFA_RESOURCE

        return {EFA_RESOURCE: 1} if self.efa else {}


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
    if args.capacity_types == []:
        del pinned[CAPACITY_TYPE_LABEL]
    for requirement in args.requirements:
        # A default of ours (capacity type, GPU maker) on a key the user's own requirement
        # sets gives way to it; an arg the user set on that key was refused already.
        pinned.pop(requirement.key, None)
    ours = tuple(
        Requirement(key, "In", values(items))
        for key, items in sorted(pinned.items())
        if items is not None
    )
    # The user's requirements in the order written, after ours (the same input renders the
    # same manifest; their order is theirs).
    return ours + tuple(
        Requirement(r.key, r.operator, tuple(r.values), r.min_values) for r in args.requirements
    )


# Requirement keys whose `In` values tell what the pool launches, and the arg that would
# say the same: folded into the args the accelerator profile reads.
_FOLDED_LISTS = {
    INSTANCE_TYPE_LABEL: "instance_types",
    INSTANCE_FAMILY_LABEL: "instance_families",
    INSTANCE_CATEGORY_LABEL: "instance_categories",
    GPU_MANUFACTURER_LABEL: "gpu_manufacturers",
    GPU_NAME_LABEL: "gpu_names",
    NEURON_NAME_LABEL: "neuron_names",
    ARCH_LABEL: "architectures",
}
_FOLDED_COUNTS = {GPU_COUNT_LABEL: "gpu_count", NEURON_COUNT_LABEL: "neuron_count"}


def _count_ranges(requirements: list[NodeRequirement]) -> dict[str, tuple[CountRange, str]]:
    """What the requirements on each count key admit, by count arg, and the last such
    requirement's path. A key whose requirements admit instances without the device (no
    lower bound, `NotIn`, `DoesNotExist`) is not folded: it makes no accelerator pool."""
    found: dict[str, tuple[CountRange, str]] = {}
    for index, requirement in enumerate(requirements):
        name = _FOLDED_COUNTS.get(requirement.key)
        if name is None:
            continue
        numbers = [int(v) for v in requirement.values if v.isdigit()]
        before = found[name][0] if name in found else CountRange()
        values, low, high = before.values, before.low, before.high
        match requirement.operator:
            case "In":
                listed = frozenset(numbers)
                values = listed if values is None else values & listed
            case "Gt" | "Gte":
                low = max(low, numbers[0] + (requirement.operator == "Gt"))
            case "Lt" | "Lte":
                ceiling = numbers[0] - (requirement.operator == "Lt")
                high = ceiling if high is None else min(high, ceiling)
            case "Exists":
                low = max(low, 1)
            case _:
                continue
        found[name] = (CountRange(values, low, high), f"requirements[{index}].values")
    return {name: (bounds, where) for name, (bounds, where) in found.items() if bounds.least}


@dataclass(frozen=True)
class FoldedRequirements:
    """The user's requirements on the convenience keys, folded into what the accelerator
    profile reads (see `folded_requirements`)."""

    args: KarpenterNodePoolArgs
    origin: dict[str, str]  # folded arg -> the requirement it came from
    counts: dict[str, CountRange]  # count arg -> what the requirements on its key admit


def folded_requirements(args: KarpenterNodePoolArgs) -> FoldedRequirements:
    """`args` with the user's `In` requirements on the convenience keys folded into the args
    the accelerator profile reads, what the requirements on a count key admit (only one
    admitted value is an exact count; `Gt 4` is a bound), and where each folded arg came
    from (`requirements[i].values`), so that a problem found in it is reported at the
    requirement."""
    update: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for index, requirement in enumerate(args.requirements):
        where = f"requirements[{index}].values"
        if requirement.operator == "In" and requirement.key in _FOLDED_LISTS:
            name = _FOLDED_LISTS[requirement.key]
            values = sorted(set(requirement.values))
            if name == "gpu_manufacturers":
                values = [v for v in values if v in ("nvidia", "amd")] or None
            update[name], origin[name] = values, where
    counts: dict[str, CountRange] = {}
    for name, (bounds, where) in _count_ranges(args.requirements).items():
        counts[name], origin[name] = bounds, where
    folded = args.model_copy(update=update) if update else args
    return FoldedRequirements(folded, origin, counts)


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


def _at_origin(issue: Issue, origin: dict[str, str]) -> Issue:
    head = issue.path.split(".", 1)[0].split("[", 1)[0]
    if head in origin:
        return Issue(origin[head] + issue.path[len(head) :], issue.message)
    return issue


def _capacity_types(args: KarpenterNodePoolArgs) -> tuple[tuple[str, ...], str]:
    """The capacity types the pool may launch, and the arg that says so."""
    for index, requirement in enumerate(args.requirements):
        if requirement.key == CAPACITY_TYPE_LABEL and requirement.operator == "In":
            return tuple(sorted(requirement.values)), f"requirements[{index}].values"
    if args.capacity_types:
        return tuple(args.capacity_types), "capacity_types"
    return ("spot",) if args.spot else ("on-demand",), "capacity_types"


def _reservation_issues(
    args: KarpenterNodePoolArgs, capacity_types: tuple[str, ...], path: str, issues: list[Issue]
) -> None:
    """Reserved capacity needs reservations the node class selects, and selected reservations
    need a pool that may use them. An existing node class (`node_class_name`) is not known
    here, so only a class the pool creates is checked."""
    node_class = args.node_class
    if node_class is None:
        return
    terms = node_class.capacity_reservation_selector_terms
    if capacity_types == ("reserved",) and terms is None:
        issues.append(
            Issue(
                path,
                f"{list(capacity_types)!r}: the pool may launch only into capacity reservations, "
                "but `node_class.capacity_reservation_selector_terms` selects none, so it could "
                "never launch a node; select the reservations there, or add 'on-demand'",
            )
        )
    elif terms is not None and "reserved" not in capacity_types:
        issues.append(
            Issue(
                "node_class.capacity_reservation_selector_terms",
                f"selects capacity reservations, but the pool's capacity types "
                f"{list(capacity_types)!r} (`{path}`) have no 'reserved', so Karpenter would "
                "never launch into them; add 'reserved'",
            )
        )


def _with_accelerator_volume(
    node_class: NodeClassArgs | None, profile: AcceleratorProfile
) -> NodeClassArgs | None:
    """The node class of a pool that launches accelerator instances with the boot volume a
    managed accelerator pool on EKS gets (100 GiB: Karpenter's 20 GiB default fills with
    one GPU image and the kubelet evicts for disk pressure), unless it sizes its volumes."""
    if node_class is None or profile.launchable is None:
        return node_class
    if node_class.boot_volume_gb is not None or node_class.block_device_mappings is not None:
        return node_class
    size = CAPABILITIES["eks"].accelerator_boot_volume_gb
    return node_class.model_copy(update={"boot_volume_gb": size})


def resolve_karpenter_pool(
    args: KarpenterNodePoolArgs, component_name: str, subject: str | None = None
) -> ResolvedKarpenterPool:
    """Apply the defaults; raise one SpecError with every cross-field problem."""
    issues: list[Issue] = []
    pool_name, name_issue = effective_pool_name(args.pool_name, component_name)
    if name_issue:
        issues.append(name_issue)
    folding = folded_requirements(args)
    folded, origin = folding.args, folding.origin
    reported = len(issues)
    profile = accelerator_profile(folded, issues, folding.counts)
    _accelerator_issues(folded, profile, issues)
    issues[reported:] = [_at_origin(issue, origin) for issue in issues[reported:]]
    _limit_issues(args.limits, profile, issues)
    efa_issues(folded, origin, issues)
    capacity_types, capacity_path = _capacity_types(args)
    _reservation_issues(args, capacity_types, capacity_path, issues)
    if issues:
        raise SpecError(subject or f"KarpenterNodePool {component_name!r}", issues)

    default_taints: list[Taint] = []
    # `taints: []` said explicitly means no taint at all, the accelerator's included.
    no_taints = "taints" in args.model_fields_set and not args.taints
    if profile.resource is not None and not no_taints:
        default_taints.append(accelerator_taint(Accelerator(resource=profile.resource, count=1)))
    disruption = args.disruption or Disruption()
    gpu_pool = profile.accelerator_only
    return ResolvedKarpenterPool(
        component_name=component_name,
        pool_name=pool_name,
        node_class=_with_accelerator_volume(args.node_class, profile),
        node_class_name=args.node_class_name
        or (args.node_class.name if args.node_class and args.node_class.name else pool_name),
        capacity_types=capacity_types,
        requirements=_requirements(args, profile, capacity_types),
        labels=dict(
            sorted(
                (
                    {**args.labels, POOL_LABEL: pool_name} if args.identity_label else args.labels
                ).items()
            )
        ),
        identity_label=args.identity_label,
        taints=tuple(merge_taints(default_taints, args.taints)),
        startup_taints=tuple(args.startup_taints),
        limits=dict(args.limits),
        consolidation_policy=disruption.consolidation_policy
        or (ACCELERATOR_CONSOLIDATION_POLICY if gpu_pool else DEFAULT_CONSOLIDATION_POLICY),
        consolidate_after=disruption.consolidate_after
        or (ACCELERATOR_CONSOLIDATE_AFTER if gpu_pool else DEFAULT_CONSOLIDATE_AFTER),
        budgets=None if disruption.budgets is None else tuple(disruption.budgets),
        weight=args.weight,
        replicas=args.replicas,
        expire_after=args.expire_after,
        termination_grace_period=args.termination_grace_period,
        profile=profile,
        instances=_describe_instances(folded),
        write_disruption=args.disruption is not None or gpu_pool,
        efa=args.efa,
        annotations=dict(args.annotations),
        node_annotations=dict(args.node_annotations),
        warnings=name_warnings(
            [
                (INSTANCE_TYPE_LABEL, args.instance_types or ()),
                (INSTANCE_FAMILY_LABEL, args.instance_families or ()),
                (INSTANCE_CATEGORY_LABEL, args.instance_categories or ()),
                *((r.key, r.values) for r in args.requirements if r.operator == "In"),
            ]
        ),
    )
