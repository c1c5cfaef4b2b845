"""The rules of the EKS settings (`pools.eks_settings`) and of the node OS a pool boots
(AL2023's nodeadm or Bottlerocket's TOML settings): between fields, and AWS's limits.

Each rule is `(value, cluster, fields) -> list[Issue]`, as in `pools.checks`; OKE and ROSA
refuse the EKS-only fields through their `ClusterCapabilities.refused`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nodepools.specs.catalog.eks_ami import ami_family, has_release_parameter
from nodepools.specs.core.aws_tags import MAX_TAGS
from nodepools.specs.core.base import Issue
from nodepools.specs.core.labels import POOL_LABEL
from nodepools.specs.pools.checked_args import Check
from nodepools.specs.pools.eks_settings import launch_template_reasons, node_os
from nodepools.specs.pools.refusals import refusals

Fields = Mapping[str, Any]

# Tags EKS puts on a node group's Auto Scaling group, which it propagates to the instances
# it launches (as `eks_tags.EKS_ASG_TAGS` counts them there).
EKS_INSTANCE_TAGS = 5


def pool_node_os(cluster: Any, fields: Fields) -> str:
    """The OS family the pool's nodes boot (`eks_settings.node_os`)."""
    return node_os(
        fields.get("ami_id"), fields.get("ami_family"), getattr(cluster, "ami_type", None)
    )


def check_identity_label(given: bool, cluster: Any, fields: Fields) -> list[Issue]:
    """`false` leaves the pool selected by its labels: it needs some of its own."""
    if given or "labels" not in fields:
        return []
    if not fields["labels"]:
        return [
            Issue(
                "identity_label",
                "false leaves the pool no label of its own to select its nodes by (the "
                "scheduling info selects every label the pool gives its nodes): give `labels` "
                "that only this pool's nodes carry, e.g. the existing node group's, or keep "
                "the identity label",
            )
        ]
    return []


def check_shared_identity_label(given: bool, cluster: Any, fields: Fields) -> list[Issue]:
    if given:
        return []
    return [
        Issue(
            "identity_label",
            "false can't be used on a SharedNodePool: recipes are placed on it by its identity "
            f"label `{POOL_LABEL}`; use a MachinePool to keep a node group's labels exactly",
        )
    ]


def check_gpu_node_label(given: bool, cluster: Any, fields: Fields) -> list[Issue]:
    return [] if given else refusals("gpu_node_label", given, cluster)


def check_tags(tags: dict[str, str], cluster: Any, fields: Fields) -> list[Issue]:
    if not tags:
        return []
    if issues := refusals("tags", tags, cluster):
        return issues
    cluster_tags: dict[str, str] = getattr(cluster, "tags", None) or {}
    identity = 1 if fields.get("identity_label", True) else 0
    total = len({**cluster_tags, **tags}) + identity
    if total <= MAX_TAGS:
        return []
    return [
        Issue(
            "tags",
            f"{len(tags)} tags, with the cluster's {len(cluster_tags)}"
            + (f" and the pool's `{POOL_LABEL}`" if identity else "")
            + f", put {total} on the node group and launch template, where AWS allows "
            f"{MAX_TAGS}: remove {total - MAX_TAGS}",
        )
    ]


def check_instance_tags(tags: dict[str, str], cluster: Any, fields: Fields) -> list[Issue]:
    if not tags:
        return []
    if issues := refusals("instance_tags", tags, cluster):
        return issues
    room = MAX_TAGS - EKS_INSTANCE_TAGS
    if len(tags) <= room:
        return []
    return [
        Issue(
            "instance_tags",
            f"{len(tags)} tags, and the instances also get the {EKS_INSTANCE_TAGS} EKS "
            f"propagates from the node group's Auto Scaling group, where AWS allows "
            f"{MAX_TAGS}: give at most {room}",
        )
    ]


def check_node_group_name(name: str | None, cluster: Any, fields: Fields) -> list[Issue]:
    return refusals("node_group_name", name, cluster)


def check_ami_family(family: str | None, cluster: Any, fields: Fields) -> list[Issue]:
    if family is None:
        return []
    if issues := refusals("ami_family", family, cluster):
        return issues
    if fields.get("ami_id") is None and "ami_id" in fields:
        return [
            Issue(
                "ami_family",
                f"{family!r} says what a custom AMI boots: give `ami_id`, or remove it (an "
                "EKS-optimized AMI's family is `cluster.ami_type`'s)",
            )
        ]
    ami_type = getattr(cluster, "ami_type", None)
    declared = ami_family(ami_type) if ami_type else None
    if declared is not None and declared != family:
        return [
            Issue(
                "ami_family",
                f"{family!r} contradicts `cluster.ami_type` {ami_type!r} ({declared}); remove "
                "one of them",
            )
        ]
    return []


