"""A managed pool with every default applied (`ResolvedPool`): what backends build and
scheduling derives from, and the resolvers of `MachinePool` and `GpuSpotPool` args."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nodepools.specs.catalog.accelerator_agreement import with_catalog_facts
from nodepools.specs.catalog.accelerators import (
    Accelerator,
    AdvertisedAccelerators,
    lookup_accelerator,
)
from nodepools.specs.clusters.capabilities import cloud_node_taints, default_boot_volume_gb
from nodepools.specs.core.base import Issue, SpecError
from nodepools.specs.core.labels import POOL_LABEL
from nodepools.specs.core.scaling import Scaling, Spot
from nodepools.specs.core.taints import Taint, merge_taints
from nodepools.specs.pools.args import GpuSpotPoolArgs, PoolArgsBase
from nodepools.specs.pools.capacity_reservation import CapacityReservation
from nodepools.specs.pools.checks import REPLICAS_OR_AUTOSCALING
from nodepools.specs.pools.eks_settings import (
    LatestRelease,
    LaunchTemplateOptions,
    NodeRoleOptions,
    RemoteAccess,
    resolved_eks_settings,
)
from nodepools.specs.pools.instance_mix import mix_accelerator
from nodepools.specs.pools.names import pool_name_problem
from nodepools.specs.pools.network import EFA_RESOURCE, PoolNetwork, efa_interfaces
from nodepools.specs.pools.node_settings import (
    BootVolume,
    MetadataOptions,
    NodeConfig,
    UpdatePolicy,
)
from nodepools.specs.pools.settings import resolved_settings

SPOT_TAINT = Taint(key="spot", value="true", effect="PreferNoSchedule")
GPU_POOL_LABELS = {"node-type": "gpu"}
GPU_POOL_DEFAULT_SCALING = Scaling(min_replicas=0, max_replicas=3)


def accelerator_taint(accelerator: Accelerator) -> Taint:
    """The taint that keeps pods without an accelerator request off accelerator nodes."""
    return Taint(key=accelerator.resource, value="true", effect="NoSchedule")


def pool_taints(
    defaults: Iterable[Taint], taints: Iterable[Taint], cluster: object, spot: bool
) -> tuple[Taint, ...]:
    """A pool's taints: its kind's `defaults`, overridden by the user's `taints` (same key
    and effect), then what the cloud taints its nodes with itself (`cloud_node_taints`),
    last because pods must tolerate those as the cloud writes them."""
    return tuple(merge_taints(defaults, [*taints, *cloud_node_taints(cluster, spot)]))


def effective_pool_name(pool_name: str | None, component_name: str) -> tuple[str, Issue | None]:
    """The pool's name (explicit, else the component name) and the problem with it, if any."""
    name = pool_name or component_name
    problem = pool_name_problem(name)
    if problem is None:
        return name, None
    return name, Issue(
        "pool_name", f"{problem}; the component name is used when `pool_name` is unset"
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


def advertised_problem(args: PoolArgsBase, accelerator: Accelerator | None) -> str | None:
    """Why the pool's nodes can't advertise `args.advertised`: no accelerators to
    partition, or a resource of another maker than theirs (MIG slices and time-sliced
    GPUs keep their maker's domain: `nvidia.com/...`)."""
    advertised = args.advertised
    assert advertised is not None
    given = repr(advertised.model_dump())
    if accelerator is None:
        return f"{given} can't be used: the pool has no accelerators to partition"
    domain = accelerator.resource.split("/", 1)[0]
    if advertised.resource.split("/", 1)[0] != domain:
        return (
            f"{given} can't be used: the pool's accelerators are `{accelerator.resource}`, "
            f"and device software advertises them as `{domain}/...` resources"
        )
    return None


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
    # EKS settings (`pools.eks_settings`); what OKE and ROSA refuse stays at its default.
    identity_label: bool = True
    gpu_node_label: bool = True
    tags: dict[str, str] = field(default_factory=dict[str, str])
    instance_tags: dict[str, str] = field(default_factory=dict[str, str])
    node_group_name: str | None = None
    ami_family: str | None = None
    remote_access: RemoteAccess | None = None
    launch_template: LaunchTemplateOptions | None = None
    node_role: NodeRoleOptions | None = None
    follow_latest_release: LatestRelease | None = None
    force_update_version: bool | None = None

    @property
    def node_selector(self) -> dict[str, str]:
        """What selects the pool's nodes: its identity label, or (`identity_label: false`)
        every label it gives its nodes."""
        if self.identity_label:
            return {POOL_LABEL: self.pool_name}
        return dict(self.labels)

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
            **({} if self.identity_label else {"identityLabel": False}),
        }


def pool_boot_volume_gb(args: Any, accelerator: Accelerator | None) -> int | None:
    """The boot volume a pool asks for: `boot_volume_gb` or `boot_volume.size_gb`, else the
    cloud's accelerator default; `boot_volume_gb: null` written out is the cloud's own
    default (no size asked for), the way to turn ours off."""
    volume: BootVolume | None = args.boot_volume
    given: int | None = args.boot_volume_gb or (volume.size_gb if volume else None)
    if given is not None or "boot_volume_gb" in args.model_fields_set:
        return given
    return default_boot_volume_gb(args.cluster, accelerator is not None)


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
                f"pool {component_name!r}", [Issue("autoscaling", REPLICAS_OR_AUTOSCALING)]
            )
        min_nodes, max_nodes, autoscaled = scaling.min_replicas, scaling.max_replicas, True
    accelerator = with_catalog_facts(args.accelerator, catalog_accelerator(args))
    if args.advertised is not None and (problem := advertised_problem(args, accelerator)):
        raise SpecError(f"pool {component_name!r}", [Issue("advertised", problem)])
    labels = {
        **(default_labels or {}),
        **args.labels,
        **(extra_labels or {}),
        **({POOL_LABEL: pool_name} if args.identity_label else {}),
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
        boot_volume_gb=pool_boot_volume_gb(args, accelerator),
        accelerator=accelerator,
        ocpus=args.ocpus,
        memory_gb=args.memory_gb,
        instance_types=tuple(args.instance_types or ()),
        network=args.network,
        capacity_reservation=args.capacity_reservation,
        advertised=args.advertised,
        **resolved_settings(args),
        **resolved_eks_settings(args),
    )


def resolve_gpu_spot_pool(args: GpuSpotPoolArgs, component_name: str) -> ResolvedPool:
    """`resolve_pool` with a GpuSpotPool's defaults: accelerator and spot taints, the GPU
    label, autoscaling 0..3."""
    accelerator = with_catalog_facts(args.accelerator, catalog_accelerator(args))
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
