"""The EKS node-group settings a pool may give beyond the ones every cloud shares: its
identity and tags, the node group's own name, remote access, more of its launch template,
its IAM role's details, following the latest AMI release, and forced updates.

Each is one annotated type carrying its description (declared in each args model as
`tags: TagsSetting`); OKE and ROSA refuse what they have no setting for (their
`ClusterCapabilities.refused`), and `pools.eks_checks` has the rules between them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from nodepools.specs.core.aws_tags import AwsTags
from nodepools.specs.core.base import PathError, SpecModel
from nodepools.specs.core.labels import POOL_LABEL
from pydantic import AfterValidator, Field, field_validator

# EKS CreateNodegroup `nodegroupName`: at most 63 characters, starting with a letter or
# digit, then letters, digits, `-` and `_` (pulumi_aws `eks.NodeGroup.node_group_name`).
NODE_GROUP_NAME_PATTERN = r"^[0-9A-Za-z][0-9A-Za-z_-]{0,62}$"
# `ec2:CreateKeyPair` key names are ASCII, at most 255 characters.
KEY_NAME_PATTERN = r"^[\x20-\x7e]{1,255}$"
_SECURITY_GROUP_ID = re.compile(r"^sg-[0-9a-f]{8,17}$")
_POLICY_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(\d{12}|aws):policy/[\w+=,.@/-]+$")
# IAM role paths: `/`, or `/` + segments + `/` (IAM CreateRole `Path`), at most 512.
_ROLE_PATH = re.compile(r"^/([\x21-\x7e]+/)?$")
KUBERNETES_VERSION_PATTERN = r"^1\.\d{2,3}$"


class RemoteAccess(SpecModel):
    """SSH to the nodes through the node group itself (EKS `remoteAccess`)."""

    ec2_ssh_key: str = Field(
        pattern=KEY_NAME_PATTERN,
        description="Name of the EC2 key pair the nodes accept for SSH. Required.",
    )
    source_security_group_ids: list[str] = Field(
        default_factory=list[str],
        description="Security groups allowed to reach port 22 of the nodes; default []: EKS "
        "then opens port 22 to the Internet (0.0.0.0/0), so give at least one.",
    )

    @field_validator("source_security_group_ids")
    @classmethod
    def _group_ids(cls, groups: list[str]) -> list[str]:
        for index, group in enumerate(groups):
            if not _SECURITY_GROUP_ID.fullmatch(group):
                raise PathError(f"[{index}]", f"{group!r} is not a security group id (sg-...)")
        return groups


class LaunchTemplateOptions(SpecModel):
    """More of the pool's launch template, as terraform-aws-eks exposes them."""

    key_name: str | None = Field(
        default=None,
        pattern=KEY_NAME_PATTERN,
        description="EC2 key pair of the nodes (the launch template's `key_name`): SSH for a "
        "pool whose node group has a launch template, where `remote_access` can't be used. "
        "Default None.",
    )
    detailed_monitoring: bool | None = Field(
        default=None,
        description="EC2 detailed (1-minute) CloudWatch monitoring (`monitoring.enabled`); "
        "default None: EC2's basic monitoring.",
    )
    ebs_optimized: bool | None = Field(
        default=None,
        description="Launch EBS-optimized instances (`ebs_optimized`); default None: the "
        "instance type's default (on for every current generation type).",
    )


class NodeRoleOptions(SpecModel):
    """Details of the IAM role a pool creates for its nodes when its cluster names none."""

    path: str = Field(
        default="/",
        max_length=512,
        description="The role's IAM path, e.g. `/eks/`; default `/`.",
    )
    permissions_boundary: str | None = Field(
        default=None,
        description="ARN of the managed policy that bounds the role's permissions; default None.",
    )
    additional_policy_arns: list[str] = Field(
        default_factory=list[str],
        description="More managed policies attached to the role beside the four every node "
        "needs (e.g. `arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicy`); default [].",
    )

    @field_validator("path")
    @classmethod
    def _path(cls, path: str) -> str:
        if not _ROLE_PATH.fullmatch(path):
            raise ValueError(
                f"{path!r} is not an IAM path: `/`, or one starting and ending with `/`"
            )
        return path

    @field_validator("permissions_boundary")
    @classmethod
    def _boundary(cls, arn: str | None) -> str | None:
        if arn is not None and not _POLICY_ARN.fullmatch(arn):
            raise ValueError(f"{arn!r} is not a managed policy ARN (arn:aws:iam::...:policy/...)")
        return arn

    @field_validator("additional_policy_arns")
    @classmethod
    def _policies(cls, arns: list[str]) -> list[str]:
        for index, arn in enumerate(arns):
            if not _POLICY_ARN.fullmatch(arn):
                raise PathError(
                    f"[{index}]",
                    f"{arn!r} is not a managed policy ARN (arn:aws:iam::...:policy/...)",
                )
        if len(set(arns)) != len(arns):
            raise ValueError(f"{arns!r} lists a policy twice")
        return arns


