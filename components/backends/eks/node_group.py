"""EKS managed node groups (pulumi_aws), with cluster-autoscaler scale-from-zero tags (which
`nodepools.specs.pools.eks_tags` derives and counts)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

import pulumi
import pulumi_aws as aws
from nodepools.backends import BuiltPool
from nodepools.backends.eks.custom_ami import launch_template_user_data
from nodepools.backends.eks.iam import build_pool_node_role
from nodepools.backends.eks.launch_template import (
    build_launch_template,
    needs_launch_template,
    node_group_launch_template,
)
from nodepools.backends.eks.network import pool_subnet_ids, pool_tags
from nodepools.backends.eks.scaling import (
    DESIRED_SIZE_PATH,
    DesiredSize,
    GroupIdentity,
    desired_size,
)
from nodepools.specs.catalog.eks_ami import default_ami_type, release_parameter
from nodepools.specs.pools.capacity_reservation import capacity_block_update_note
from nodepools.specs.pools.eks_tags import (
    CA_TEMPLATE,
    autoscaler_node_template_tags,
    node_labels,
)
from nodepools.specs.pools.node_role import NodeRoleArgs
from nodepools.specs.pools.resolve import ResolvedPool

EKS_EFFECTS = {
    "NoSchedule": "NO_SCHEDULE",
    "PreferNoSchedule": "PREFER_NO_SCHEDULE",
    "NoExecute": "NO_EXECUTE",
}

# EKS caps a node group name at 63 characters; a name prefix gets a 26-character unique
# suffix from the provider (terraform-plugin-sdk `id.UniqueIDSuffixLength`).
NODE_GROUP_NAME_MAX = 63
NAME_PREFIX_SUFFIX_LENGTH = 26


def node_group_name_prefix(pool_name: str) -> str:
    """`<pool>-`, cut so that the generated name fits EKS's 63 characters."""
    room = NODE_GROUP_NAME_MAX - NAME_PREFIX_SUFFIX_LENGTH - 1
    return f"{pool_name[:room].rstrip('-_')}-"


def ami_type_for(pool: ResolvedPool) -> str | None:
    """The cluster's `ami_type` (checked against the pool's architecture by the spec), else
    the one the pool's architecture and accelerator call for (`specs.eks_ami`)."""
    if pool.ami_id is not None:
        return "CUSTOM"
    if pool.cluster.ami_type:
        return pool.cluster.ami_type
    resource = pool.accelerator.resource if pool.accelerator is not None else None
    return default_ami_type(pool.instance_type, resource)


def latest_release_version(pool: ResolvedPool, ami_type: str | None) -> pulumi.Output[str] | None:
    """`follow_latest_release`: the release in the AMI type's public SSM parameter, read at
    each preview and `up` (an invoke, not a resource). Where nothing answers the read
    (mocks, the offline planner) the value is None and no release is pinned."""
    latest = pool.follow_latest_release
    if latest is None:
        return None
    name = release_parameter(ami_type, latest.kubernetes_version)
    # The provider marks parameter values secret; a public release number is not one.
    return pulumi.Output.unsecret(aws.ssm.get_parameter_output(name=name).value)


def capacity_type(pool: ResolvedPool) -> str:
    """The node group's capacity type: `CAPACITY_BLOCK`, `SPOT` or `ON_DEMAND` (which an
    On-Demand Capacity Reservation is, targeted by the launch template)."""
    if pool.capacity_block:
        return "CAPACITY_BLOCK"
    return "SPOT" if pool.spot is not None else "ON_DEMAND"


def asg_tag_names(name: str, tags: dict[str, str]) -> dict[str, str]:
    """Child names of the tag resources: `<pool>-asg-tag-label-team`, no `/` in them.

    A key that would read the same as another's after the slashes go (`a/b` and `a-b`) gets
    a short digest of itself, so every name stays unique and stable.
    """
    readable = {key: f"{name}-asg-tag-{_tag_suffix(key).replace('/', '-')}" for key in tags}
    taken = Counter(readable.values())
    return {
        key: child if taken[child] == 1 else f"{child}-{_digest(key)}"
        for key, child in readable.items()
    }


def _tag_suffix(key: str) -> str:
    return key.removeprefix(CA_TEMPLATE + "/")


def _legacy_asg_tag_name(name: str, key: str) -> str:
    return f"{name}-asg-tag-{_tag_suffix(key)}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def first_asg_name(resources: Sequence[aws.eks.outputs.NodeGroupResource] | None) -> str | None:
    """The node group's Auto Scaling group, or None while nobody has reported it.

    EKS reports it once the group exists. A plain `pulumi.runtime.Mocks` echoes inputs, so
    `resources` is absent there (in preview it is unknown and this never runs): the tags
    then name no group rather than crash the user's test.
    """
    for resource in resources or ():
        for group in resource.autoscaling_groups or ():
            if group.name:
                return group.name
    return None


