"""The per-node and placement settings that `MachinePool`, `GpuSpotPool` and `SharedNodePool`
share (issue 14): each is one annotated type carrying its description, its constraints and
the check of what the pool's cluster can take, declared in each args model as
`node_config: NodeConfigSetting = None`.

Each check reads the fields declared above it from `info.data` (at least `cluster`, and
`boot_volume_gb` for `boot_volume`), so the models declare these fields after those.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from nodepools.specs.clusters.targets import boot_volume_problem
from nodepools.specs.core.base import PathError
from nodepools.specs.pools.capacity_reservation import (
    CapacityReservation,
    check_capacity_reservation,
)
from nodepools.specs.pools.network import PoolNetwork, check_network
from nodepools.specs.pools.node_settings import (
    BootVolume,
    MetadataOptions,
    NodeConfig,
    UpdatePolicy,
)
from pydantic import AfterValidator, Field, ValidationInfo

# EKS-optimized AMI releases: `<Kubernetes version>-<YYYYMMDD>` for Amazon Linux,
# `<Bottlerocket version>-<8-hex commit>` for Bottlerocket (e.g. `1.26.2-5d2b4b5e`).
RELEASE_VERSION_PATTERN = r"^\d+\.\d+\.\d+-[0-9a-f]{8}$"
_AMAZON_LINUX_RELEASE = re.compile(r"^\d+\.\d+\.\d+-\d{8}$")
AMI_ID_PATTERN = r"^ami-([0-9a-f]{8}|[0-9a-f]{17})$"
AVAILABILITY_ZONE_PATTERN = r"^[a-z]{2}(-[a-z0-9]+)+[a-z]$"
SUBNET_ID_PATTERN = r"^subnet-[0-9a-f]{8,17}$"
SECURITY_GROUP_ID_PATTERN = r"^sg-[0-9a-f]{8,17}$"
# The nodeadm NodeConfig of a custom AMI needs these of the cluster (DescribeCluster).
CUSTOM_AMI_CLUSTER_FIELDS = ("endpoint", "certificate_authority", "service_cidr")


def _kind(info: ValidationInfo) -> str | None:
    return getattr(info.data.get("cluster"), "kind", None)


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


# -- checks, each `(value, info) -> value` ---------------------------------------------------


def check_node_config(config: NodeConfig | None, info: ValidationInfo) -> NodeConfig | None:
    kind = _kind(info)
    if config is None:
        return config
    if kind == "rosa":
        raise ValueError(
            "ROSA machine pools can't take `node_config`: OpenShift owns the kubelet "
            "config (set it cluster-wide with a KubeletConfig through the machine config "
            "operator)"
        )
    ami_type = getattr(info.data.get("cluster"), "ami_type", None) if kind == "eks" else None
    if ami_type and ami_type.startswith(("AL2_", "BOTTLEROCKET_")):
        raise ValueError(
            f"`cluster.ami_type` {ami_type!r} can't take `node_config`: it becomes a nodeadm "
            "NodeConfig, which only AL2023 AMIs read (AL2 bootstraps with bootstrap.sh, "
            "Bottlerocket with TOML settings); use an AL2023 `cluster.ami_type` (or none)"
        )
    if kind == "oke" and config.kubelet:
        raise PathError(
            "kubelet",
            f"{config.kubelet!r} can't be used on OKE: its cloud-init passes kubelet flags, "
            "not a KubeletConfiguration; `max_pods` and `user_data` work there",
        )
    return config


def check_metadata_options(
    options: MetadataOptions | None, info: ValidationInfo
) -> MetadataOptions | None:
    kind = _kind(info)
    if options is not None and kind in ("rosa", "oke"):
        where = "ROSA machine pools" if kind == "rosa" else "OKE node pools"
        raise ValueError(
            f"{where} have no launch template to take `metadata_options`; remove it (EKS only)"
        )
    return options


def check_boot_volume(volume: BootVolume | None, info: ValidationInfo) -> BootVolume | None:
    if volume is None:
        return volume
    if info.data.get("boot_volume_gb") is not None and volume.size_gb is not None:
        raise ValueError(
            f"give `boot_volume.size_gb` or `boot_volume_gb`, not both (size_gb "
            f"{volume.size_gb!r}, boot_volume_gb {info.data.get('boot_volume_gb')!r})"
        )
    cluster = info.data.get("cluster")
    if volume.size_gb is not None and (problem := boot_volume_problem(volume.size_gb, cluster)):
        raise PathError("size_gb", problem)
    kind = _kind(info)
    if kind == "oke":
        for field in volume.given_ebs_fields():
            raise PathError(
                field,
                f"{getattr(volume, field)!r} can't be used on OKE: OCI boot volumes are set "
                "by size (and performance per GB on the volume, which node pools don't "
                "expose); `size_gb` and `kms_key_id` work there",
            )
        if not volume.encrypted:
            raise PathError(
                "encrypted", "OCI always encrypts boot volumes; remove `encrypted: false`"
            )
    if kind == "rosa":
        given = [f for f in sorted(volume.model_fields_set) if f != "size_gb"]
        if given:
            raise PathError(
                given[0],
                f"{getattr(volume, given[0])!r} can't be used on ROSA: OCM machine pools "
                "take the root volume size only (`size_gb`)",
            )
    return volume


def check_update(update: UpdatePolicy | None, info: ValidationInfo) -> UpdatePolicy | None:
    if update is not None and _kind(info) == "rosa":
        raise ValueError(
            "ROSA machine pools have no update budget to set: OpenShift's machine config "
            "pool rolls nodes (its `maxUnavailable`, cluster-wide); remove `update`"
        )
    return update


def check_auto_repair(repair: bool | None, info: ValidationInfo) -> bool | None:
    kind = _kind(info)
    if repair is not None and kind in ("rosa", "oke"):
        where = (
            "ROSA machine pools (OpenShift's machine health checks repair nodes)"
            if kind == "rosa"
            else "OKE node pools (no node auto-repair setting in `oci.containerengine.NodePool`)"
        )
        raise ValueError(f"{repair!r} can't be used on {where}; remove `auto_repair`")
    return repair


def check_release_version(release: str | None, info: ValidationInfo) -> str | None:
    kind = _kind(info)
    if release is None:
        return release
    if kind in ("rosa", "oke"):
        where = (
            "ROSA (OpenShift versions its nodes)"
            if kind == "rosa"
            else "OKE (the cluster's `image_id` picks the image)"
        )
        raise ValueError(f"{release!r} can't be used on {where}; `release_version` is EKS only")
    ami_type = getattr(info.data.get("cluster"), "ami_type", None) or ""
    bottlerocket = ami_type.startswith("BOTTLEROCKET")
    if not bottlerocket and not _AMAZON_LINUX_RELEASE.fullmatch(release):
        raise ValueError(
            f"{release!r} is a Bottlerocket release, but the pool runs an Amazon Linux AMI "
            f"type ({ami_type or 'the default for its instance type'}): those are "
            "`<Kubernetes version>-<YYYYMMDD>`, e.g. `1.33.0-20250704`"
        )
    return release


def check_ami_id(ami_id: str | None, info: ValidationInfo) -> str | None:
    if ami_id is None:
        return ami_id
    kind = _kind(info)
    if kind in ("rosa", "oke"):
        where = (
            "ROSA (OpenShift picks the machine image)"
            if kind == "rosa"
            else "OKE (set the image with the cluster's `image_id`)"
        )
        raise ValueError(f"{ami_id!r} can't be used on {where}; `ami_id` is EKS only")
    cluster = info.data.get("cluster")
    ami_type = getattr(cluster, "ami_type", None)
    if ami_type is not None:
        raise ValueError(
            f"{ami_id!r} can't be used with `cluster.ami_type` {ami_type!r}: a custom AMI "
            "makes the node group's AMI type CUSTOM; remove one of them"
        )
    release = info.data.get("release_version")
    if release is not None:
        raise ValueError(
            f"{ami_id!r} can't be used with `release_version` {release!r}: a release pins an "
            "EKS-optimized AMI, not a custom one; remove one of them"
        )
    missing = [
        f"`cluster.{name}`"
        for name in CUSTOM_AMI_CLUSTER_FIELDS
        if getattr(cluster, name, None) is None
    ]
    if cluster is not None and missing:
        raise ValueError(
            f"{ami_id!r} needs {', '.join(missing)}: a custom AMI's nodeadm NodeConfig must "
            "name the cluster's API server endpoint, certificate authority and service CIDR "
            "(EKS merges no bootstrap into a custom AMI's user data)"
        )
    return ami_id


def check_availability_zone(zone: str | None, info: ValidationInfo) -> str | None:
    if zone is None:
        return zone
    kind = _kind(info)
    if kind == "eks":
        raise ValueError(
            f"{zone!r} can't be used on EKS: a node group is placed by subnets; give the "
            "zone's subnet as `network.subnet_id`"
        )
    if kind == "oke":
        raise ValueError(
            f"{zone!r} can't be used on OKE: availability domains come from the cluster's "
            "`placements`"
        )
    if kind == "rosa" and getattr(info.data.get("cluster"), "multi_az", False) is not True:
        raise ValueError(
            f"{zone!r} can only be chosen on a multi-AZ cluster (OCM); this cluster's "
            "`multi_az` is false"
        )
    return zone


def check_subnet_id(subnet: str | None, info: ValidationInfo) -> str | None:
    if subnet is None:
        return subnet
    kind = _kind(info)
    if kind == "oke":
        raise ValueError(
            f"{subnet!r} can't be used on OKE: worker subnets come from the cluster's `placements`"
        )
    if kind == "eks":
        raise ValueError(
            f"{subnet!r}: on EKS give the pool's one subnet as `network.subnet_id` (the node "
            "group's `subnet_ids`); `subnet_id` is ROSA's"
        )
    zone = info.data.get("availability_zone")
    if zone is not None:
        raise ValueError(
            f"give `subnet_id` or `availability_zone`, not both (OCM and rhcs refuse the pair; "
            f"availability_zone {zone!r})"
        )
    return subnet


def check_additional_security_group_ids(
    groups: list[str] | None, info: ValidationInfo
) -> list[str] | None:
    if groups is None:
        return groups
    kind = _kind(info)
    if kind in ("eks", "oke"):
        why = (
            "EKS: security groups in a node group's launch template replace the cluster "
            "security group rather than add to it; put the rules on the cluster's groups"
            if kind == "eks"
            else "OKE: node pools take network security groups, not AWS security groups"
        )
        raise ValueError(f"{groups!r} can't be used on {why} (ROSA only)")
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


def _instance_types(info: ValidationInfo) -> list[str]:
    """The pool's instance types as validated so far: a MachinePool's `instance_types` or
    `instance_type`, a SharedNodePool's `shape`."""
    data = info.data
    types = data.get("instance_types") or [data.get("instance_type") or data.get("shape")]
    return [t for t in types if t]


