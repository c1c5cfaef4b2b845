"""The per-node and placement settings that `MachinePool`, `GpuSpotPool` and `SharedNodePool`
share: each is one annotated type carrying its description and its own constraints,
declared in each args model as `node_config: NodeConfigSetting = None`. What a pool's cloud
takes of them, and how they go with the pool's other fields, is checked by `pools.checks`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from nodepools.specs.core.base import PathError
from nodepools.specs.pools.capacity_reservation import CapacityReservation
from nodepools.specs.pools.network import PoolNetwork
from nodepools.specs.pools.node_settings import (
    BootVolume,
    MetadataOptions,
    NodeConfig,
    UpdatePolicy,
)
from pydantic import AfterValidator, Field

# EKS-optimized AMI releases: `<Kubernetes version>-<YYYYMMDD>` for Amazon Linux,
# `<Bottlerocket version>-<8-hex commit>` for Bottlerocket (e.g. `1.26.2-5d2b4b5e`).
RELEASE_VERSION_PATTERN = r"^\d+\.\d+\.\d+-[0-9a-f]{8}$"
AMI_ID_PATTERN = r"^ami-([0-9a-f]{8}|[0-9a-f]{17})$"
AVAILABILITY_ZONE_PATTERN = r"^[a-z]{2}(-[a-z0-9]+)+[a-z]$"
SUBNET_ID_PATTERN = r"^subnet-[0-9a-f]{8,17}$"
SECURITY_GROUP_ID_PATTERN = r"^sg-[0-9a-f]{8,17}$"


# -- fields ---------------------------------------------------------------------------------


def node_config_field() -> Any:
    return Field(
        description="Kubelet settings (`max_pods`, `kubelet`) and an extra `user_data` script. "
        "EKS: a nodeadm NodeConfig in the pool's launch template; OKE: kubelet flags in its "
        "cloud-init (`max_pods` and `user_data` only); ROSA: refused. Default None.",
    )


def metadata_options_field() -> Any:
    return Field(
        description="Instance metadata options of the pool's EKS launch template; default "
        "None: IMDSv2 required, hop limit 1 whenever the pool creates a launch template. "
        "EKS only.",
    )


def boot_volume_field() -> Any:
    return Field(
        description="Root volume in full (its size in `size_gb` or in `boot_volume_gb`, not "
        "both; a bare-metal shared pool gives `boot_volume_gb`). EKS: "
        "the launch template's block device mapping; OKE: `size_gb` and `kms_key_id` only; "
        "ROSA: `size_gb` only. Default None.",
    )


def update_field() -> Any:
    return Field(
        description="Rolling-update budget. EKS: the node group's `update_config`; OKE: "
        "`node_pool_cycling_details` (cycling enabled, `maximum_unavailable`, surge left at "
        "OKE's 1); ROSA: refused. Default None: the cloud's (EKS 1 node, OKE 0 unavailable).",
    )


def auto_repair_field() -> Any:
    return Field(
        description="EKS node auto repair (`node_repair_config.enabled`); OKE and ROSA: "
        "refused. Default None: EKS's default (off).",
    )


def release_version_field() -> Any:
    return Field(
        pattern=RELEASE_VERSION_PATTERN,
        description="EKS-optimized AMI release to pin (the node group's `release_version`): "
        "`1.33.0-20250704` for Amazon Linux AMI types, `1.26.2-5d2b4b5e` for Bottlerocket "
        "ones; EKS only, not with `ami_id`. Default None: the latest release for the "
        "cluster's version.",
    )


def ami_id_field() -> Any:
    return Field(
        pattern=AMI_ID_PATTERN,
        description="A custom AMI (EKS only): the node group gets `ami_type: CUSTOM` and a "
        "launch template with this `image_id` and a complete nodeadm NodeConfig (the "
        "cluster's name, `endpoint`, `certificate_authority` and `service_cidr`, which the "
        "`EksCluster` must then give; the pool's labels and taints as kubelet flags). The AMI "
        "must run nodeadm (AL2023-based). Not with `cluster.ami_type` or `release_version`. "
        "Default None: an EKS-optimized AMI.",
    )


def availability_zone_field() -> Any:
    return Field(
        pattern=AVAILABILITY_ZONE_PATTERN,
        description="ROSA: a single-AZ machine pool in this zone of a multi-AZ cluster "
        "(OCM `availability_zones: [zone]`; its counts then need not be multiples of 3). "
        "Not with `subnet_id`; refused on EKS and OKE. Default None: every zone of the cluster.",
    )


def subnet_id_field() -> Any:
    return Field(
        pattern=SUBNET_ID_PATTERN,
        description="ROSA: a single-subnet machine pool (OCM `subnets: [subnet]`, a BYO-VPC "
        "cluster's subnet; its counts then need not be multiples of 3). Not with "
        "`availability_zone`. Refused on EKS (give `network.subnet_id` there) and OKE (its "
        "`placements`). Default None: the cluster's subnets.",
    )


def additional_security_group_ids_field() -> Any:
    return Field(
        min_length=1,
        description="ROSA: extra security groups for the pool's machines (OCM "
        "`aws.additional_security_group_ids`; immutable: a change replaces the pool). Refused "
        "on EKS (a launch template's groups replace the cluster security group instead of "
        "adding to it) and OKE. Default None.",
    )


def _unique_security_groups(groups: list[str] | None) -> list[str] | None:
    if groups is None:
        return groups
    if len(set(groups)) != len(groups):
        raise ValueError(f"{groups!r} lists a group twice")
    for index, group in enumerate(groups):
        if not re.fullmatch(SECURITY_GROUP_ID_PATTERN, group):
            raise PathError(f"[{index}]", f"{group!r} is not a security group id (sg-...)")
    return groups


SETTINGS = (
    "node_config",
    "metadata_options",
    "boot_volume",
    "update",
    "auto_repair",
    "release_version",
    "ami_id",
    "availability_zone",
    "subnet_id",
)


def resolved_settings(args: Any) -> dict[str, Any]:
    """The settings of a validated args model, as `ResolvedPool` fields."""
    settings = {name: getattr(args, name) for name in SETTINGS}
    groups: list[str] | None = args.additional_security_group_ids
    settings["additional_security_group_ids"] = tuple(groups or ())
    return settings


# -- the settings as the args models declare them (`= None`) ---------------------------------

NodeConfigSetting = Annotated[NodeConfig | None, node_config_field()]
MetadataOptionsSetting = Annotated[MetadataOptions | None, metadata_options_field()]
BootVolumeSetting = Annotated[BootVolume | None, boot_volume_field()]
UpdateSetting = Annotated[UpdatePolicy | None, update_field()]
AutoRepairSetting = Annotated[bool | None, auto_repair_field()]
ReleaseVersionSetting = Annotated[str | None, release_version_field()]
AmiIdSetting = Annotated[str | None, ami_id_field()]
AvailabilityZoneSetting = Annotated[str | None, availability_zone_field()]
SubnetIdSetting = Annotated[str | None, subnet_id_field()]
SecurityGroupIdsSetting = Annotated[
    list[str] | None,
    additional_security_group_ids_field(),
    AfterValidator(_unique_security_groups),
]
NetworkSetting = Annotated[
    PoolNetwork | None,
    Field(
        default=None,
        description="EFA interfaces, a placement group and the one subnet they need (EKS "
        "only: the pool's launch template, security group and placement group; the instance "
        "type or shape must have EFA); OKE and ROSA: refused. Default None.",
    ),
]
CapacityReservationSetting = Annotated[
    CapacityReservation | None,
    Field(
        default=None,
        description="Reserved capacity to launch into: an EC2 Capacity Block or On-Demand "
        "Capacity Reservation (EKS: the launch template's reservation target; a Capacity "
        "Block also sets the node group's capacity type `CAPACITY_BLOCK`; a reservation by id "
        "needs one subnet, as it serves one zone), or OCI capacity reservations (OKE: per placement); "
        "ROSA: refused. Not with `spot`. Default None.",
    ),
]


def flex_size_field(what: str) -> Any:
    """`ocpus` / `memory_gb`: required on flexible OCI `.Flex` shapes, refused otherwise."""
    return Field(
        default=None,
        gt=0,
        description=f"{what} per node; required for flexible OCI `.Flex` shapes, not allowed "
        "otherwise. Default None.",
    )
