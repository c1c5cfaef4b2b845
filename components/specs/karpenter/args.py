"""Args of KarpenterNodePool (the resolved pool: nodepools.specs.karpenter.resolve).

A Karpenter pool is a `karpenter.sh/v1` NodePool (what may be launched: requirements,
labels, taints, limits, disruption) plus, unless an existing one is named, a
`karpenter.k8s.aws/v1` EC2NodeClass (how it is launched: IAM role, AMI, subnets, security
groups, disk, tags). Field rules mirror the v1.14.1 CRDs so that a mistake is reported
with its arg path here, before anything is rendered; the rendered manifests are then
validated against the CRDs themselves as a backstop (see nodepools.backends.karpenter).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from nodepools.specs.catalog.accelerators import (
    ACCELERATOR_RESOURCES,
)
from nodepools.specs.catalog.instance_checks import ec2_instance_types
from nodepools.specs.core.base import Issue, NestedIssues, PathError, SpecModel
from nodepools.specs.core.kube import object_name_problem
from nodepools.specs.core.labels import (
    POOL_LABEL,
    Labels,
    label_key_problem,
    label_value_problem,
    restricted_domain,
)
from nodepools.specs.core.scaling import Spot
from nodepools.specs.core.taints import Taint, Taints
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
    NODEPOOL_LABEL,
)
from nodepools.specs.karpenter.node_class import Annotations, NodeClassArgs
from nodepools.specs.karpenter.requirements import (
    MAX_REQUIREMENTS,
    NodeRequirement,
    contradiction_issues,
)
from nodepools.specs.karpenter.restrictions import restricted_label_problem
from nodepools.specs.pools.names import PoolName
from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    ValidationInfo,
    field_validator,
)

# GPU nodes take minutes to come back (boot, driver, multi-GB image pulls), so an empty
# one is kept about as long as a replacement would take to be ready: the gap between two
# jobs of a pipeline does not cost a new node, and an idle one costs at most that long.
ACCELERATOR_CONSOLIDATION_POLICY = "WhenEmpty"
ACCELERATOR_CONSOLIDATE_AFTER = "10m"
# Karpenter's own defaults (NodePool CRD), written out so the manifest says what happens.
DEFAULT_CONSOLIDATION_POLICY = "WhenEmptyOrUnderutilized"
DEFAULT_CONSOLIDATE_AFTER = "0s"

# The NodePool CRD allows 100 template labels; one of them is the pool's identity label.
MAX_LABELS = 99

# Patterns of the NodePool CRD (v1.14.1), so errors are reported with the arg's path.
_DURATION = re.compile(r"^(([0-9]+(s|m|h))+|Never)$")
_GRACE_PERIOD = re.compile(r"^([0-9]+(s|m|h))+$")
_BUDGET_DURATION = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
_BUDGET_NODES = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
_CRON_MACRO = re.compile(r"^@(annually|yearly|monthly|weekly|daily|midnight|hourly)$")
_CRON_FIELDS = re.compile(r"^\S+(\s+\S+){4}$")
# A Kubernetes quantity without a sign (a negative limit means nothing).
_QUANTITY = re.compile(
    r"^\+?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_CORE_LIMITS = ("cpu", "memory", "ephemeral-storage", "nodes", "pods")
WHOLE_UNIT_LIMITS = ("nodes", "pods")


# --- small value checks ---------------------------------------------------------------


def _pattern_check(pattern: re.Pattern[str], what: str) -> Any:
    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"{value!r} is not {what}")
        return value

    return AfterValidator(check)


Duration = Annotated[
    str, _pattern_check(_DURATION, "a duration such as '30s', '10m', '1h30m' or 'Never'")
]
GracePeriod = Annotated[str, _pattern_check(_GRACE_PERIOD, "a duration such as '30m' or '24h'")]


def _requirement_values(values: list[str]) -> list[str]:
    if not values:
        raise ValueError("must not be empty (got []); omit the field to allow any value")
    for value in values:
        problem = label_value_problem(value)
        if problem or not value:
            raise ValueError(problem or "values must not be empty strings (got '')")
    return sorted(set(values))


def _lowercase_values(values: list[str]) -> list[str]:
    for value in values:
        if value != value.lower():
            raise ValueError(
                f"Karpenter publishes these names in lowercase; {value!r} would never match "
                f"(use {value.lower()!r})"
            )
    return values


RequirementValues = Annotated[list[str], AfterValidator(_requirement_values)]
# Checked as given (before sorting), so an error points at the user's own index.
InstanceTypeValues = Annotated[
    list[str], AfterValidator(ec2_instance_types), AfterValidator(_requirement_values)
]
LowercaseValues = Annotated[
    list[str], AfterValidator(_requirement_values), AfterValidator(_lowercase_values)
]


def _unique_sorted(values: list[str]) -> list[str]:
    if not values:
        raise ValueError("must not be empty (got []); omit the field to use the default")
    return sorted(set(values))


# --- the NodePool ---------------------------------------------------------------------


class Budget(SpecModel):
    """How many nodes Karpenter may disrupt at once, optionally only during a schedule."""

    nodes: Annotated[
        str,
        BeforeValidator(lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else v),
        _pattern_check(_BUDGET_NODES, "a node count such as '0' or '5', or a percentage '10%'"),
    ] = Field(default="10%", description="Nodes (`5`) or share of nodes (`10%`). Default `10%`.")
    schedule: str | None = Field(
        default=None,
        description="When the budget starts: a cron expression (5 fields, UTC) or a macro "
        "such as `@daily`; needs `duration`. Default None (always active).",
    )
    duration: str | None = Field(
        default=None,
        validate_default=True,
        description="How long the budget lasts after each `schedule` start, e.g. `8h`, "
        "`1h30m`; needs `schedule`. Default None.",
    )
    reasons: list[Literal["Underutilized", "Empty", "Drifted"]] | None = Field(
        default=None,
        description="Disruption reasons the budget applies to. Default None (all).",
    )

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, schedule: str | None) -> str | None:
        if schedule is not None and not (
            _CRON_MACRO.fullmatch(schedule) or _CRON_FIELDS.fullmatch(schedule)
        ):
            raise ValueError(
                f"{schedule!r} is not a cron expression of 5 fields (e.g. '0 9 * * 1-5') "
                "or a macro such as '@daily'"
            )
        return schedule

    @field_validator("duration")
    @classmethod
    def _duration(cls, duration: str | None, info: ValidationInfo) -> str | None:
        if duration is not None and not _BUDGET_DURATION.fullmatch(duration):
            raise ValueError(f"{duration!r} is not a duration in hours and minutes, e.g. '8h'")
        if "schedule" in info.data and (info.data["schedule"] is None) != (duration is None):
            given = "schedule" if duration is None else "duration"
            raise ValueError(
                f"`schedule` and `duration` must be set together (only `{given}` is set)"
            )
        return duration

    @field_validator("reasons")
    @classmethod
    def _reasons(cls, reasons: list[str] | None) -> list[str] | None:
        return None if reasons is None else _unique_sorted(reasons)


class Disruption(SpecModel):
    """When Karpenter may remove or replace the pool's nodes."""

    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"] | None = (
        Field(
            default=None,
            description="Which nodes may be consolidated. Default None: `WhenEmpty` when "
            "the pool only launches accelerator instances, else `WhenEmptyOrUnderutilized`.",
        )
    )
    consolidate_after: Duration | None = Field(
        default=None,
        description="How long a node must be consolidatable before Karpenter acts, or "
        "`Never`. Default None: `10m` for accelerator-only pools, else `0s`.",
    )
    budgets: list[Budget] | None = Field(
        default=None,
        max_length=50,
        description="Disruption budgets. Default None (Karpenter's: 10% of nodes at a time).",
    )

    @field_validator("budgets")
    @classmethod
    def _some_budget(cls, budgets: list[Budget] | None) -> list[Budget] | None:
        if budgets == []:
            # Karpenter reads no budget as no limit at all, not as its default budget.
            raise ValueError(
                "[] would let Karpenter disrupt every node at once; omit `budgets` for the "
                "default (10% of nodes at a time), or say `[{nodes: '100%'}]` to mean that"
            )
        return budgets