class LatestRelease(SpecModel):
    """Follow the latest EKS-optimized AMI release, read from its public SSM parameter."""

    kubernetes_version: str = Field(
        pattern=KUBERNETES_VERSION_PATTERN,
        description="The cluster's Kubernetes version (`1.33`), which names the parameter "
        "(`/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/"
        "release_version`; Bottlerocket's `/aws/service/bottlerocket/aws-k8s-1.33-nvidia/"
        "x86_64/latest/image_version`). Required.",
    )


def _no_identity_tag(tags: dict[str, str]) -> dict[str, str]:
    if POOL_LABEL in tags:
        raise PathError(
            f'["{POOL_LABEL}"]',
            f"{tags[POOL_LABEL]!r}: the pool sets its own `{POOL_LABEL}` tag to its name "
            "(`identity_label: false` leaves it out); remove it",
        )
    return tags


TagsSetting = Annotated[
    AwsTags,
    AfterValidator(_no_identity_tag),
    Field(
        default_factory=dict[str, str],
        description="AWS tags of the node group, its launch template and the groups the pool "
        "makes (EKS only), over the cluster's `tags`; with the cluster's and the pool's "
        f"`{POOL_LABEL}` tag at most 50. Default {{}}.",
    ),
]
InstanceTagsSetting = Annotated[
    AwsTags,
    Field(
        default_factory=dict[str, str],
        description="AWS tags of the instances, volumes and network interfaces the node "
        "group launches (EKS only: the launch template's `tag_specifications`, so the pool "
        "gets one), e.g. `{Name: gpu-node}`; with the tags EKS propagates from the Auto "
        "Scaling group at most 50. Default {}: EKS's own only.",
    ),
]
IdentityLabelSetting = Annotated[
    bool,
    Field(
        default=True,
        description=f"Put the identity label `{POOL_LABEL}: <pool name>` on the nodes and "
        "the identity tag on the pool's AWS resources, and select the pool by it in the "
        "scheduling info. `false` keeps the labels and tags exactly as given (adopting an "
        "existing node group): the scheduling info then selects by every label of the pool, "
        "so `labels` must be given, and no other pool may carry all of them. Not on a "
        "SharedNodePool (recipes are placed by its identity). Default true.",
    ),
]
GpuNodeLabelSetting = Annotated[
    bool,
    Field(
        default=True,
        description="EKS GPU pools: label the nodes `k8s.amazonaws.com/accelerator: "
        "<vendor>-<model>` (how the cluster autoscaler knows a GPU node whose device plugin "
        "has not advertised its GPUs yet). `false` leaves it out; a value in `labels` wins "
        "over ours. Default true.",
    ),
]
NodeGroupNameSetting = Annotated[
    str | None,
    Field(
        default=None,
        pattern=NODE_GROUP_NAME_PATTERN,
        description="The EKS node group's exact name (1 to 63 letters, digits, `-` and `_`, "
        "starting with a letter or digit), e.g. an existing group's. A change EKS can't make "
        "in place then replaces the group delete-before-create (a name can't be held twice). "
        "EKS only. Default None: `<pool name>-` and a unique suffix, replaced "
        "create-before-delete.",
    ),
]
AmiFamilySetting = Annotated[
    Literal["al2023", "bottlerocket"] | None,
    Field(
        default=None,
        description="What the custom `ami_id` boots: `al2023` (nodeadm reads a NodeConfig) or "
        "`bottlerocket` (it reads TOML settings: cluster name, API server, certificate, "
        "cluster DNS IP, labels and taints). Only with `ami_id`. Default None: "
        "`bottlerocket` when `cluster.ami_type` is a Bottlerocket type, else `al2023`.",
    ),
]
RemoteAccessSetting = Annotated[
    RemoteAccess | None,
    Field(
        default=None,
        description="SSH through the node group's `remote_access` (EKS only). EKS refuses it "
        "beside a launch template, so not with any setting that makes one (`node_config`, "
        "`metadata_options`, `boot_volume`, `ami_id`, `network`, `capacity_reservation`, "
        "`instance_tags`, `launch_template`): give `launch_template.key_name` there. "
        "Default None.",
    ),
]
LaunchTemplateSetting = Annotated[
    LaunchTemplateOptions | None,
    Field(
        default=None,
        description="More launch-template settings: `key_name`, `detailed_monitoring`, "
        "`ebs_optimized` (EKS only; the pool then has a launch template). Default None.",
    ),
]
NodeRoleSetting = Annotated[
    NodeRoleOptions | None,
    Field(
        default=None,
        description="Path, permissions boundary and more policies of the IAM role the pool "
        "creates (EKS only, when `cluster.node_role_arn` is not given: a given role is not "
        "the pool's to change). Default None.",
    ),
]
FollowLatestReleaseSetting = Annotated[
    LatestRelease | None,
    Field(
        default=None,
        description="Pin the node group to the latest EKS-optimized AMI release, read from "
        "its public SSM parameter at each preview and `up` (a new release rolls the nodes "
        "on the next `up`); EKS only, not with `release_version` or `ami_id`. Where the "
        "parameter can't be read (offline plans, mocks) no release is pinned: EKS's latest "
        "at creation. Default None.",
    ),
]
ForceUpdateVersionSetting = Annotated[
    bool | None,
    Field(
        default=None,
        description="Update the nodes even when pod disruption budgets keep pods from "
        "draining (the node group's `force_update_version`; EKS only). Default None: EKS's "
        "(false).",
    ),
]