def build_pool(name: str, pool: ResolvedPool, parent: pulumi.Resource) -> BuiltPool:
    """One managed node group (plus scale-from-zero tags when autoscaled).

    The group is named by `node_group_name_prefix` (`<pool>-` and a unique suffix) unless
    the pool gives `node_group_name` (an adopted group's), rather than a fixed name: instance types, AMI type, capacity type, disk size, subnets and
    role can only change by replacing the group, and Pulumi replaces create-before-delete,
    so a fixed name fails with `ResourceInUseException: NodeGroup already exists`. The
    new group comes up before the old one drains, which delete-before-replace would not
    give. The pool's identity is the `nodepools.dev/pool` label (and tag), which workloads
    and quotas select on; the generated name is nobody's key. Moving from an earlier
    version that set `node_group_name` replaces each group once.
    """
    cluster = pool.cluster
    prefix = node_group_name_prefix(pool.pool_name)
    identity = GroupIdentity(
        prefix=prefix,
        exact_name=pool.node_group_name,
        tag_value=pool.pool_name if pool.identity_label else None,
    )
    # EKS requires max_size >= 1, even for a pool pinned at zero nodes.
    max_size = max(pool.max_nodes, 1)
    desired = (
        desired_size(cluster.cluster_name, identity, pool.min_nodes, max_size)
        if pool.autoscaled
        else DesiredSize(pool.min_nodes, follow_autoscaler=False)
    )
    ami_type = ami_type_for(pool)
    if note := capacity_block_update_note(pool.capacity_reservation, pool.min_nodes):
        pulumi.log.warn(note, resource=parent)
    # With a launch template the volume for images (the root volume; Bottlerocket's data
    # volume) is its block device mapping: EKS refuses `disk_size` beside a launch template.
    template = (
        build_launch_template(
            name, pool, parent, launch_template_user_data(pool, node_labels(pool)), ami_type
        )
        if needs_launch_template(pool)
        else None
    )
    role_arn = cluster.node_role_arn
    node_role = None
    if role_arn is None:
        # The pool's own role, registered as a `NodeRole` component `<pool>-node-role`.
        node_role = build_pool_node_role(
            f"{name}-node-role",
            NodeRoleArgs(
                name_prefix=pool.pool_name,
                partition=cluster.partition,
                tags=cluster.tags,
                **(pool.node_role.model_dump(exclude_unset=True) if pool.node_role else {}),
            ),
            parent,
        )
        role_arn = node_role.role_arn
    node_group = aws.eks.NodeGroup(
        f"{name}-node-group",
        cluster_name=cluster.cluster_name,
        node_group_name=pool.node_group_name,
        node_group_name_prefix=None if pool.node_group_name else prefix,
        node_role_arn=role_arn,
        subnet_ids=pool_subnet_ids(pool),
        # A Capacity Block's type is in the launch template; EKS refuses it in both.
        instance_types=None
        if pool.capacity_block
        else list(pool.instance_types) or [pool.instance_type],
        capacity_type=capacity_type(pool),
        scaling_config=aws.eks.NodeGroupScalingConfigArgs(
            min_size=pool.min_nodes, max_size=max_size, desired_size=desired.value
        ),
        labels=node_labels(pool),
        taints=[
            aws.eks.NodeGroupTaintArgs(key=t.key, value=t.value, effect=EKS_EFFECTS[t.effect])
            for t in pool.taints
        ],
        disk_size=pool.boot_volume_gb if template is None else None,
        launch_template=node_group_launch_template(template) if template else None,
        update_config=aws.eks.NodeGroupUpdateConfigArgs(
            max_unavailable=pool.update.max_unavailable,
            max_unavailable_percentage=pool.update.max_unavailable_percent,
        )
        if pool.update
        else None,
        node_repair_config=aws.eks.NodeGroupNodeRepairConfigArgs(enabled=pool.auto_repair)
        if pool.auto_repair is not None
        else None,
        ami_type=ami_type,
        release_version=pool.release_version or latest_release_version(pool, ami_type),
        remote_access=aws.eks.NodeGroupRemoteAccessArgs(
            ec2_ssh_key=pool.remote_access.ec2_ssh_key,
            source_security_group_ids=pool.remote_access.source_security_group_ids or None,
        )
        if pool.remote_access
        else None,
        force_update_version=pool.force_update_version,
        tags=pool_tags(pool),
        # The autoscaler owns the desired size once the group exists; without this
        # every `pulumi up` would reset it to the minimum. Unless new bounds exclude the
        # live size: then it is sent, clamped, or EKS refuses the update (`scaling`).
        # A created role's policies are attached before nodes try to join (and detached
        # only after the group is gone).
        # A fixed `node_group_name` can't be held by two groups: a replacement then
        # deletes the old group first (create-before-delete would fail in EKS).
        opts=pulumi.ResourceOptions(
            parent=parent,
            ignore_changes=[DESIRED_SIZE_PATH] if desired.follow_autoscaler else None,
            depends_on=[node_role.component] if node_role else None,
            delete_before_replace=True if pool.node_group_name else None,
        ),
    )
    if pool.autoscaled:
        # None only where no Auto Scaling group was reported (plain mocks, see first_asg_name).
        asg_name = node_group.resources.apply(first_asg_name)
        tags = autoscaler_node_template_tags(pool)
        for key, child_name in asg_tag_names(name, tags).items():
            # A template hint for the autoscaler, not a tag for the instances.
            aws.autoscaling.Tag(
                child_name,
                autoscaling_group_name=asg_name,
                tag=aws.autoscaling.TagTagArgs(key=key, value=tags[key], propagate_at_launch=False),
                # Named `<pool>-asg-tag-label/<key>` before names lost their slashes.
                opts=pulumi.ResourceOptions(
                    parent=parent, aliases=[pulumi.Alias(name=_legacy_asg_tag_name(name, key))]
                ),
            )
    return BuiltPool(
        pool_id=node_group.id,
        resource=node_group,
        node_role_arn=pulumi.Output.from_input(role_arn),
        node_role=node_role.component if node_role else None,
    )