def _limit_value(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{value!r} is not a quantity (a number or a string such as '64Gi')")
    if isinstance(value, int) and value < 0:
        raise ValueError(f"{value!r} is negative; a limit is at least 0")
    if isinstance(value, str) and not _QUANTITY.fullmatch(value):
        raise ValueError(f"{value!r} is not a non-negative quantity such as '16', '500m', '64Gi'")
    return value


def _limit_key(key: str) -> str:
    if key in _CORE_LIMITS:
        return key
    if "/" in key and label_key_problem(key) is None:
        return key  # an extended resource, e.g. nvidia.com/gpu
    raise ValueError(
        f"unknown limit {key!r}: use {', '.join(_CORE_LIMITS)} or an extended resource "
        f"such as {', '.join(ACCELERATOR_RESOURCES)}"
    )


Limits = Annotated[
    dict[
        Annotated[str, AfterValidator(_limit_key)],
        Annotated[int | str, BeforeValidator(_limit_value)],
    ],
    AfterValidator(lambda limits: dict(sorted(limits.items()))),
]


class KarpenterNodePoolArgs(SpecModel):
    """Args of `KarpenterNodePool`: a Karpenter v1 NodePool and (optionally) its EC2NodeClass.

    Field order matters: a field's validator sees only the fields declared above it.
    """

    node_class: NodeClassArgs | None = Field(
        default=None,
        description="Create an EC2NodeClass named after the pool with these settings. "
        "Exactly one of `node_class` or `node_class_name`. Default None.",
    )
    node_class_name: str | None = Field(
        default=None,
        validate_default=True,
        description="Name of an existing EC2NodeClass to use instead. Default None.",
    )
    capacity_types: list[Literal["spot", "on-demand", "reserved"]] | None = Field(
        default=None,
        description="Capacity types Karpenter may launch: `spot`, `on-demand`, `reserved` "
        "(capacity reservations and capacity blocks the node class selects with "
        "`capacity_reservation_selector_terms`; Karpenter uses them first). Default None: "
        "`[spot]` when `spot` is set, else `[on-demand]`, written as a "
        "`karpenter.sh/capacity-type` requirement; `[]` writes none (Karpenter's own "
        "default, on-demand, as many upstream examples do) and leaves the key to "
        "`requirements`.",
    )
    spot: Spot | None = Field(
        default=None,
        description="Spot capacity (`{}`), as on the other pools; Karpenter can't cap the "
        "price, so `max_price` is an error. Default None.",
    )
    instance_types: InstanceTypeValues | None = Field(
        default=None,
        description="Pin instance types (`node.kubernetes.io/instance-type`), e.g. "
        "`trn1.2xlarge`. Default None (any).",
    )
    instance_families: RequirementValues | None = Field(
        default=None,
        description="Instance families (`karpenter.k8s.aws/instance-family`), e.g. `g5`, `m5`. "
        "Default None (any).",
    )
    instance_categories: RequirementValues | None = Field(
        default=None,
        description="Instance categories (`karpenter.k8s.aws/instance-category`), e.g. `g`, "
        "`p`, `c`. Default None (any).",
    )
    architectures: list[Literal["amd64", "arm64"]] | None = Field(
        default=None, description="CPU architectures (`kubernetes.io/arch`). Default None (any)."
    )
    gpu_count: int | None = Field(
        default=None,
        ge=1,
        description="Exact GPUs per instance (`karpenter.k8s.aws/instance-gpu-count`). "
        "Default None.",
    )
    gpu_manufacturers: list[Literal["nvidia", "amd"]] | None = Field(
        default=None,
        description="GPU makers (`karpenter.k8s.aws/instance-gpu-manufacturer`). Default None: "
        "`[nvidia]` when another GPU requirement or a GPU category leaves the maker open "
        "(a requirement of yours on that key replaces it).",
    )
    gpu_names: LowercaseValues | None = Field(
        default=None,
        description="GPU models in lowercase (`karpenter.k8s.aws/instance-gpu-name`), e.g. "
        "`a10g`, `h100`. Default None.",
    )
    neuron_count: int | None = Field(
        default=None,
        ge=1,
        description="Exact Neuron devices per instance "
        "(`karpenter.k8s.aws/instance-accelerator-count`). Default None.",
    )
    neuron_names: LowercaseValues | None = Field(
        default=None,
        description="Neuron device names (`karpenter.k8s.aws/instance-accelerator-name`), e.g. "
        "`trainium`, `inferentia2`. Default None.",
    )
    requirements: list[NodeRequirement] = Field(
        default_factory=list[NodeRequirement],
        max_length=MAX_REQUIREMENTS,
        description="More NodePool requirements, as Karpenter writes them: any label key, "
        "operators In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte, and `min_values`, e.g. "
        "`{key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ['2']}`. A key "
        "that one of the args above sets (instance types, families, ...) is set by one or the "
        "other, not both; requirements that exclude each other are errors. Default [].",
    )
    labels: Labels = Field(
        default_factory=dict,
        description=f"Node labels; default {{}}. `{POOL_LABEL}` is set by the pool itself; "
        "keys Karpenter restricts, requirement keys (`karpenter.sh/capacity-type`, ...: use "
        "their args) and reserved domains (`kubernetes.io`, ...) are refused.",
    )
    taints: Taints = Field(
        default_factory=list[Taint],
        description="Node taints; default []. An accelerator-only pool adds "
        "`<accelerator resource>=true:NoSchedule` (a taint with the same key and effect "
        "replaces it) unless `taints: []` is given explicitly, which means no taint at all "
        "(the policy pack's mandatory `accelerator-pool-tainted` then reports the pool); a "
        "pool that may launch accelerator and CPU instances must list it.",
    )
    startup_taints: Taints = Field(
        default_factory=list[Taint],
        description="Taints a node starts with and a daemon removes when it is ready; pods "
        "need not tolerate them. Default [].",
    )
    limits: Limits = Field(
        default_factory=dict,
        description="Most resources the pool may own in total: `cpu`, `memory`, `nodes`, "
        "accelerators (`nvidia.com/gpu`, `aws.amazon.com/neuron`, ...); required for the "
        "accelerator the pool can launch. Default {} (none).",
    )
    disruption: Disruption | None = Field(
        default=None,
        description="Consolidation and disruption budgets (see `Disruption`). Default None: "
        "accelerator-only pools get `{consolidationPolicy: WhenEmpty, consolidateAfter: 10m}`, "
        "other pools no `disruption` block (Karpenter's defaults: WhenEmptyOrUnderutilized "
        "after 0s, 10% of nodes at a time), as upstream's examples write it. Any value "
        "given, `{}` included, writes the block with those defaults filled in.",
    )
    replicas: int | None = Field(
        default=None,
        ge=0,
        description="A static NodePool of exactly this many nodes (`spec.replicas`): Karpenter "
        "keeps the count whatever the pods need; only a `nodes` limit and no `weight` go with "
        "it, and a pool can't switch between static and dynamic later. Default None (dynamic).",
    )
    weight: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="Priority among NodePools that fit a pod, 1..100. Default None (lowest).",
    )
    expire_after: Duration | None = Field(
        default=None,
        description="Replace nodes older than this, or `Never`. Default None (Karpenter's 720h).",
    )
    termination_grace_period: GracePeriod | None = Field(
        default=None,
        description="How long a draining node waits for pods before it is terminated anyway. "
        "Default None (wait for every pod).",
    )
    efa: bool = Field(
        default=False,
        description="The pods use Elastic Fabric Adapter: the scheduling info requests "
        "`vpc.amazonaws.com/efa: 1`, so Karpenter launches only instance types that offer EFA "
        "(it has no well-known label for EFA to write as a requirement); pinned instance "
        "types must carry EFA (the instance catalog's `efa_interfaces`). Give the node class "
        "its `network_interfaces` and `placement_group` as EFA needs them. Default false.",
    )
    annotations: Annotations = Field(
        default_factory=dict,
        description="`metadata.annotations` of the NodePool, e.g. `kubernetes.io/description`. "
        "Default {}.",
    )
    pool_name: PoolName | None = Field(
        default=None,
        description="Name of the NodePool (and of its EC2NodeClass) and of the identity label; "
        "default the component name.",
    )
    identity_label: bool = Field(
        default=True,
        description=f"Put the identity label `{POOL_LABEL}: <pool name>` on the nodes (and in "
        "the scheduling info). `false` writes the NodePool's labels exactly as given; pods "
        f"then select the pool by `{NODEPOOL_LABEL}`, which Karpenter sets. Default true.",
    )

    @field_validator("node_class_name")
    @classmethod
    def _one_node_class(cls, name: str | None, info: ValidationInfo) -> str | None:
        if "node_class" not in info.data:
            return name  # node_class itself is invalid; that is reported already
        node_class = info.data["node_class"]
        if name is None and node_class is None:
            raise ValueError("One of `node_class` or `node_class_name` is required.")
        if name is not None and node_class is not None:
            raise ValueError("Only one of `node_class` or `node_class_name` can be provided.")
        if name is not None and (problem := object_name_problem(name)):
            raise ValueError(problem)
        return name

    @field_validator("replicas")
    @classmethod
    def _static_limits(cls, replicas: int | None, info: ValidationInfo) -> int | None:
        # The NodePool CRD's rules for static pools, in its words.
        others = sorted(set(info.data.get("limits") or {}) - {"nodes"})
        if replicas is not None and others:
            raise ValueError(
                f"only 'limits.nodes' is supported on static NodePools (replicas {replicas}); "
                f"remove {others} from `limits`"
            )
        return replicas

    @field_validator("weight")
    @classmethod
    def _no_static_weight(cls, weight: int | None, info: ValidationInfo) -> int | None:
        replicas = info.data.get("replicas")
        if replicas is not None and weight is not None:
            raise ValueError(
                f"{weight!r}: 'weight' is not supported on static NodePools (replicas {replicas})"
            )
        return weight

    @field_validator("requirements")
    @classmethod
    def _requirements(
        cls, requirements: list[NodeRequirement], info: ValidationInfo
    ) -> list[NodeRequirement]:
        issues: list[Issue] = []
        for index, requirement in enumerate(requirements):
            arg = REQUIREMENT_ARGS.get(requirement.key)
            set_by = [
                name
                for name in ((arg, "spot") if arg == "capacity_types" else (arg,))
                if name is not None and info.data.get(name) not in (None, [])
            ]
            if set_by:
                issues.append(
                    Issue(
                        f"[{index}].key",
                        f"{requirement.key!r} is set by `{set_by[0]}` "
                        f"({info.data[set_by[0]]!r}); say it in one place: remove the "
                        f"requirement or `{set_by[0]}`",
                    )
                )
        issues += contradiction_issues(requirements, path="")
        if issues:
            raise NestedIssues(issues)
        return requirements

    @field_validator("capacity_types", "architectures", "gpu_manufacturers")
    @classmethod
    def _set(cls, values: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if values == [] and info.field_name == "capacity_types":
            # No capacity-type requirement of ours: Karpenter's default (on-demand), or the
            # user's own requirement on the key.
            return []
        return None if values is None else _unique_sorted(values)

    @field_validator("spot")
    @classmethod
    def _spot(cls, spot: Spot | None, info: ValidationInfo) -> Spot | None:
        if spot is None:
            return None
        if spot.max_price is not None:
            raise PathError(
                "max_price",
                f"{spot.max_price!r} can't be used: Karpenter can't cap the spot price (EC2 "
                "caps spot at the on-demand price); remove `max_price`",
            )
        types = info.data.get("capacity_types")
        if types is not None and "spot" not in types:
            raise ValueError(f"`capacity_types` {types!r} has no 'spot'; add it or remove `spot`")
        return spot

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: dict[str, str]) -> dict[str, str]:
        problems = [Issue("", problem) for key in labels if (problem := _label_problem(key))]
        if len(labels) > MAX_LABELS:
            problems.append(
                Issue("", f"at most {MAX_LABELS} labels are allowed (got {len(labels)})")
            )
        if problems:
            raise NestedIssues(problems)
        return labels


