"""The IAM role of EKS nodes (`NodeRole`): an `aws.iam.Role` and its policy attachments."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pulumi
from nodepools.specs.node_role import NODE_POLICIES, NodeRoleArgs

# pulumi_aws is imported in the functions that make its resources: importing the package
# loads about 270 modules (some 40 ms), which a pool that needs none of them never pays.
if TYPE_CHECKING:
    import pulumi_aws as aws


@dataclass(frozen=True)
class BuiltNodeRole:
    role: aws.iam.Role
    attachments: tuple[aws.iam.RolePolicyAttachment, ...]


def build_node_role(name: str, args: NodeRoleArgs, parent: pulumi.Resource) -> BuiltNodeRole:
    """`<name>-role`, named by prefix (auto-suffixed, so create-before-delete can't collide),
    and one `<name>-<policy>` attachment per managed policy."""
    import pulumi_aws as aws

    child = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(
        f"{name}-role",
        aws.iam.RoleArgs(
            name_prefix=args.role_name_prefix(),
            assume_role_policy=json.dumps(args.trust_policy(), sort_keys=True),
            description="EKS nodes (nodepools NodeRole)",
            tags=dict(args.tags) or None,
        ),
        opts=child,
    )
    attachments = tuple(
        aws.iam.RolePolicyAttachment(
            f"{name}-{NODE_POLICIES[policy]}",
            aws.iam.RolePolicyAttachmentArgs(role=role.name, policy_arn=arn),
            opts=child,
        )
        for policy, arn in args.policy_arns().items()
    )
    return BuiltNodeRole(role=role, attachments=attachments)
