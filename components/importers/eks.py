"""EKS managed node groups (`aws eks describe-nodegroup`'s JSON) -> MachinePool entries.

Each node group becomes a `MachinePool` on the eks backend, named after the group: its
instance types, scaling bounds, labels, taints, disk size, update and repair settings and
AMI release as described; spot groups get `spot: {}`. The role, subnets, AMI type and tags
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
    "nodeGroupName": "ours names the group by a prefix (`nodeGroupNamePrefix`), so that "
    "Pulumi can replace it create-before-delete",
    "nodeGroupNamePrefix": "ours names the group by a prefix, so that Pulumi can replace it "
    "create-before-delete",
    "version": "ours has no Kubernetes version per pool: the group follows the cluster's",
    'labels["nodepools.dev/pool"]': "ours labels every node with its pool (the identity label)",
    'tags["nodepools.dev/pool"]': "ours tags every pool resource with its pool name",
    'labels["k8s.amazonaws.com/accelerator"]': "ours labels accelerator nodes with their model",
    "launchTemplate": "describe-nodegroup names a launch template without its contents; ours "
    "makes its own template from the pool's settings when they need one",
    "remoteAccess": "ours has no SSH access setting for nodes",
    "scalingConfig.desiredSize": "ours starts an autoscaled group at its minimum and leaves "
    "the desired size to the cluster autoscaler afterwards",
    "diskSize": "accelerator pools get a 100 GiB root volume unless a size is given",
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
    given: dict[str, str] = group.get("tags") or {}
    tags = {k: v for k, v in given.items() if k != "nodepools.dev/pool"}
    if tags:
        cluster["tags"] = dict(sorted(tags.items()))
    for entry, known in clusters.items():
        if known == cluster:
            return entry
    entry = name if not clusters else f"{name}-{len(clusters) + 1}"
    clusters[entry] = cluster
    return entry


def _pool_args(imported: Imported, key: str, group: dict[str, Any], cluster: str) -> dict[str, Any]:
    args: dict[str, Any] = {"cluster": cluster}
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
