"""Args of SharedNodePool, and the plain description of a shared pool that recipes match.

A shared pool is long-lived infrastructure that recipes (workloads) are placed onto and
removed from without touching it, so its size is fixed: recipes count on its capacity.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from nodepools.specs.catalog.accelerator_agreement import (
    advertised_resource_problem,
    with_catalog_facts,
)
from nodepools.specs.catalog.accelerators import Accelerator, lookup_accelerator
from nodepools.specs.clusters.targets import ClusterTarget
from nodepools.specs.core.base import PathError, SpecError, SpecModel
from nodepools.specs.core.labels import (
    POOL_LABEL,
    POOL_SELECTOR_LABEL,
    SHARED_POOL_LABEL,
    LabelKey,
    Labels,
    LabelValue,
    kubelet_label_problem,
)
from nodepools.specs.core.scaling import Spot
from nodepools.specs.core.taints import Taint, Taints
from nodepools.specs.pools.checked_args import Check, CheckedArgs
from nodepools.specs.pools.checks import SHARED_POOL_CHECKS
from nodepools.specs.pools.eks_settings import (
    AmiFamilySetting,
    FollowLatestReleaseSetting,
    ForceUpdateVersionSetting,
    GpuNodeLabelSetting,
    IdentityLabelSetting,
    InstanceTagsSetting,
    LaunchTemplateSetting,
    NodeGroupNameSetting,
    NodeRoleSetting,
    RemoteAccessSetting,
    TagsSetting,
    resolved_eks_settings,
)
from nodepools.specs.pools.names import PoolName
from nodepools.specs.pools.resolve import (
    SPOT_TAINT,
    ResolvedPool,
    accelerator_taint,
    effective_pool_name,
    pool_boot_volume_gb,
    pool_taints,
)
from nodepools.specs.pools.settings import (
    AmiIdSetting,
    AutoRepairSetting,
    AvailabilityZoneSetting,
    BootVolumeSetting,
    CapacityReservationSetting,
    MetadataOptionsSetting,
    NetworkSetting,
    NodeConfigSetting,
    ReleaseVersionSetting,
    SecurityGroupIdsSetting,
    SubnetIdSetting,
    UpdateSetting,
    flex_size_field,
    resolved_settings,
)
from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

# Set by the pool itself; a user value would break matching or the pool's identity.
RESERVED_LABELS = (POOL_LABEL, SHARED_POOL_LABEL, POOL_SELECTOR_LABEL)


def _check_selector(selector: str) -> str:
    if selector == "":
        raise ValueError("selector '' must not be empty; leave it out for no selector")
    return selector


# A pool selector: a label value that is not empty (an empty one would match no recipe).
Selector = Annotated[LabelValue, AfterValidator(_check_selector)]


def default_shared_taints(accelerator: Accelerator | None, spot: bool = False) -> list[Taint]:
    """The taints a shared pool has unless told otherwise: its accelerator's NoSchedule taint,
    so only pods that request (and tolerate) the accelerator land on its nodes, and on spot
    capacity `spot=true:PreferNoSchedule`, as a GpuSpotPool has (recipes placed on the pool
    tolerate every taint it has; other pods keep off interruptible nodes)."""
    taints = [accelerator_taint(accelerator)] if accelerator is not None else []
    return [*taints, SPOT_TAINT] if spot else taints


class SharedNodePoolArgs(CheckedArgs):
    """Args of `SharedNodePool`.

    Defaults: no selector; taint `<accelerator resource>=true:NoSchedule` on accelerator
    shapes, and `spot=true:PreferNoSchedule` with `spot` (given taints are added; one with
    the same key and effect replaces it).
    """

    checks: ClassVar[tuple[tuple[str, Check], ...]] = SHARED_POOL_CHECKS

    cluster: ClusterTarget = Field(
        description="Where the pool lives: an `OkeCluster`, `EksCluster` or `RosaCluster` "
        "(by `kind`). Required."
    )
    shape: str = Field(
        min_length=1,
        description="OCI shape or EC2 instance type of every node, e.g. `BM.GPU.MI300X.8`, "
        "`VM.Standard.E4.Flex`, `g5.12xlarge`. Required.",
    )
    availability_zone: AvailabilityZoneSetting = None
    subnet_id: SubnetIdSetting = None
    additional_security_group_ids: SecurityGroupIdsSetting = None
    size: int = Field(
        ge=0,
        description="Number of nodes, fixed (a shared pool does not autoscale: recipes are "
        "placed against its capacity). 0 keeps the pool with no nodes; its recipes wait. "
        "Required.",
    )
    boot_volume_gb: int | None = Field(
        default=None,
        gt=0,
        description="Boot volume per node in GB; required for bare-metal shapes (`BM.*`, "
        "`*.metal`), default None otherwise: the cloud's default, except accelerator shapes on "
        "OKE get 100 (OKE's 46.6 GB default does not hold GPU images). OKE: 50..32768.",
    )
    selector: Selector | None = Field(
        default=None,
        description="Name recipes use to target this pool (`shared_pool_selector`), published "
        f"as node label `{POOL_SELECTOR_LABEL}`; default None: only recipes without a "
        "selector are placed here.",
    )
    labels: Labels = Field(
        default_factory=dict,
        description=f"Extra node labels; default {{}}. `{POOL_LABEL}`, `{SHARED_POOL_LABEL}` "
        f"and `{POOL_SELECTOR_LABEL}` are set by the pool itself.",
    )
    taints: Taints = Field(
        default_factory=list[Taint],
        description="Extra node taints, added to the default accelerator taint (one with the "
        "same key and effect replaces it); default [].",
    )
    ocpus: float | None = flex_size_field("OCPUs")
    memory_gb: float | None = flex_size_field("Memory in GB")
    accelerator: Accelerator | None = Field(
        default=None,
        description="Accelerators per node; default None looks the shape up in the catalog "
        "(a shape not in it has none; an accelerated shape not in it is an error). Given for "
        "a shape the catalog knows, it must agree with it (resource, maker when given, "
        "count).",
    )
    pool_name: PoolName | None = Field(
        default=None,
        description="Name of the pool in the cloud and in its identity label; default the "
        "component name.",
    )
    node_config: NodeConfigSetting = None
    metadata_options: MetadataOptionsSetting = None
    boot_volume: BootVolumeSetting = None
    update: UpdateSetting = None
    auto_repair: AutoRepairSetting = None
    release_version: ReleaseVersionSetting = None
    ami_id: AmiIdSetting = None
    ami_family: AmiFamilySetting = None
    identity_label: IdentityLabelSetting = True
    gpu_node_label: GpuNodeLabelSetting = True
    tags: TagsSetting
    instance_tags: InstanceTagsSetting
    node_group_name: NodeGroupNameSetting = None
    remote_access: RemoteAccessSetting = None
    launch_template: LaunchTemplateSetting = None
    node_role: NodeRoleSetting = None
    follow_latest_release: FollowLatestReleaseSetting = None
    force_update_version: ForceUpdateVersionSetting = None
    instance_types: list[str] | None = Field(
        default=None,
        description="Refused: a shared pool runs one `shape` (recipes are placed against its "
        "accelerators); a mix of types is a MachinePool's `instance_types`. Default None.",
    )

    spot: Spot | None = Field(
        default=None,
        description="Spot (EKS; ROSA, where `max_price` may cap it) or preemptible (OKE, VM "
        "shapes only) capacity when set; default None (on-demand). A spot pool is also "
        "tainted `spot=true:PreferNoSchedule` (unless `taints` has that key and effect); on "
        "OKE its nodes also carry `oci.oraclecloud.com/oke-is-preemptible:NoSchedule`, which "
        "OKE adds itself and the pool's scheduling info and recipes tolerate. Recipes placed "
        "on a spot pool get a PodDisruptionBudget (see the recipe's `disruption_budget`).",
    )
    network: NetworkSetting = None
    capacity_reservation: CapacityReservationSetting = None

    @field_validator("instance_types")
    @classmethod
    def _one_shape(cls, names: list[str] | None) -> None:
        if names is not None:
            raise ValueError(
                f"{names!r} can't be used: a shared pool has one `shape`, whose accelerators "
                "recipes are placed against; use a MachinePool for a mix of types"
            )
        return None

    @field_validator("labels")
    @classmethod
    def _reserved_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        taken = [key for key in RESERVED_LABELS if key in labels]
        if taken:
            raise ValueError(
                f"label {taken[0]!r} is set by the pool itself (from its name and `selector`); "
                "remove it"
            )
        for key in labels:
            if problem := kubelet_label_problem(key):
                raise PathError(f'["{key}"]', problem)
        return labels


def resolve_shared_pool(args: SharedNodePoolArgs, component_name: str) -> ResolvedPool:
    """Every default applied: identity, shared-pool and selector labels, accelerator taint."""
    pool_name, name_issue = effective_pool_name(args.pool_name, component_name)
    if name_issue:
        raise SpecError(f"SharedNodePool {component_name!r}", [name_issue])
    accelerator = with_catalog_facts(args.accelerator, lookup_accelerator(args.shape))
    labels = {
        **args.labels,
        SHARED_POOL_LABEL: "true",
        **({POOL_SELECTOR_LABEL: args.selector} if args.selector is not None else {}),
        POOL_LABEL: pool_name,
    }
    return ResolvedPool(
        component_name=component_name,
        pool_name=pool_name,
        cluster=args.cluster,
        instance_type=args.shape,
        min_nodes=args.size,
        max_nodes=args.size,
        autoscaled=False,
        labels=dict(sorted(labels.items())),
        taints=pool_taints(
            default_shared_taints(accelerator, args.spot is not None),
            args.taints,
            args.cluster,
            args.spot is not None,
        ),
        spot=args.spot,
        boot_volume_gb=pool_boot_volume_gb(args, accelerator),
        accelerator=accelerator,
        ocpus=args.ocpus,
        memory_gb=args.memory_gb,
        network=args.network,
        capacity_reservation=args.capacity_reservation,
        **resolved_settings(args),
        **resolved_eks_settings(args),
    )


class SharedPoolDescription(SpecModel):
    """A shared pool as recipes see it: enough to match, count capacity and schedule.

    `SharedNodePool.pool_description` gives one for a pool of this program; write one by
    hand for a pool created elsewhere (another stack, the console).
    """

    name: PoolName = Field(description="The pool's name (its identity label value). Required.")
    shape: str = Field(min_length=1, description="Shape of its nodes. Required.")
    size: int = Field(ge=0, description="Number of nodes. Required.")
    selector: Selector | None = Field(
        default=None, description="The pool's selector; default None (no selector)."
    )
    gpus_per_node: int | None = Field(
        default=None,
        ge=0,
        validate_default=True,
        description="Accelerators per node; default None takes the shape's from the catalog "
        "(0 for a shape not in it).",
    )
    accelerator_resource: LabelKey | None = Field(
        default=None,
        validate_default=True,
        description="Extended resource name of the accelerators, e.g. `amd.com/gpu`; default "
        "None takes the shape's from the catalog. Required when `gpus_per_node` > 0 and the "
        "shape is not in the catalog.",
    )
    taints: Taints | None = Field(
        default=None,
        description="All taints of the pool's nodes; default None: the ones a SharedNodePool "
        "has by default (`<accelerator resource>=true:NoSchedule` on accelerator shapes, and "
        "`spot=true:PreferNoSchedule` with `spot`). For an OKE preemptible pool list "
        "`oci.oraclecloud.com/oke-is-preemptible:NoSchedule` too: OKE taints its nodes "
        "with it (`SharedNodePool.pool_description` includes it).",
    )
    spot: bool = Field(
        default=False,
        description="Whether the pool's nodes are spot / preemptible capacity, which the cloud "
        "can reclaim at any time; default false. Recipes placed on it get a "
        "PodDisruptionBudget (the recipe's `disruption_budget`).",
    )

    @field_validator("gpus_per_node")
    @classmethod
    def _gpus_per_node(cls, count: int | None, info: ValidationInfo) -> int | None:
        if count is not None:
            return count
        shape = info.data.get("shape")
        accelerator = lookup_accelerator(shape) if shape else None
        return accelerator.count if accelerator else 0

    @field_validator("accelerator_resource")
    @classmethod
    def _accelerator_resource(cls, resource: str | None, info: ValidationInfo) -> str | None:
        if resource is not None:
            return resource
        shape = info.data.get("shape")
        accelerator = lookup_accelerator(shape) if shape else None
        if accelerator is not None:
            return accelerator.resource
        if info.data.get("gpus_per_node"):
            raise ValueError(
                f"is required: shape {shape!r} is not in the accelerator catalog and "
                f"`gpus_per_node` is {info.data['gpus_per_node']}"
            )
        return None

    @model_validator(mode="after")
    def _agrees_with_catalog(self) -> SharedPoolDescription:
        problem = advertised_resource_problem(
            self.shape, self.accelerator_resource, self.gpus_per_node
        )
        if problem is not None:
            field = "accelerator_resource" if self.accelerator_resource else "gpus_per_node"
            raise PathError(field, problem)
        return self

    def model_post_init(self, __context: Any) -> None:
        if self.taints is None:
            accelerator = (
                Accelerator(resource=self.accelerator_resource, count=self.gpus_per_node)
                if self.accelerator_resource and self.gpus_per_node
                else None
            )
            object.__setattr__(self, "taints", default_shared_taints(accelerator, self.spot))

    @property
    def total_gpus(self) -> int:
        return (self.gpus_per_node or 0) * self.size


def describe_shared_pool(pool: ResolvedPool) -> SharedPoolDescription:
    """The description of a resolved shared pool (what recipes of this program match)."""
    return SharedPoolDescription(
        name=pool.pool_name,
        shape=pool.instance_type,
        size=pool.max_nodes,
        selector=pool.labels.get(POOL_SELECTOR_LABEL),
        gpus_per_node=pool.accelerators_per_node,
        accelerator_resource=pool.accelerator.resource if pool.accelerator else None,
        taints=list(pool.taints),
        spot=pool.spot is not None,
    )
