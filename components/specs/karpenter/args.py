"""Args of KarpenterNodePool (the resolved pool: nodepools.specs.karpenter.resolve).

A Karpenter pool is a `karpenter.sh/v1` NodePool (what may be launched: requirements,
labels, taints, limits, disruption) plus, unless an existing one is named, a
`karpenter.k8s.aws/v1` EC2NodeClass (how it is launched: IAM role, AMI, subnets, security
groups, disk, tags). Field rules mirror the v1.14.1 CRDs so that a mistake is reported
with its arg path here, before anything is rendered; the rendered manifests are then
validated against the CRDs themselves as a backstop (see nodepools.backends.karpenter).
"""

from __future__ import annotations

from typing import Literal

from nodepools.specs.core.base import Issue, NestedIssues, PathError, SpecModel
from nodepools.specs.core.kube import object_name_problem
from nodepools.specs.core.labels import POOL_LABEL, Labels
from nodepools.specs.core.scaling import Spot
from nodepools.specs.core.taints import Taint, Taints
from nodepools.specs.karpenter.annotations import Annotations
from nodepools.specs.karpenter.checks import REQUIREMENT_ARGS, label_problem
from nodepools.specs.karpenter.disruption import Disruption
from nodepools.specs.karpenter.labels import NODEPOOL_LABEL
from nodepools.specs.karpenter.node_class import NodeClassArgs
from nodepools.specs.karpenter.requirements import (
    MAX_REQUIREMENTS,
    NodeRequirement,
    contradiction_issues,
)
from nodepools.specs.karpenter.values import (
    CategoryValues,
    Duration,
    FamilyValues,
    GracePeriod,
    InstanceTypeValues,
    Limits,
    LowercaseValues,
    unique_sorted,
)
from nodepools.specs.pools.names import PoolName
from pydantic import Field, ValidationInfo, field_validator

# The NodePool CRD allows 100 template labels; one of them is the pool's identity label.
MAX_LABELS = 99


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
    instance_families: FamilyValues | None = Field(
        default=None,
        description="Instance families (`karpenter.k8s.aws/instance-family`), e.g. `g5`, `m5`: "
        "a name of no family's form is an error, one the instance catalog lacks a plan "
        "warning. Default None (any).",
    )
    instance_categories: CategoryValues | None = Field(
        default=None,
        description="Instance categories (`karpenter.k8s.aws/instance-category`), e.g. `g`, "
        "`p`, `c`: lowercase letters; one the instance catalog lacks is a plan warning. "
        "Default None (any).",
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
    node_annotations: Annotations = Field(
        default_factory=dict,
        description="Annotations Karpenter puts on every node it launches for the pool "
        "(`spec.template.metadata.annotations` of the NodePool), e.g. "
        "`example.com/owner: ml-platform`. Default {}.",
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
            raise ValueError("one of `node_class` or `node_class_name` is required")
        if name is not None and node_class is not None:
            raise ValueError("only one of `node_class` or `node_class_name` can be provided")
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
        return None if values is None else unique_sorted(values)

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
        problems = [Issue("", problem) for key in labels if (problem := label_problem(key))]
        if len(labels) > MAX_LABELS:
            problems.append(
                Issue("", f"at most {MAX_LABELS} labels are allowed (got {len(labels)})")
            )
        if problems:
            raise NestedIssues(problems)
        return labels