def check_remote_access(access: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if access is None:
        return []
    if issues := refusals("remote_access", access, cluster):
        return issues
    if reasons := launch_template_reasons(fields):
        return [
            Issue(
                "remote_access",
                f"{access.model_dump()!r} can't be used with a launch template, which "
                f"{', '.join(f'`{r}`' for r in reasons)} give(s) the pool (EKS refuses "
                "`remoteAccess` beside one): give the key pair as `launch_template.key_name` "
                "and allow SSH in the cluster's security group instead",
            )
        ]
    return []


def check_launch_template(options: Any, cluster: Any, fields: Fields) -> list[Issue]:
    return refusals("launch_template", options, cluster)


def check_node_role(options: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if options is None:
        return []
    if issues := refusals("node_role", options, cluster):
        return issues
    if getattr(cluster, "node_role_arn", None) is not None:
        return [
            Issue(
                "node_role",
                f"{options.model_dump(exclude_unset=True)!r} can't be used: "
                "`cluster.node_role_arn` names the nodes' role, which the pool does not "
                "create; give the path, boundary and policies where that role is made (a "
                "`NodeRole` takes them), or remove `cluster.node_role_arn`",
            )
        ]
    return []


def check_follow_latest_release(latest: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if latest is None:
        return []
    if issues := refusals("follow_latest_release", latest, cluster):
        return issues
    ami_type = getattr(cluster, "ami_type", None)
    if not has_release_parameter(ami_type):
        return [
            Issue(
                "follow_latest_release",
                f"{latest.model_dump()!r} can't be used with `cluster.ami_type` {ami_type!r}: "
                "EKS publishes no release of it to follow; remove one of them",
            )
        ]
    return [
        Issue(
            "follow_latest_release",
            f"{latest.model_dump()!r} can't be used with `{other}` {fields[other]!r}: "
            + (
                "a pinned release is never followed; remove one of them"
                if other == "release_version"
                else "a custom AMI has no EKS release to follow; remove one of them"
            ),
        )
        for other in ("release_version", "ami_id")
        if fields.get(other) is not None
    ]


def check_force_update_version(force: bool | None, cluster: Any, fields: Fields) -> list[Issue]:
    return refusals("force_update_version", force, cluster)


def check_node_os(config: Any, cluster: Any, fields: Fields) -> list[Issue]:
    """`node_config` as the nodes' OS reads it: nodeadm (AL2023) or TOML (Bottlerocket)."""
    if config is None or refusals("node_config", config, cluster):
        return []  # `checks.check_node_config` reports the refusal
    family = pool_node_os(cluster, fields)
    issues: list[Issue] = []
    if family == "bottlerocket":
        for part, instead in (
            ("kubelet", "its `kubernetes` settings in `node_config.bottlerocket`"),
            ("user_data", "a bootstrap container in `node_config.bottlerocket` (no shell runs there)"),
            ("local_storage", "`bootstrap-commands` running `apiclient ephemeral-storage init` in `node_config.bottlerocket`"),
        ):  # fmt: skip
            if part in config.model_fields_set:
                issues.append(
                    Issue(
                        f"node_config.{part}",
                        f"{getattr(config, part)!r} can't be used on Bottlerocket nodes, which "
                        f"read TOML settings, not a nodeadm NodeConfig; use {instead}",
                    )
                )
    elif config.bottlerocket:
        issues.append(
            Issue(
                "node_config.bottlerocket",
                f"{config.bottlerocket!r} can't be used: the pool's nodes boot {family}, not "
                "Bottlerocket; set a Bottlerocket `cluster.ami_type`, or `ami_family: "
                "bottlerocket` with a custom `ami_id`",
            )
        )
    return issues


EKS_SETTINGS_CHECKS: tuple[tuple[str, Check], ...] = (
    ("node_config", check_node_os),
    ("ami_family", check_ami_family),
    ("gpu_node_label", check_gpu_node_label),
    ("tags", check_tags),
    ("instance_tags", check_instance_tags),
    ("node_group_name", check_node_group_name),
    ("remote_access", check_remote_access),
    ("launch_template", check_launch_template),
    ("node_role", check_node_role),
    ("follow_latest_release", check_follow_latest_release),
    ("force_update_version", check_force_update_version),
)
