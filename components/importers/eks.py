"""EKS managed node groups (`aws eks describe-nodegroup`'s JSON) -> MachinePool entries.

Each node group becomes a `MachinePool` on the eks backend with its exact name
(`node_group_name`): its instance types, scaling bounds, labels, taints, tags, disk size,
SSH access, update and repair settings and AMI release as described; spot groups get
`spot: {}`. A group with labels of its own is selected by them (`identity_label: false`: no
label or tag of ours), GPU groups get no accelerator label of ours (`gpu_node_label:
false`) nor, without a disk size, our 100 GiB root volume. The role, subnets and AMI type
are cluster settings here, so groups that differ in them get a cluster entry each (the
`--cluster` name, then `-2`, `-3`, ... in the order of the groups' names).

What the group would be given is compared with the `aws:eks/nodeGroup:NodeGroup` a plan
registers (the provider's input names); what describe-nodegroup reports about the live
group only (ARN, status, health, dates, its Auto Scaling groups) is not compared.
"""

from __future__ import annotations

from typing import Any, cast

from nodepools.importers.documents import InputError
from nodepools.importers.model import Imported, object_key
from nodepools.json_values import is_dict, is_list
from nodepools.offline import Capture

NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup"
COMPONENT = "MachinePool"
EFFECTS = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}
# Words of the AMI types of accelerator instances (`AL2023_x86_64_NVIDIA`, `AL2_x86_64_GPU`).
_ACCELERATED = ("NVIDIA", "NEURON", "GPU")
# Reported about the live group, not set by whoever made it.
OUTPUT_ONLY = ("nodegroupArn", "status", "createdAt", "modifiedAt", "health", "resources")
# describe-nodegroup field -> the NodeGroup input of the same value.
INPUTS = {
    "clusterName": "clusterName",
    "nodegroupName": "nodeGroupName",
    "nodeRole": "nodeRoleArn",
    "subnets": "subnetIds",
    "instanceTypes": "instanceTypes",
    "capacityType": "capacityType",
    "scalingConfig": "scalingConfig",
    "labels": "labels",
    "taints": "taints",
    "diskSize": "diskSize",
    "amiType": "amiType",
    "releaseVersion": "releaseVersion",
    "version": "version",
    "tags": "tags",
    "updateConfig": "updateConfig",
    "nodeRepairConfig": "nodeRepairConfig",
    "launchTemplate": "launchTemplate",
    "remoteAccess": "remoteAccess",
}
WHY = {
    "version": "ours has no Kubernetes version per pool: the group follows the cluster's",
    'labels["nodepools.dev/pool"]': "a group without labels of its own is selected by the "
    "identity label ours adds",
    'tags["nodepools.dev/pool"]': "ours tags a pool selected by its identity label",
    "launchTemplate": "describe-nodegroup names a launch template without its contents; ours "
    "makes its own template from the pool's settings when they need one",
    "scalingConfig.desiredSize": "ours starts an autoscaled group at its minimum and leaves "
    "the desired size to the cluster autoscaler afterwards",
}
# Resources a pool makes beside its node group, by type.
ADDED = {
    "Tag": "ours tags the group's Auto Scaling group with the node template the cluster "
    "autoscaler needs to scale it from zero",
    "LaunchTemplate": "ours makes a launch template when the pool's settings need one",
    "Role": "ours makes a node role when the cluster entry names none",
    "RolePolicyAttachment": "ours makes a node role when the cluster entry names none",
}


