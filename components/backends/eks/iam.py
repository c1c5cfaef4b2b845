"""The IAM role of EKS nodes (`NodeRole`): an `aws:iam/role:Role` and its policy
attachments."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pulumi
from nodepools.backends.provider_resource import IamRole, IamRolePolicyAttachment
from nodepools.specs.pools.node_role import NODE_POLICIES, NodeRoleArgs


@dataclass(frozen=True)
class BuiltNodeRole:
    role: IamRole
    attachments: tuple[IamRolePolicyAttachment, ...]


def build_node_role(name: str, args: NodeRoleArgs, parent: pulumi.Resource) -> BuiltNodeRole:
    """`<name>-role`, named by prefix (auto-suffixed, so create-before-delete can't collide),
    and one `<name>-<policy>` attachment per managed policy."""
    child = pulumi.ResourceOptions(parent=parent)
    role = IamRole(
        f"{name}-role",
        {
            "namePrefix": args.role_name_prefix(),
            "assumeRolePolicy": json.dumps(args.trust_policy(), sort_keys=True),
            "description": "EKS nodes (nodepools NodeRole)",
            "tags": dict(args.tags) or None,
        },
        opts=child,
    )
    attachments = tuple(
        IamRolePolicyAttachment(
            f"{name}-{NODE_POLICIES[policy]}",
            {"role": role.output("name"), "policyArn": arn},
            opts=child,
        )
        for policy, arn in args.policy_arns().items()
    )
    return BuiltNodeRole(role=role, attachments=attachments)
