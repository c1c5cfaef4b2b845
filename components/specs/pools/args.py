"""Args of MachinePool and GpuSpotPool, and the resolved pool every backend builds from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from nodepools.specs.catalog.accelerators import (
    Accelerator,
    AdvertisedAccelerators,
    flex_bounds_problem,
    flex_size_problem,
    is_bare_metal,
    lookup_accelerator,
)
from nodepools.specs.catalog.instance_checks import (
    instance_type_problem,
    missing_accelerator_problem,
)
from nodepools.specs.catalog.instance_types import architecture, instance_type
from nodepools.specs.clusters.targets import (
    ClusterCapabilities,
    ClusterTarget,
    boot_volume_problem,
    capabilities_for,
    default_boot_volume_gb,
    pool_taints,
)
from nodepools.specs.core.base import Issue, PathError, SpecError, SpecModel
from nodepools.specs.core.labels import POOL_LABEL, Labels, kubelet_label_problem
from nodepools.specs.core.scaling import Scaling, Spot
from nodepools.specs.core.taints import Taint, Taints
from nodepools.specs.pools.capacity_reservation import CapacityReservation
from nodepools.specs.pools.names import PoolName, pool_name_problem
from nodepools.specs.pools.network import EFA_RESOURCE, PoolNetwork, efa_interfaces
from nodepools.specs.pools.node_settings import (
    BootVolume,
    MetadataOptions,
    NodeConfig,
    UpdatePolicy,
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
    resolved_settings,
    single_zone,
)
from pydantic import (
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails

SPOT_TAINT = Taint(key="spot", value="true", effect="PreferNoSchedule")
GPU_POOL_LABELS = {"node-type": "gpu"}
GPU_POOL_DEFAULT_SCALING = Scaling(min_replicas=0, max_replicas=3)


def check_spot(spot: Spot | None, cluster: Any, shape: str | None) -> None:
    """Raise when the cluster's cloud can't give `spot` capacity of `shape` as asked."""
    if spot is None:
        return
    caps = capabilities_for(cluster)
    if spot.max_price is not None and caps and not caps.spot_max_price:
        raise PathError(
            "max_price",
            f"{spot.max_price!r} can't be used: {caps.title} can't cap the spot price "
            f"({caps.spot_max_price_why}); remove `max_price`",
        )
    if getattr(cluster, "kind", None) == "oke" and shape and is_bare_metal(shape):
        # OCI: "Preemptible capacity does not support bare metal instances".
        raise ValueError(
            f"OCI preemptible capacity can't run bare-metal shapes ({shape}); set "
            "`spot: null` for on-demand nodes, or use a VM shape for spot"
        )


def count_multiple_problem(count: int, cluster: object, *, single_zone: bool = False) -> str | None:
    """Why `count` nodes can't be asked of `cluster`: more than the cloud allows, or not a
    multiple it needs (multi-AZ ROSA wants multiples of 3, unless the pool is pinned to one
    zone: `single_zone`)."""
    caps = capabilities_for(cluster, single_zone=single_zone)
    if caps is None:
        return None
    if count > caps.max_nodes:
        return _too_many(count, caps)
    if count % caps.replicas_multiple == 0:
        return None
    return _not_a_multiple(count, caps)


def _too_many(count: int, caps: ClusterCapabilities) -> str:
    return f"{count} is more than the {caps.max_nodes:,} nodes {caps.title} allow: {caps.max_nodes_why}"


def _not_a_multiple(count: int, caps: ClusterCapabilities) -> str:
    why = f": {caps.replicas_multiple_why}" if caps.replicas_multiple_why else ""
    return f"{count} must be a multiple of {caps.replicas_multiple} for {caps.title}{why}"


def effective_pool_name(pool_name: str | None, component_name: str) -> tuple[str, Issue | None]:
    """The pool's name (explicit, else the component name) and the problem with it, if any."""
    name = pool_name or component_name
    problem = pool_name_problem(name)
    if problem is None:
        return name, None
    return name, Issue(
        "pool_name", f"{problem}; the component name is used when `pool_name` is unset"
    )


