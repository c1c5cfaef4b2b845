"""The IAM role of EKS nodes: an `aws:iam/role:Role` and its policy attachments, made for
the `NodeRole` component and for a pool whose cluster names no role."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
from nodepools.specs.pools.node_role import NODE_POLICIES, NodeRoleArgs

# The type of the `NodeRole` component (nodepools.pools.node_role), which a pool's own role
# is registered as too: the same URNs whether the role was made by a pool or by a user.
NODE_ROLE_TYPE = "nodepools:index:NodeRole"


@dataclass(frozen=True)
class BuiltNodeRole:
    role: aws.iam.Role
    attachments: tuple[aws.iam.RolePolicyAttachment, ...]


@dataclass(frozen=True)
class PoolNodeRole:
    """A pool's own node role: the component its resources are children of, and its ARN."""

    component: pulumi.ComponentResource
    role_arn: pulumi.Output[str]


def build_node_role(name: str, args: NodeRoleArgs, parent: pulumi.Resource) -> BuiltNodeRole:
    """`<name>-role`, named by prefix (auto-suffixed, so create-before-delete can't collide),
    and one `<name>-<policy>` attachment per managed policy."""
    child = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(
        f"{name}-role",
        name_prefix=args.role_name_prefix(),
        assume_role_policy=json.dumps(args.trust_policy(), sort_keys=True),
        description="EKS nodes (nodepools NodeRole)",
        path=args.path if args.path != "/" else None,
        permissions_boundary=args.permissions_boundary,
        tags=dict(args.tags) or None,
        opts=child,
    )
    attachments = tuple(
        aws.iam.RolePolicyAttachment(
            f"{name}-{NODE_POLICIES[policy]}", role=role.name, policy_arn=arn, opts=child
        )
        for policy, arn in args.policy_arns().items()
    ) + tuple(
        aws.iam.RolePolicyAttachment(child_name, role=role.name, policy_arn=arn, opts=child)
        for arn, child_name in additional_policy_names(name, args.additional_policy_arns).items()
    )
    return BuiltNodeRole(role=role, attachments=attachments)


def additional_policy_names(name: str, arns: list[str]) -> dict[str, str]:
    """Child names of the additional attachments: `<name>-policy-<policy name>`, with a
    short digest of the ARN where two policies share a name (another path or account)."""
    readable = {arn: f"{name}-policy-{arn.rsplit('/', 1)[-1]}" for arn in arns}
    taken = Counter(readable.values())
    return {
        arn: child
        if taken[child] == 1
        else f"{child}-{hashlib.sha256(arn.encode()).hexdigest()[:8]}"
        for arn, child in readable.items()
    }


def build_pool_node_role(name: str, args: NodeRoleArgs, parent: pulumi.Resource) -> PoolNodeRole:
    """The role of a pool whose cluster names none: a `NodeRole` component `name` (type,
    inputs, children and outputs as the component registers them), child of `parent`."""
    component = pulumi.ComponentResource(
        NODE_ROLE_TYPE, name, {"spec": args.summary()}, pulumi.ResourceOptions(parent=parent)
    )
    built = build_node_role(name, args, component)
    component.register_outputs({"role_arn": built.role.arn, "role_name": built.role.name})
    return PoolNodeRole(component=component, role_arn=built.role.arn)
