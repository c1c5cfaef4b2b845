"""The launch template an EKS pool creates when it sets what only a launch template carries:
`node_config` (a nodeadm NodeConfig in MIME multi-part user data), `metadata_options`,
`boot_volume`, `network` (EFA interfaces, placement group: `network`) and
`capacity_reservation`.

EKS managed node groups merge a launch template's user data with their own bootstrap: on
AL2023 the user data must be MIME multi-part, and nodeadm reads every
`application/node.eks.aws` part as a `node.eks.aws/v1alpha1` NodeConfig merged over the one
EKS writes (cluster name, endpoint, certificate authority, CIDR). Our script part runs
beside it, never in its place.
"""

from __future__ import annotations

from typing import Any, cast

import pulumi
import pulumi_aws as aws
import yaml
from nodepools.backends.eks.network import build_network, pool_tags
from nodepools.specs.catalog.eks_ami import container_volume_device, family_volume_device
from nodepools.specs.pools.eks_settings import LaunchTemplateOptions, launch_template_reasons
from nodepools.specs.pools.node_settings import (
    MIME_BOUNDARY,
    BootVolume,
    MetadataOptions,
    NodeConfig,
)
from nodepools.specs.pools.resolve import ResolvedPool

NODEADM_API = "node.eks.aws/v1alpha1"


def needs_launch_template(pool: ResolvedPool) -> bool:
    """Whether the pool sets anything only a launch template can carry."""
    return bool(launch_template_reasons(vars(pool)))


# The resource types of a launch template's `tag_specifications` that `instance_tags` go
# on (terraform-aws-eks `tag_specifications`' default).
INSTANCE_TAG_RESOURCES = ("instance", "volume", "network-interface")


def tag_specifications(
    pool: ResolvedPool,
) -> list[aws.ec2.LaunchTemplateTagSpecificationArgs] | None:
    """`instance_tags` on every instance, volume and network interface the group launches."""
    if not pool.instance_tags:
        return None
    return [
        aws.ec2.LaunchTemplateTagSpecificationArgs(
            resource_type=resource, tags=dict(pool.instance_tags)
        )
        for resource in INSTANCE_TAG_RESOURCES
    ]


def metadata_options(pool: ResolvedPool) -> aws.ec2.LaunchTemplateMetadataOptionsArgs:
    options = pool.metadata_options or MetadataOptions()
    return aws.ec2.LaunchTemplateMetadataOptionsArgs(
        http_endpoint=options.http_endpoint,
        http_tokens=options.http_tokens,
        http_put_response_hop_limit=options.http_put_response_hop_limit,
        instance_metadata_tags=options.instance_metadata_tags,
        http_protocol_ipv6=options.http_protocol_ipv6,
    )


def capacity_reservation_specification(
    pool: ResolvedPool,
) -> aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs | None:
    """The reservation the nodes launch into: one reservation id, or a resource group."""
    reservation = pool.capacity_reservation
    if reservation is None:
        return None
    return aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
        capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
            capacity_reservation_id=reservation.ids[0] if reservation.ids else None,
            capacity_reservation_resource_group_arn=reservation.resource_group_arn,
        )
    )


def node_config_document(config: NodeConfig) -> dict[str, Any]:
    """The nodeadm NodeConfig of `config`: kubelet fields under `spec.kubelet.config`."""
    kubelet = dict(sorted(config.kubelet.items()))
    if config.max_pods is not None:
        kubelet["maxPods"] = config.max_pods
    spec: dict[str, Any] = {"kubelet": {"config": kubelet}} if kubelet else {}
    if config.local_storage is not None:
        spec["instance"] = {"localStorage": {"strategy": config.local_storage}}
    return {"apiVersion": NODEADM_API, "kind": "NodeConfig", "spec": spec}


def mime_user_data(document: dict[str, Any], script: str | None) -> str:
    """MIME multi-part user data: the NodeConfig part, then the user's script part."""
    parts = [("application/node.eks.aws", "---\n" + yaml.safe_dump(document, sort_keys=False))]
    if script is not None:
        parts.append(('text/x-shellscript; charset="us-ascii"', script))
    lines = ["MIME-Version: 1.0", f'Content-Type: multipart/mixed; boundary="{MIME_BOUNDARY}"', ""]
    for content_type, body in parts:
        lines += [f"--{MIME_BOUNDARY}", f"Content-Type: {content_type}", "", body.rstrip("\n"), ""]
    lines.append(f"--{MIME_BOUNDARY}--")
    return "\n".join(lines) + "\n"


