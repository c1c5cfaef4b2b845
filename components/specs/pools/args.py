"""Args of `MachinePool` and `GpuSpotPool`: what the user writes.

Each field's own constraints are declared here; the rules between fields and the cloud's
limits are `pools.checks`, run once every field has validated (`CheckedArgs`), and the
defaults are applied by `pools.resolve`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from nodepools.specs.catalog.accelerators import Accelerator, AdvertisedAccelerators
from nodepools.specs.clusters.targets import ClusterTarget
from nodepools.specs.core.base import PathError
from nodepools.specs.core.labels import POOL_LABEL, Labels, kubelet_label_problem
from nodepools.specs.core.scaling import Scaling, Spot
from nodepools.specs.core.taints import Taint, Taints
from nodepools.specs.pools.checked_args import Check, CheckedArgs
from nodepools.specs.pools.checks import GPU_SPOT_POOL_CHECKS, MACHINE_POOL_CHECKS, POOL_CHECKS
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
)
from nodepools.specs.pools.instance_mix import smallest_of_mix
from nodepools.specs.pools.names import PoolName
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
)
from pydantic import ConfigDict, Field, field_validator, model_validator


class PoolArgsBase(CheckedArgs):
    """Fields every node pool on a managed node-group backend shares."""

    # Its validator is built when first used (this base itself rarely is; GpuSpotPoolArgs
    # only by GpuSpotPool users), not when the module is imported: MachinePool users don't
    # pay for the other two. Errors are the same whenever the build happens.
    model_config = ConfigDict(defer_build=True)
    checks: ClassVar[tuple[tuple[str, Check], ...]] = POOL_CHECKS

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
        "not hold GPU images; ROSA's 300 GiB default does; Karpenter accelerator pools get "
        "the same 100). On EKS at least the AMI's 20 GiB snapshot (EC2 refuses less).",
    )
    ocpus: float | None = flex_size_field("OCPUs")
    memory_gb: float | None = flex_size_field("Memory in GB")
    accelerator: Accelerator | None = Field(
        default=None,
        description="Accelerators per node; default None looks the instance type up in the "
        "catalog. Given for a type the catalog knows, it must agree with it (resource, maker "
        "when given, count: a mix's fewest); what it leaves out (maker, model, memory) comes "
        "from the catalog.",
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


class MachinePoolArgs(PoolArgsBase):
    """Args of `MachinePool`: exactly one of `replicas` or `autoscaling` is required."""

    model_config = ConfigDict(defer_build=False)  # the common case: built on import
    checks: ClassVar[tuple[tuple[str, Check], ...]] = MACHINE_POOL_CHECKS


class GpuSpotPoolArgs(PoolArgsBase):
    """Args of `GpuSpotPool`: a MachinePool with GPU defaults.

    Defaults: autoscaling 0..3 (when `replicas` is not given), spot on, taints
    `<accelerator resource>=true:NoSchedule` and `spot=true:PreferNoSchedule` (given taints
    are added; one with the same key and effect replaces the default), label
    `node-type=gpu`. The instance type must have an accelerator unless one is given.
    """

    checks: ClassVar[tuple[tuple[str, Check], ...]] = GPU_SPOT_POOL_CHECKS

    spot: Spot | None = Field(
        default_factory=Spot,
        description="Spot capacity; default on, uncapped (`{}`). OKE bare-metal shapes "
        "have no preemptible capacity: set `spot: null` there.",
    )