# Karpenter reads a NodePool's template labels as requirements too, so a label on one of
# these keys could only repeat or contradict the arg that renders the requirement.
REQUIREMENT_ARGS = {
    CAPACITY_TYPE_LABEL: "capacity_types",
    ARCH_LABEL: "architectures",
    INSTANCE_TYPE_LABEL: "instance_types",
    INSTANCE_FAMILY_LABEL: "instance_families",
    INSTANCE_CATEGORY_LABEL: "instance_categories",
    GPU_COUNT_LABEL: "gpu_count",
    GPU_MANUFACTURER_LABEL: "gpu_manufacturers",
    GPU_NAME_LABEL: "gpu_names",
    NEURON_COUNT_LABEL: "neuron_count",
    NEURON_NAME_LABEL: "neuron_names",
}
_KARPENTER_DOMAINS = ("karpenter.sh", "karpenter.k8s.aws")


def _label_problem(key: str) -> str | None:
    """Why a Karpenter pool can't carry label `key`: the NodePool CRD refuses it, it is a
    requirement with its own arg, or its domain is reserved (the policy pack refuses it)."""
    if key == POOL_LABEL:
        return f"label {POOL_LABEL!r} is set by the pool itself (to its pool name); remove it"
    domain = restricted_domain(key)
    if key in REQUIREMENT_ARGS:
        arg = REQUIREMENT_ARGS[key]
        return (
            f"label {key!r} is a requirement: set `{arg}` instead (Karpenter reads a template "
            f"label as a requirement, so it could only repeat or contradict `{arg}`)"
        )
    if problem := restricted_label_problem(key):
        return problem
    karpenter_domain = next(
        (d for d in _KARPENTER_DOMAINS if key.split("/", 1)[0].endswith(d)), None
    )
    if "/" in key and karpenter_domain is not None:
        # The CRD allows this well-known key as a label; Karpenter would read it as the
        # requirement `key In [value]`, which `requirements` says directly (and checks
        # against the pool's other requirements).
        return (
            f"label {key!r} is one of Karpenter's well-known labels, which it sets on each "
            "node from the instance it launches; as a template label it is a requirement: "
            f"write it in `requirements` ({{key: {key}, operator: In, values: [...]}})"
        )
    if domain is not None:
        return (
            f"label {key!r} is in the reserved `{domain}` domain: the kubelet refuses to set "
            "it on its node; use a prefix of your own, e.g. `example.com/...` (a pool may "
            "carry kubernetes.io/os, topology.kubernetes.io/zone and /region, and "
            "node.kubernetes.io/* and kubelet.kubernetes.io/* keys other than the instance "
            "type)"
        )
    return None