# The settings above, as `ResolvedPool` fields of the same names.
EKS_SETTINGS = (
    "identity_label",
    "gpu_node_label",
    "node_group_name",
    "ami_family",
    "remote_access",
    "launch_template",
    "node_role",
    "follow_latest_release",
    "force_update_version",
)


def resolved_eks_settings(args: Any) -> dict[str, Any]:
    """The EKS settings of a validated args model, as `ResolvedPool` fields."""
    settings = {name: getattr(args, name) for name in EKS_SETTINGS}
    ami_type = getattr(args.cluster, "ami_type", None)
    settings["ami_family"] = custom_ami_family(args.ami_id, args.ami_family, ami_type)
    settings["tags"] = dict(args.tags)
    settings["instance_tags"] = dict(args.instance_tags)
    return settings


def custom_ami_family(
    ami_id: str | None, ami_family: str | None, ami_type: str | None
) -> str | None:
    """What a custom AMI boots: `ami_family` as given, else a Bottlerocket
    `cluster.ami_type`'s family, else AL2023; None without `ami_id`."""
    if ami_id is None:
        return None
    if ami_family is not None:
        return ami_family
    return "bottlerocket" if (ami_type or "").startswith("BOTTLEROCKET_") else "al2023"


def node_os(ami_id: str | None, ami_family: str | None, ami_type: str | None) -> str:
    """The OS family the pool's nodes boot: `bottlerocket`, `al2`, `windows` or `al2023`
    (EKS's default for every instance type we pick an AMI type for)."""
    custom = custom_ami_family(ami_id, ami_family, ami_type)
    if custom is not None:
        return custom
    for prefix, family in (
        ("BOTTLEROCKET_", "bottlerocket"),
        ("AL2_", "al2"),
        ("WINDOWS_", "windows"),
    ):
        if (ami_type or "").startswith(prefix):
            return family
    return "al2023"


# What only a launch template carries: any of them given, the pool makes one.
LAUNCH_TEMPLATE_SETTINGS = (
    "node_config",
    "metadata_options",
    "boot_volume",
    "ami_id",
    "capacity_reservation",
    "launch_template",
)


def launch_template_reasons(values: Mapping[str, Any]) -> list[str]:
    """The settings among `values` (an args model's fields, or a resolved pool's) that make
    the pool create a launch template, in field order."""
    reasons = [name for name in LAUNCH_TEMPLATE_SETTINGS if values.get(name) is not None]
    if values.get("instance_tags"):
        reasons.append("instance_tags")
    network = values.get("network")
    if network is not None and (network.efa or network.placement_group is not None):
        reasons.append("network")
    return reasons