def block_device_mapping(
    pool: ResolvedPool, ami_type: str | None
) -> aws.ec2.LaunchTemplateBlockDeviceMappingArgs | None:
    """The volume that holds containers and images: `boot_volume` in full, or
    `boot_volume_gb` (or the accelerator default) with the volume defaults; None leaves the
    AMI's volumes as they are. It is the root volume /dev/xvda, except on a Bottlerocket
    `ami_type` (or custom `ami_family`) its data volume /dev/xvdb: Bottlerocket's OS volume
    keeps the AMI's size (listing it here would resize the OS, not the room for images)."""
    if pool.boot_volume is None and pool.boot_volume_gb is None:
        return None
    volume = pool.boot_volume or BootVolume()
    # A custom Bottlerocket AMI keeps images on its data volume as the EKS-optimized one.
    device = (
        family_volume_device(pool.ami_family)
        if pool.ami_family is not None
        else container_volume_device(ami_type)
    )
    return aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
        device_name=device,
        ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
            volume_size=pool.boot_volume_gb,
            volume_type=volume.type,
            iops=volume.iops,
            throughput=volume.throughput,
            # The provider types these flags as strings.
            encrypted="true" if volume.encrypted else "false",
            kms_key_id=volume.kms_key_id,
            delete_on_termination="true",
        ),
    )


def build_launch_template(
    name: str,
    pool: ResolvedPool,
    parent: pulumi.Resource,
    user_data: pulumi.Input[str] | None,
    ami_type: str | None,
) -> aws.ec2.LaunchTemplate:
    """`<pool>-launch-template`, auto-named by Pulumi (so a replacement can't collide), with
    the custom AMI (`image_id`) if the pool has one and `user_data` (base64); `ami_type` is
    the node group's, whose family decides which volume the pool's size is for.

    A Capacity Block pool names its instance type here (EKS takes it from the template and
    the node group names none) with the `capacity-block` market type."""
    mapping = block_device_mapping(pool, ami_type)
    network = build_network(name, pool, parent)
    extra = pool.launch_template or LaunchTemplateOptions()
    return aws.ec2.LaunchTemplate(
        f"{name}-launch-template",
        instance_type=pool.instance_type if pool.capacity_block else None,
        instance_market_options=aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(
            market_type="capacity-block"
        )
        if pool.capacity_block
        else None,
        capacity_reservation_specification=capacity_reservation_specification(pool),
        network_interfaces=network.network_interfaces,
        placement=network.placement,
        metadata_options=metadata_options(pool),
        block_device_mappings=[mapping] if mapping is not None else None,
        image_id=pool.ami_id,
        user_data=user_data,
        key_name=extra.key_name,
        monitoring=aws.ec2.LaunchTemplateMonitoringArgs(enabled=extra.detailed_monitoring)
        if extra.detailed_monitoring is not None
        else None,
        # The provider types this flag as a string.
        ebs_optimized=None if extra.ebs_optimized is None else str(extra.ebs_optimized).lower(),
        tag_specifications=tag_specifications(pool),
        tags=pool_tags(pool),
        opts=pulumi.ResourceOptions(parent=parent),
    )


def node_group_launch_template(
    template: aws.ec2.LaunchTemplate,
) -> aws.eks.NodeGroupLaunchTemplateArgs:
    """The node group's reference: by id and latest version (a new version rolls the nodes).

    A plain `pulumi.runtime.Mocks` echoes inputs, so `latest_version` (computed by EC2) is
    None there: then no version, never the string "None"."""
    return aws.eks.NodeGroupLaunchTemplateArgs(
        id=template.id,
        # Typed `str` by the SDK; None stays None (see above).
        version=cast("pulumi.Output[str]", template.latest_version.apply(_version_text)),
    )


def _version_text(version: float | None) -> str | None:
    # None where nothing computed it (a plain Mocks). EKS wants the number as text ("1"); a
    # whole number may arrive as a float (1.0) from the engine's protobuf Struct.
    return None if version is None else str(int(version))