def check_pool_network(network: PoolNetwork | None, info: ValidationInfo) -> PoolNetwork | None:
    if network is not None:
        check_network(network, info.data.get("cluster"), _instance_types(info))
    return network


def check_pool_capacity_reservation(
    reservation: CapacityReservation | None, info: ValidationInfo
) -> CapacityReservation | None:
    # The reservation rules read `instance_type` and the node counts (a SharedNodePool's
    # fixed `size` among them).
    if reservation is not None:
        types = _instance_types(info)
        fields = dict(info.data)
        if "instance_type" not in fields and types:
            fields["instance_type"] = types[0]
        check_capacity_reservation(reservation, fields)
    return reservation


def resolved_settings(args: Any) -> dict[str, Any]:
    """The settings of a validated args model, as `ResolvedPool` fields."""
    settings = {name: getattr(args, name) for name in SETTINGS}
    groups: list[str] | None = args.additional_security_group_ids
    settings["additional_security_group_ids"] = tuple(groups or ())
    return settings


def single_zone(info: ValidationInfo) -> bool:
    """Whether the pool is pinned to one zone (a subnet or zone of its own): then a multi-AZ
    ROSA cluster's multiple-of-3 rule does not apply to it."""
    return info.data.get("availability_zone") is not None or info.data.get("subnet_id") is not None


