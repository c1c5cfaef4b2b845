"""Karpenter backend: a resolved pool -> EC2NodeClass and NodePool manifests -> custom resources.

Rendering (`render_manifests`) and checking (`manifest_issues`) are pure functions of the
resolved pool, usable without the engine (tests, the validator, `plan`); `build_pool`
registers the manifests as `pulumi_kubernetes.apiextensions.CustomResource` objects
(imported only then).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nodepools.backends import BuiltPool
from nodepools.json_values import is_dict, is_sequence
from nodepools.specs.catalog.eks_ami import (
    BOTTLEROCKET_DATA_DEVICE,
    BOTTLEROCKET_OS_DEVICE,
    ROOT_DEVICE,
    WINDOWS_ROOT_DEVICE,
)
from nodepools.specs.core.base import Issue, is_output
from nodepools.specs.core.taints import Taint
from nodepools.specs.karpenter.node_class import NodeClassArgs, ami_family
from nodepools.specs.karpenter.resolve import ResolvedKarpenterPool

NODE_POOL_API_VERSION = "karpenter.sh/v1"
NODE_CLASS_API_VERSION = "karpenter.k8s.aws/v1"
NODE_CLASS_GROUP = "karpenter.k8s.aws"
NODE_CLASS_KIND = "EC2NodeClass"

# Manifests by role; the role is also the suffix of the child resource's name.
NODE_CLASS = "node_class"
NODE_POOL = "node_pool"

# Stands in for a value only known after another resource is created (e.g. a role made
# in the same program) when the manifests are validated before anything is registered.
UNKNOWN_PLACEHOLDER = "unknown-until-applied"

# Bottlerocket keeps the OS on a small volume and containers and images on a second one;
# Karpenter's default OS volume is 4 GiB, kept when the data volume is resized.
_BOTTLEROCKET_OS_VOLUME = "4Gi"


def _taint(taint: Taint) -> dict[str, str]:
    # Karpenter rejects `value: ""`, so a taint without a value has no `value` key at all.
    rendered = {"key": taint.key, "effect": taint.effect}
    if taint.value is not None:
        rendered["value"] = taint.value
    return rendered


def _block_devices(node_class: NodeClassArgs) -> list[dict[str, Any]]:
    volume = {
        "deleteOnTermination": True,
        "encrypted": True,
        "volumeSize": f"{node_class.boot_volume_gb}Gi",
        "volumeType": "gp3",
    }
    family = (
        node_class.ami_family.lower()
        if node_class.ami_selector_terms is not None and node_class.ami_family
        else ami_family(node_class.ami_alias)
    )
    if family == "bottlerocket":
        return [
            {
                "deviceName": BOTTLEROCKET_OS_DEVICE,
                "ebs": {**volume, "volumeSize": _BOTTLEROCKET_OS_VOLUME},
            },
            {"deviceName": BOTTLEROCKET_DATA_DEVICE, "ebs": volume},
        ]
    device = WINDOWS_ROOT_DEVICE if family.startswith("windows") else ROOT_DEVICE
    return [{"deviceName": device, "ebs": volume, "rootVolume": True}]


def render_node_class(pool: ResolvedKarpenterPool) -> dict[str, Any]:
    """The `karpenter.k8s.aws/v1` EC2NodeClass of `pool` (which must have `node_class`)."""
    node_class = pool.node_class
    assert node_class is not None
    spec: dict[str, Any] = {}
    if node_class.ami_family is not None:
        spec["amiFamily"] = node_class.ami_family
    if node_class.ami_selector_terms is not None:
        spec["amiSelectorTerms"] = [t.to_manifest() for t in node_class.ami_selector_terms]
    else:
        spec["amiSelectorTerms"] = [{"alias": node_class.ami_alias}]
    if node_class.block_device_mappings is not None:
        spec["blockDeviceMappings"] = [m.to_manifest() for m in node_class.block_device_mappings]
    elif node_class.boot_volume_gb is not None:
        spec["blockDeviceMappings"] = _block_devices(node_class)
    if node_class.capacity_reservation_selector_terms is not None:
        spec["capacityReservationSelectorTerms"] = [
            t.to_manifest() for t in node_class.capacity_reservation_selector_terms
        ]
    if node_class.detailed_monitoring is not None:
        spec["detailedMonitoring"] = node_class.detailed_monitoring
    if node_class.instance_profile is not None:
        spec["instanceProfile"] = node_class.instance_profile
    if node_class.instance_store_policy is not None:
        spec["instanceStorePolicy"] = node_class.instance_store_policy
    if node_class.metadata_options is not None:
        spec["metadataOptions"] = node_class.metadata_options.to_manifest()
    if node_class.network_interfaces is not None:
        spec["networkInterfaces"] = [i.to_manifest() for i in node_class.network_interfaces]
    if node_class.placement_group is not None:
        spec["placementGroupSelector"] = node_class.placement_group.to_manifest()
    if node_class.role is not None:
        spec["role"] = node_class.role
    spec["securityGroupSelectorTerms"] = [
        {"tags": dict(term)} for term in node_class.security_group_selector_tags
    ]
    spec["subnetSelectorTerms"] = [{"tags": dict(term)} for term in node_class.subnet_selector_tags]
    if node_class.tags:
        spec["tags"] = dict(node_class.tags)
    if node_class.user_data is not None:
        spec["userData"] = node_class.user_data
    return {
        "apiVersion": NODE_CLASS_API_VERSION,
        "kind": NODE_CLASS_KIND,
        "metadata": _metadata(pool.node_class_name, node_class.annotations),
        "spec": spec,
    }


def _metadata(name: str, annotations: dict[str, str]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return metadata


def render_node_pool(pool: ResolvedKarpenterPool) -> dict[str, Any]:
    """The `karpenter.sh/v1` NodePool of `pool`."""
    template_spec: dict[str, Any] = {}
    if pool.expire_after is not None:
        template_spec["expireAfter"] = pool.expire_after
    template_spec["nodeClassRef"] = {
        "group": NODE_CLASS_GROUP,
        "kind": NODE_CLASS_KIND,
        "name": pool.node_class_name,
    }
    template_spec["requirements"] = [r.to_manifest() for r in pool.requirements]
    if pool.startup_taints:
        template_spec["startupTaints"] = [_taint(t) for t in pool.startup_taints]
    if pool.taints:
        template_spec["taints"] = [_taint(t) for t in pool.taints]
    if pool.termination_grace_period is not None:
        template_spec["terminationGracePeriod"] = pool.termination_grace_period

    spec: dict[str, Any] = {}
    if pool.write_disruption:
        disruption: dict[str, Any] = {
            "consolidateAfter": pool.consolidate_after,
            "consolidationPolicy": pool.consolidation_policy,
        }
        if pool.budgets is not None:
            disruption["budgets"] = [
                budget.model_dump(exclude_none=True, by_alias=True) for budget in pool.budgets
            ]
        spec["disruption"] = disruption
    if pool.limits:
        spec["limits"] = dict(pool.limits)
    if pool.replicas is not None:
        spec["replicas"] = pool.replicas
    # No empty `metadata: {labels: {}}` (identity_label false, no labels), as upstream writes.
    template_metadata: dict[str, Any] = {}
    if pool.node_annotations:
        template_metadata["annotations"] = dict(pool.node_annotations)
    if pool.labels:
        template_metadata["labels"] = dict(pool.labels)
    template: dict[str, Any] = {"metadata": template_metadata} if template_metadata else {}
    spec["template"] = {**template, "spec": template_spec}
    if pool.weight is not None:
        spec["weight"] = pool.weight
    return {
        "apiVersion": NODE_POOL_API_VERSION,
        "kind": "NodePool",
        "metadata": _metadata(pool.pool_name, pool.annotations),
        "spec": spec,
    }


def render_manifests(pool: ResolvedKarpenterPool) -> dict[str, dict[str, Any]]:
    """The manifests of `pool` by role, in apply order: the node class (unless an existing
    one is used), then the NodePool."""
    manifests: dict[str, dict[str, Any]] = {}
    if pool.node_class is not None:
        manifests[NODE_CLASS] = render_node_class(pool)
    manifests[NODE_POOL] = render_node_pool(pool)
    return manifests


_PLAIN_SCALARS = (str, int, float, bool, type(None))


def _known(value: Any, foreign: list[Any]) -> Any:
    """A copy of JSON-like `value` to validate: Outputs stand as UNKNOWN_PLACEHOLDER, tuples
    become lists (as the validator's own copy makes them). Whatever is not plain data
    (an Output, any other object; what `outputs.known_output` looks for) is added to
    `foreign`, so this one walk also tells whether the manifests are plain."""
    if is_dict(value):
        for key in value:
            if not isinstance(key, _PLAIN_SCALARS):
                foreign.append(key)
        return {key: _known(item, foreign) for key, item in value.items()}
    if is_sequence(value):
        return [_known(item, foreign) for item in value]
    if isinstance(value, _PLAIN_SCALARS):
        return value
    foreign.append(value)
    return UNKNOWN_PLACEHOLDER if is_output(value) else value


def manifest_issues(manifests: dict[str, dict[str, Any]], prefix: str = "") -> list[Issue]:
    """Every reason the API server would reject the manifests, as issues whose path names
    the manifest (`manifests.node_pool.spec...`) and whose message is the upstream one."""
    return checked_manifests(manifests, prefix)[0]


def checked_manifests(
    manifests: dict[str, dict[str, Any]], prefix: str = ""
) -> tuple[list[Issue], bool]:
    """`manifest_issues`, and whether the manifests are plain data (no Output inside)."""
    from nodepools.validation import validate_manifest  # the CEL runtime loads on first validation

    issues: list[Issue] = []
    foreign: list[Any] = []
    for role, manifest in manifests.items():
        where = f"{prefix}.manifests.{role}" if prefix else f"manifests.{role}"
        # The copy is the validator's to normalize: it makes no second one.
        for violation in validate_manifest(_known(manifest, foreign), owned=True):
            path = f"{where}.{violation.path}" if violation.path else where
            issues.append(Issue(path, violation.message))
    return issues, not foreign


@dataclass(frozen=True)
class BuiltKarpenterPool(BuiltPool):
    """What the Karpenter backend registered; `resource` is the NodePool."""

    node_class: Any = None  # the EC2NodeClass resource, None when an existing one is used
    node_class_name: Any = None  # pulumi.Output[str]


def build_pool(
    name: str, pool: ResolvedKarpenterPool, parent: Any, manifests: dict[str, Any] | None = None
) -> BuiltKarpenterPool:
    """Register the node class (if any) and the NodePool as children of `parent`."""
    import pulumi
    from nodepools.backends.kubernetes import custom_object, custom_object_name

    manifests = manifests if manifests is not None else render_manifests(pool)
    node_class = (
        custom_object(
            f"{name}-{NODE_CLASS.replace('_', '-')}",
            manifests[NODE_CLASS],
            opts=pulumi.ResourceOptions(parent=parent, depends_on=[]),
        )
        if NODE_CLASS in manifests
        else None
    )
    node_pool = custom_object(
        f"{name}-{NODE_POOL.replace('_', '-')}",
        manifests[NODE_POOL],
        opts=pulumi.ResourceOptions(
            parent=parent, depends_on=[node_class] if node_class is not None else []
        ),
    )
    node_class_name = (
        custom_object_name(node_class)
        if node_class is not None
        else pulumi.Output.from_input(pool.node_class_name)
    )
    return BuiltKarpenterPool(
        pool_id=custom_object_name(node_pool),
        resource=node_pool,
        node_class=node_class,
        node_class_name=node_class_name,
    )