def node_groups(files: list[tuple[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(file, node group) of every group the files hold: `{"nodegroup": {...}}`, a list of
    those, `{"nodegroups": [...]}`, or the group itself."""
    found: list[tuple[str, dict[str, Any]]] = []
    for path, data in files:
        items: list[Any] = data if is_list(data) else [data]
        for item in items:
            if is_dict(item) and is_list(item.get("nodegroups")):
                items_of = cast("list[Any]", item["nodegroups"])
                found += [(path, _group(path, inner)) for inner in items_of]
            else:
                found.append((path, _group(path, item)))
    if not found:
        raise InputError(f"{files[0][0] if files else 'input'}: no node group in it")
    return found


def _group(path: str, item: Any) -> dict[str, Any]:
    group: Any = item.get("nodegroup", item) if is_dict(item) else item
    if not is_dict(group) or not isinstance(group.get("nodegroupName"), str):
        raise InputError(
            f'{path}: not a describe-nodegroup result (expected {{"nodegroup": {{"nodegroupName"'
            f": ...}}}}, got {str(item)[:60]!r})"
        )
    return group


def expected_inputs(group: dict[str, Any]) -> dict[str, Any]:
    """The NodeGroup inputs the described group stands for."""
    inputs = {INPUTS[k]: v for k, v in group.items() if k in INPUTS}
    if "remoteAccess" in group:
        access = group["remoteAccess"]
        inputs["remoteAccess"] = {
            **({"ec2SshKey": access["ec2SshKey"]} if "ec2SshKey" in access else {}),
            **(
                {"sourceSecurityGroupIds": access["sourceSecurityGroups"]}
                if "sourceSecurityGroups" in access
                else {}
            ),
        }
    return inputs


def _cluster(clusters: dict[str, dict[str, Any]], name: str, group: dict[str, Any]) -> str:
    cluster: dict[str, Any] = {"kind": "eks", "cluster_name": name}
    if "nodeRole" in group:
        cluster["node_role_arn"] = group["nodeRole"]
    cluster["subnet_ids"] = list(group.get("subnets") or [])
    if group.get("amiType") not in (None, "CUSTOM"):
        cluster["ami_type"] = group["amiType"]
    for entry, known in clusters.items():
        if known == cluster:
            return entry
    entry = name if not clusters else f"{name}-{len(clusters) + 1}"
    clusters[entry] = cluster
    return entry


def _pool_args(imported: Imported, key: str, group: dict[str, Any], cluster: str) -> dict[str, Any]:
    args: dict[str, Any] = {"cluster": cluster, "node_group_name": group["nodegroupName"]}
    types: list[str] = group.get("instanceTypes") or []
    if len(types) == 1:
        args["instance_type"] = types[0]
    elif types:
        args["instance_types"] = list(types)
    scaling: dict[str, int] = group.get("scalingConfig") or {}
    low, high = scaling.get("minSize", 0), scaling.get("maxSize", 1)
    if low == high:
        args["replicas"] = low
    else:
        args["autoscaling"] = {"min_replicas": low, "max_replicas": high}
    if labels := group.get("labels"):
        args["labels"] = dict(sorted(labels.items()))
        # The group's own labels select it: no label or tag of ours (the fleet checks that
        # no other pool of the cluster carries them all).
        args["identity_label"] = False
    if tags := group.get("tags"):
        args["tags"] = dict(sorted(tags.items()))
    if access := group.get("remoteAccess"):
        args["remote_access"] = {
            "ec2_ssh_key": access.get("ec2SshKey"),
            "source_security_group_ids": list(access.get("sourceSecurityGroups") or []),
        }
    accelerated = any(word in str(group.get("amiType")) for word in _ACCELERATED)
    if accelerated:
        args["gpu_node_label"] = False
    if taints := group.get("taints"):
        args["taints"] = [
            {
                "key": t["key"],
                **({"value": t["value"]} if "value" in t else {}),
                "effect": EFFECTS.get(t["effect"], t["effect"]),
            }
            for t in taints
        ]
    capacity = group.get("capacityType", "ON_DEMAND")
    if capacity == "SPOT":
        args["spot"] = {}
    elif capacity == "CAPACITY_BLOCK":
        imported.explain(
            f"{key} capacityType",
            "a capacity block's reservation id is in the launch template, which "
            "describe-nodegroup does not hold: give the pool `capacity_reservation`",
        )
    if "diskSize" in group:
        args["boot_volume_gb"] = group["diskSize"]
    elif accelerated:
        args["boot_volume_gb"] = None  # the cloud's default, not ours for accelerator pools
    update: dict[str, int] = group.get("updateConfig") or {}
    if "maxUnavailable" in update:
        args["update"] = {"max_unavailable": update["maxUnavailable"]}
    elif "maxUnavailablePercentage" in update:
        args["update"] = {"max_unavailable_percent": update["maxUnavailablePercentage"]}
    if "enabled" in (group.get("nodeRepairConfig") or {}):
        args["auto_repair"] = group["nodeRepairConfig"]["enabled"]
    if "releaseVersion" in group and group.get("amiType") != "CUSTOM":
        args["release_version"] = group["releaseVersion"]
    return args


def import_node_groups(groups: list[tuple[str, dict[str, Any]]], cluster_name: str) -> Imported:
    imported = Imported("eks", {}, {}, default_why="MachinePool renders it this way")
    clusters: dict[str, dict[str, Any]] = {}
    entries: list[dict[str, Any]] = []
    for path, group in sorted(groups, key=lambda item: item[1]["nodegroupName"]):
        name: str = group["nodegroupName"]
        if group.get("clusterName", cluster_name) != cluster_name:
            raise InputError(
                f"{path}: node group {name!r} is of cluster {group['clusterName']!r}, not "
                f"--cluster {cluster_name!r}"
            )
        key = object_key("NodeGroup", name)
        if not group.get("instanceTypes"):
            imported.refuse(
                key,
                "present",
                "its instance types are in its launch template, which describe-nodegroup does "
                "not hold: give the pool `instance_type`",
            )
            continue
        args = _pool_args(imported, key, group, _cluster(clusters, cluster_name, group))
        for field, reason in WHY.items():
            imported.explain(f"{key} {field}", reason)
        imported.upstream[key] = {"clusterName": cluster_name, **expected_inputs(group)}
        imported.origins[name] = [key]
        entries.append({"component": COMPONENT, "name": name, **dict(sorted(args.items()))})
    for kind, reason in ADDED.items():
        imported.explain(kind, reason)
    if clusters:
        imported.config["nodepools:clusters"] = clusters
    if entries:
        imported.config["nodepools:pools"] = entries
    return imported


def rendered(capture: Capture) -> dict[str, dict[str, Any]]:
    """Each pool's NodeGroup inputs (as `NodeGroup/<pool>`), and every other resource the
    pool made (`<Type>/<name>`), which the described groups do not have."""
    found: dict[str, dict[str, Any]] = {}
    for pool in capture.components(f"nodepools:index:{COMPONENT}"):
        for resource in capture.descendants(pool.urn):
            if resource.type == NODE_GROUP_TYPE:
                found[object_key("NodeGroup", pool.name)] = resource.inputs
            elif resource.custom:
                found[object_key(resource.type.rsplit(":", 1)[-1], resource.name)] = resource.inputs
    return found