# -- the settings as the args models declare them (`= None`) ---------------------------------

NodeConfigSetting = Annotated[
    NodeConfig | None, node_config_field(), AfterValidator(check_node_config)
]
MetadataOptionsSetting = Annotated[
    MetadataOptions | None, metadata_options_field(), AfterValidator(check_metadata_options)
]
BootVolumeSetting = Annotated[
    BootVolume | None, boot_volume_field(), AfterValidator(check_boot_volume)
]
UpdateSetting = Annotated[UpdatePolicy | None, update_field(), AfterValidator(check_update)]
AutoRepairSetting = Annotated[bool | None, auto_repair_field(), AfterValidator(check_auto_repair)]
ReleaseVersionSetting = Annotated[
    str | None, release_version_field(), AfterValidator(check_release_version)
]
AmiIdSetting = Annotated[str | None, ami_id_field(), AfterValidator(check_ami_id)]
AvailabilityZoneSetting = Annotated[
    str | None, availability_zone_field(), AfterValidator(check_availability_zone)
]
SubnetIdSetting = Annotated[str | None, subnet_id_field(), AfterValidator(check_subnet_id)]
SecurityGroupIdsSetting = Annotated[
    list[str] | None,
    additional_security_group_ids_field(),
    AfterValidator(check_additional_security_group_ids),
]
NetworkSetting = Annotated[
    PoolNetwork | None,
    Field(
        default=None,
        description="EFA interfaces, a placement group and the one subnet they need (EKS "
        "only: the pool's launch template, security group and placement group; the instance "
        "type or shape must have EFA); OKE and ROSA: refused. Default None.",
    ),
    AfterValidator(check_pool_network),
]
CapacityReservationSetting = Annotated[
    CapacityReservation | None,
    Field(
        default=None,
        description="Reserved capacity to launch into: an EC2 Capacity Block or On-Demand "
        "Capacity Reservation (EKS: the launch template's reservation target; a Capacity "
        "Block also sets the node group's capacity type `CAPACITY_BLOCK` and can't hold a "
        "fixed-size SharedNodePool), or OCI capacity reservations (OKE: per placement); "
        "ROSA: refused. Not with `spot`. Default None.",
    ),
    AfterValidator(check_pool_capacity_reservation),
]