def flex_size_field(what: str) -> Any:
    """`ocpus` / `memory_gb`: checked against the shape by `flex_size_problem`."""
    return Field(
        default=None,
        gt=0,
        validate_default=True,  # so a missing value on a Flex shape is reported
        description=f"{what} per node; required for flexible OCI `.Flex` shapes, not allowed "
        "otherwise. Default None.",
    )


def accelerator_taint(accelerator: Accelerator) -> Taint:
    """The taint that keeps pods without an accelerator request off accelerator nodes."""
    return Taint(key=accelerator.resource, value="true", effect="NoSchedule")


class PoolArgsBase(SpecModel):
    """Fields every node pool on a managed node-group backend shares.

    Field order matters: a field's validator sees only the fields declared above it.
    """

    # Its validator is built when first used (this base itself rarely is; GpuSpotPoolArgs
    # only by GpuSpotPool users), not when the module is imported: MachinePool users don't
    # pay for the other two. Errors are the same whenever the build happens.
    model_config = ConfigDict(defer_build=True)

    cluster: ClusterTarget = Field(
        description="Where the pool lives: an `EksCluster`, `OkeCluster` or `RosaCluster` "
        "(by `kind`). Required."
    )
    instance_type: str | None = Field(
        default=None,
        min_length=1,
        description="Instance type or OCI shape, e.g. `g4dn.xlarge`, `BM.GPU.A10.4`. Exactly "
        "one of `instance_type` or `instance_types` is required; default None.",
    )
    instance_types: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Several instance types for one pool (EKS only: the node group's "
        "`instance_types`); exclusive with `instance_type`. All must be in the catalog and "
        "share CPU architecture and accelerator resource; scheduling info and autoscaler "
        "tags use the type with the fewest accelerators and least memory. Default None.",
    )
    # Before the counts: a pool pinned to one zone is exempt from multi-AZ multiples.
    availability_zone: AvailabilityZoneSetting = None
    subnet_id: SubnetIdSetting = None
    additional_security_group_ids: SecurityGroupIdsSetting = None
    replicas: int | None = Field(
        default=None,
        ge=0,
        description="Fixed node count; exclusive with `autoscaling`. Default None.",
    )
    autoscaling: Scaling | None = Field(
        default=None,
        validate_default=True,
        description="Autoscaling bounds; exclusive with `replicas`. Default None.",
    )
    labels: Labels = Field(
        default_factory=dict,
        description=f"Node labels; default {{}}. `{POOL_LABEL}` is set by the pool itself.",
    )
    taints: Taints = Field(default_factory=list[Taint], description="Node taints; default [].")
    spot: Spot | None = Field(
        default=None, description="Spot/preemptible capacity when set; default None (on-demand)."
    )
    boot_volume_gb: int | None = Field(
        default=None,
        gt=0,
        description="Boot/root volume in GiB; default None: the cloud's default, except "
        "accelerator pools on EKS and OKE get 100 (the clouds' 20 and 46.6 GiB defaults do "
        "not hold GPU images; ROSA's 300 GiB default does).",
    )
    ocpus: float | None = flex_size_field("OCPUs")
    memory_gb: float | None = flex_size_field("Memory in GB")
    accelerator: Accelerator | None = Field(
        default=None,
        validate_default=True,
        description="Accelerators per node; default None looks the instance type up in the catalog.",
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

    network: NetworkSetting = None
    capacity_reservation: CapacityReservationSetting = None
    advertised: AdvertisedAccelerators | None = Field(
        default=None,
        description="What one node advertises in place of its accelerators once device "
        "software cuts them into MIG slices or time-slices them, e.g. `{resource: "
        "nvidia.com/mig-1g.10gb, count: 56}`: the scheduling info asks for it and, on EKS, "
        "the cluster-autoscaler node template advertises it (so a pending pod asking for it "
        "scales the pool from zero). Only on an accelerator pool. Default None: the "
        "accelerators as the hardware has them. A fleet sets it from the AcceleratorStack "
        "serving the pool; a program from `AcceleratorStack.required_advertised(args)`.",
    )

    @model_validator(mode="before")
    @classmethod
    def _one_of_instance_type_or_types(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields: dict[str, Any] = dict(data)  # pyright: ignore[reportUnknownArgumentType]
        given = fields.get("instance_types")
        if fields.get("instance_type") is not None and given is not None:
            raise PathError(
                "instance_types",
                "give exactly one of `instance_type` or `instance_types`, not both "
                f"(instance_type {fields['instance_type']!r}, instance_types {given!r})",
            )
        if fields.get("instance_type") is None and given is None:
            raise PathError(
                "instance_type", "one of `instance_type` or `instance_types` is required"
            )
        if given is not None and (smallest := smallest_of_mix(given)) is not None:
            # The mix's weakest type stands for the pool in every check and in the
            # scheduling info: never promise what one type of the mix lacks.
            fields["instance_type"] = smallest
        return fields

    @field_validator("instance_type")
    @classmethod
    def _instance_type_of_the_cluster(cls, name: str, info: ValidationInfo) -> str:
        if problem := instance_type_problem(name, info.data.get("cluster")):
            raise ValueError(problem)
        return name

    @field_validator("instance_types")
    @classmethod
    def _instance_types_mix(cls, names: list[str] | None, info: ValidationInfo):
        if names is None:
            return names
        cluster = info.data.get("cluster")
        kind = getattr(cluster, "kind", None)
        if kind in ("rosa", "oke"):
            backend = "ROSA machine pools" if kind == "rosa" else "OKE node pools"
            raise ValueError(
                f"{backend} run one instance type per pool; {names!r} can't be used: give "
                "`instance_type`, or one pool per type"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"{names!r} lists a type twice")
        for index, name in enumerate(names):
            if problem := instance_type_problem(name, cluster):
                raise PathError(f"[{index}]", problem)
            if instance_type(name) is None:
                raise PathError(
                    f"[{index}]",
                    f"{name!r} is not in the instance catalog; a mix needs every type's "
                    "accelerators and memory to find its smallest (use `instance_type` "
                    "for a type outside the catalog)",
                )
        arches = {name: architecture(name) for name in names}
        if len(set(arches.values())) > 1:
            raise ValueError(f"the types of a pool must share one CPU architecture: {arches!r}")
        resources = {
            name: (found.resource if (found := lookup_accelerator(name)) else None)
            for name in names
        }
        if len(set(resources.values())) > 1:
            raise ValueError(
                f"the types of a pool must share one accelerator resource: {resources!r}"
            )
        return names

    @field_validator("accelerator")
    @classmethod
    def _accelerated_type_has_accelerator(cls, accelerator: Any, info: ValidationInfo) -> Any:
        if problem := missing_accelerator_problem(info.data.get("instance_type"), accelerator):
            raise ValueError(problem)
        return accelerator

    @field_validator("autoscaling", mode="wrap")
    @classmethod
    def _replicas_xor_autoscaling(cls, autoscaling: Any, handler: Any, info: ValidationInfo):
        # Wrapped so the conflict is reported even when the bounds themselves are bad.
        if autoscaling is not None and info.data.get("replicas") is not None:
            raise ValueError("Only one of `replicas` or `autoscaling` can be provided.")
        return handler(autoscaling)

    @field_validator("replicas")
    @classmethod
    def _replicas_multiple(cls, replicas: int | None, info: ValidationInfo):
        if replicas is not None and (
            problem := count_multiple_problem(
                replicas, info.data.get("cluster"), single_zone=single_zone(info)
            )
        ):
            raise ValueError(problem)
        return replicas

    @field_validator("autoscaling")
    @classmethod
    def _autoscaling_multiples(cls, autoscaling: Scaling | None, info: ValidationInfo):
        cluster = info.data.get("cluster")
        if autoscaling is None or capabilities_for(cluster) is None:
            return autoscaling
        pinned = single_zone(info)
        # Raised as one error per bound, so both are reported at their own paths.
        line_errors: list[InitErrorDetails] = [
            {
                "type": "value_error",
                "loc": (bound,),
                "input": count,
                "ctx": {"error": ValueError(problem)},
            }
            for bound in ("min_replicas", "max_replicas")
            if (
                problem := count_multiple_problem(
                    count := getattr(autoscaling, bound), cluster, single_zone=pinned
                )
            )
        ]
        if line_errors:
            raise ValidationError.from_exception_data("Scaling", line_errors)
        return autoscaling

    @field_validator("labels")
    @classmethod
    def _identity_label_is_ours(cls, labels: dict[str, str]) -> dict[str, str]:
        if POOL_LABEL in labels:
            raise ValueError(
                f"label {POOL_LABEL!r} is set by the pool itself (to its pool name); remove it"
            )
        for key in labels:
            if problem := kubelet_label_problem(key):
                raise PathError(f'["{key}"]', problem)
        return labels

    @field_validator("spot")
    @classmethod
    def _spot_price_supported(cls, spot: Spot | None, info: ValidationInfo):
        check_spot(spot, info.data.get("cluster"), info.data.get("instance_type"))
        return spot

    @field_validator("boot_volume_gb")
    @classmethod
    def _boot_volume_in_range(cls, size: int | None, info: ValidationInfo):
        if size is not None and (problem := boot_volume_problem(size, info.data.get("cluster"))):
            raise ValueError(problem)
        return size

    @field_validator("ocpus", "memory_gb")
    @classmethod
    def _flex_only(cls, value: float | None, info: ValidationInfo) -> float | None:
        shape = info.data.get("instance_type")
        if shape and (problem := flex_size_problem(shape, info.field_name or "", value)):
            raise ValueError(problem)
        ocpus = info.data.get("ocpus") if info.field_name == "memory_gb" else None
        if (
            shape
            and value is not None
            and (problem := flex_bounds_problem(shape, info.field_name or "", value, ocpus))
        ):
            raise ValueError(problem)
        return value


class MachinePoolArgs(PoolArgsBase):
    """Args of `MachinePool`: exactly one of `replicas` or `autoscaling` is required."""

    model_config = ConfigDict(defer_build=False)  # the common case: built on import

    @field_validator("autoscaling")
    @classmethod
    def _one_of_replicas_or_autoscaling(cls, autoscaling: Scaling | None, info: ValidationInfo):
        if autoscaling is None and info.data.get("replicas") is None and "replicas" in info.data:
            raise ValueError("One of `replicas` or `autoscaling` is required.")
        return autoscaling


class GpuSpotPoolArgs(PoolArgsBase):
    """Args of `GpuSpotPool`: a MachinePool with GPU defaults.

    Defaults: autoscaling 0..3 (when `replicas` is not given), spot on, taints
    `<accelerator resource>=true:NoSchedule` and `spot=true:PreferNoSchedule` (given taints
    are added; one with the same key and effect replaces the default), label
    `node-type=gpu`. The instance type must have an accelerator unless one is given.
    """

    spot: Spot | None = Field(
        default_factory=Spot,
        # Checked as given: OKE refuses preemptible bare-metal nodes, so the default too.
        validate_default=True,
        description="Spot capacity; default on, uncapped (`{}`). OKE bare-metal shapes "
        "have no preemptible capacity: set `spot: null` there.",
    )

    @field_validator("accelerator")
    @classmethod
    def _needs_accelerator(cls, accelerator: Accelerator | None, info: ValidationInfo):
        instance_type = info.data.get("instance_type")
        if accelerator is None and instance_type and lookup_accelerator(instance_type) is None:
            raise ValueError(
                f"instance type {instance_type!r} has no accelerator in the catalog; "
                "give `accelerator` (resource, count) or use a GPU instance type"
            )
        return accelerator


def smallest_of_mix(names: Any) -> str | None:
    """The type of an `instance_types` mix with the fewest accelerators, then least memory
    (then fewest vCPUs, then name); None when a name is not a catalog type."""
    if not isinstance(names, list) or not names:
        return None
    keys: list[tuple[int, int, int, str]] = []
    for name in cast("list[object]", names):
        found = instance_type(name)
        if found is None:
            return None
        count = found.accelerator.count if found.accelerator else 0
        keys.append((count, found.memory_mib or 0, found.vcpus or 0, found.name))
    return min(keys)[3]


def mix_accelerator(names: tuple[str, ...] | list[str]) -> Accelerator | None:
    """The accelerators every type of a mix has at least: the fewest, the least memory per
    accelerator, and the model only when all types share it (a node-group label names it)."""
    found = [lookup_accelerator(name) for name in names]
    present = [a for a in found if a is not None]
    if not present or len(present) != len(found):
        return None
    memories = [a.memory_mib for a in present]
    known = [m for m in memories if m is not None]
    return present[0].model_copy(
        update={
            "count": min(a.count for a in present),
            "vendor": present[0].vendor if len({a.vendor for a in present}) == 1 else "other",
            "model": present[0].model if len({a.model for a in present}) == 1 else "",
            "memory_mib": min(known) if len(known) == len(memories) else None,
        }
    )


def catalog_accelerator(args: PoolArgsBase) -> Accelerator | None:
    """The pool's accelerators from the catalog: its type's, or what every type of its mix has."""
    if args.instance_types:
        return mix_accelerator(args.instance_types)
    return lookup_accelerator(pool_instance_type(args))


def pool_instance_type(args: PoolArgsBase) -> str:
    """The pool's instance type (the smallest of a mix); validation guarantees one."""
    assert args.instance_type is not None
    return args.instance_type


@dataclass(frozen=True)
class ResolvedPool:
    """A pool with every default applied: what backends build and scheduling derives from."""

    component_name: str
    pool_name: str
    cluster: Any
    instance_type: str
    min_nodes: int
    max_nodes: int
    autoscaled: bool
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    spot: Spot | None
    boot_volume_gb: int | None
    accelerator: Accelerator | None
    ocpus: float | None = None
    memory_gb: float | None = None
    # Every type of an `instance_types` mix (`instance_type` is then its smallest); () else.
    instance_types: tuple[str, ...] = ()
    node_config: NodeConfig | None = None
    metadata_options: MetadataOptions | None = None
    boot_volume: BootVolume | None = None
    update: UpdatePolicy | None = None
    auto_repair: bool | None = None
    release_version: str | None = None
    ami_id: str | None = None
    availability_zone: str | None = None
    subnet_id: str | None = None
    additional_security_group_ids: tuple[str, ...] = ()
    network: PoolNetwork | None = None
    capacity_reservation: CapacityReservation | None = None
    advertised: AdvertisedAccelerators | None = None

    @property
    def node_accelerator(self) -> Accelerator | None:
        """The accelerators as a node advertises them: `advertised` (MIG slices,
        time-sliced GPUs) in place of the hardware's resource and count, else the hardware's.
        What pods ask for and the autoscaler's node template offers."""
        if self.accelerator is None or self.advertised is None:
            return self.accelerator
        return self.accelerator.model_copy(
            update={"resource": self.advertised.resource, "count": self.advertised.count}
        )

    @property
    def efa_interfaces(self) -> int:
        """EFA interfaces per node (the fewest of a mix); 0 without `network.efa`."""
        if self.network is None or not self.network.efa:
            return 0
        counts = [efa_interfaces(t) or 0 for t in self.instance_types or (self.instance_type,)]
        return min(counts)

    @property
    def extra_limits(self) -> dict[str, int]:
        """Resources beyond the accelerator a pod of the pool asks for: its EFA interfaces."""
        return {EFA_RESOURCE: self.efa_interfaces} if self.efa_interfaces else {}

    @property
    def capacity_block(self) -> bool:
        reservation = self.capacity_reservation
        return reservation is not None and reservation.type == "capacity_block"

    @property
    def accelerators_per_node(self) -> int:
        return self.accelerator.count if self.accelerator else 0

    def summary(self) -> dict[str, Any]:
        """Plain, secret-free description registered as the component's inputs."""
        return {
            "poolName": self.pool_name,
            "clusterKind": self.cluster.kind,
            "instanceType": self.instance_type,
            "minNodes": self.min_nodes,
            "maxNodes": self.max_nodes,
            "autoscaled": self.autoscaled,
            "spot": self.spot is not None,
            "acceleratorResource": self.accelerator.resource if self.accelerator else None,
            "acceleratorsPerNode": self.accelerators_per_node,
            "acceleratorModel": self.accelerator.model if self.accelerator else None,
            "labels": self.labels,
            "taints": [str(t) for t in self.taints],
            "bootVolumeGb": self.boot_volume_gb,
            **({"instanceTypes": list(self.instance_types)} if self.instance_types else {}),
            **({"efaInterfaces": self.efa_interfaces} if self.efa_interfaces else {}),
            **(
                {"advertised": {self.advertised.resource: self.advertised.count}}
                if self.advertised
                else {}
            ),
            **(
                {"capacityReservation": self.capacity_reservation.type}
                if self.capacity_reservation
                else {}
            ),
        }


def resolve_pool(
    args: PoolArgsBase,
    component_name: str,
    *,
    default_labels: dict[str, str] | None = None,
    default_taints: list[Taint] | None = None,
    default_scaling: Scaling | None = None,
    extra_labels: dict[str, str] | None = None,
) -> ResolvedPool:
    """Apply defaults and the identity label; raise SpecError if the pool name is invalid."""
    pool_name, name_issue = effective_pool_name(args.pool_name, component_name)
    if name_issue:
        raise SpecError(f"pool {component_name!r}", [name_issue])
    if args.replicas is not None:
        min_nodes = max_nodes = args.replicas
        autoscaled = False
    else:
        scaling = args.autoscaling or default_scaling
        if scaling is None:
            raise SpecError(
                f"pool {component_name!r}",
                [Issue("autoscaling", "One of `replicas` or `autoscaling` is required.")],
            )
        min_nodes, max_nodes, autoscaled = scaling.min_replicas, scaling.max_replicas, True
    accelerator = args.accelerator or catalog_accelerator(args)
    if args.advertised is not None and accelerator is None:
        raise SpecError(
            f"pool {component_name!r}",
            [
                Issue(
                    "advertised",
                    f"{args.advertised.model_dump()!r} but the pool has no accelerators to "
                    "partition",
                )
            ],
        )
    labels = {
        **(default_labels or {}),
        **args.labels,
        **(extra_labels or {}),
        POOL_LABEL: pool_name,
    }
    taints = pool_taints(default_taints or [], args.taints, args.cluster, args.spot is not None)
    return ResolvedPool(
        component_name=component_name,
        pool_name=pool_name,
        cluster=args.cluster,
        instance_type=pool_instance_type(args),
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        autoscaled=autoscaled,
        labels=dict(sorted(labels.items())),
        taints=taints,
        spot=args.spot,
        boot_volume_gb=args.boot_volume_gb
        or (args.boot_volume.size_gb if args.boot_volume else None)
        or default_boot_volume_gb(args.cluster, accelerator is not None),
        accelerator=accelerator,
        ocpus=args.ocpus,
        memory_gb=args.memory_gb,
        instance_types=tuple(args.instance_types or ()),
        network=args.network,
        capacity_reservation=args.capacity_reservation,
        advertised=args.advertised,
        **resolved_settings(args),
    )


def resolve_gpu_spot_pool(args: GpuSpotPoolArgs, component_name: str) -> ResolvedPool:
    accelerator = args.accelerator or catalog_accelerator(args)
    assert accelerator is not None  # guaranteed by GpuSpotPoolArgs validation
    default_taints = [accelerator_taint(accelerator)]
    if args.spot is not None:
        default_taints.append(SPOT_TAINT)
    return resolve_pool(
        args,
        component_name,
        default_labels=GPU_POOL_LABELS,
        default_taints=default_taints,
        default_scaling=GPU_POOL_DEFAULT_SCALING,
    )
