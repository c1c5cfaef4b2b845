"""The sections every plan prints: the resource tree, scheduling info, capacity."""

from __future__ import annotations

import json
from typing import Any

from nodepools.json_values import dig
from nodepools.offline import Capture, CapturedResource
from nodepools.planning.report import Section, whole_numbers

POOL_TYPES = (
    "nodepools:index:MachinePool",
    "nodepools:index:GpuSpotPool",
    "nodepools:index:SharedNodePool",
    "nodepools:index:KarpenterNodePool",
)

# The inputs worth a glance in the tree, per resource type (engine names, dotted paths).
KEY_INPUTS: dict[str, tuple[str, ...]] = {
    "aws:eks/nodeGroup:NodeGroup": (
        "nodeGroupNamePrefix",
        "instanceTypes",
        "capacityType",
        "scalingConfig",
        "diskSize",
        "amiType",
    ),
    "aws:autoscaling/tag:Tag": ("tag.key", "tag.value"),
    "aws:ec2/launchTemplate:LaunchTemplate": (
        "instanceType",
        "instanceMarketOptions.marketType",
        "capacityReservationSpecification.capacityReservationTarget",
        "placement.groupName",
        "metadataOptions.httpTokens",
    ),
    "aws:ec2/placementGroup:PlacementGroup": ("strategy",),
    "aws:ec2/securityGroup:SecurityGroup": ("vpcId",),
    # ROSA machine pools: the OCM body the dynamic provider sends (never the token).
    "pulumi-python:dynamic/ocm:MachinePool": (
        "cluster_id",
        "multi_az",
        "body.id",
        "body.instance_type",
        "body.replicas",
        "body.autoscaling",
        "body.aws.spot_market_options",
        "body.root_volume.aws.size",
    ),
    "oci:ContainerEngine/nodePool:NodePool": (
        "name",
        "nodeShape",
        "nodeConfigDetails.size",
        "nodeSourceDetails.bootVolumeSizeInGbs",
    ),
    # AcceleratorStack: the pinned chart of each release, the name of each OKE add-on.
    "kubernetes:helm.sh/v3:Release": ("chart", "version", "namespace"),
    "oci:ContainerEngine/addon:Addon": ("addonName",),
}


def compact(value: Any) -> str:
    if isinstance(value, bool):
        return json.dumps(value)  # as the stack YAML and the engine spell it
    value = whole_numbers(value)
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return str(value)


def key_inputs(resource: CapturedResource) -> str:
    if resource.type.startswith("kubernetes:") and resource.type not in KEY_INPUTS:
        meta: dict[str, Any] = resource.inputs.get("metadata") or {}
        name = meta.get("name", "")
        namespace = meta.get("namespace")
        return f"{namespace}/{name}" if namespace else str(name)
    fields = KEY_INPUTS.get(resource.type, ())
    parts: list[str] = []
    for field_path in fields:
        value = dig(resource.inputs, field_path)
        if field_path in resource.unknown_paths:
            parts.append(f"{field_path.rsplit('.', 1)[-1]}={KNOWN_AFTER_APPLY}")
        elif value is not None:
            parts.append(f"{field_path.rsplit('.', 1)[-1]}={compact(value)}")
    return " ".join(parts)


KNOWN_AFTER_APPLY = "(known after apply)"


def unknowns_section(capture: Capture) -> Section | None:
    """Every input known only after apply (another stack's output, a resource's output in
    preview): shown, never as None, and not checked by this plan."""
    rows = [(r, path) for r in capture.resources for path in r.unknown_paths]
    if not rows:
        return None
    section = Section("Known after apply")
    for resource, path in rows:
        section.lines.append(f"{resource.type}  {resource.name}  {path} = {KNOWN_AFTER_APPLY}")
    return section


def tree_section(capture: Capture) -> Section:
    section = Section("Resources")
    by_parent: dict[str | None, list[CapturedResource]] = {}
    urns = {r.urn for r in capture.resources}
    for resource in capture.resources:
        parent = resource.parent if resource.parent in urns else None
        by_parent.setdefault(parent, []).append(resource)

    def walk(parent: str | None, depth: int) -> None:
        # Registrations race on the engine's threads; sorting keeps the report stable.
        for resource in sorted(by_parent.get(parent, []), key=lambda r: (r.type, r.name)):
            details = key_inputs(resource)
            line = f"{'  ' * depth}{resource.type}  {resource.name}"
            section.lines.append(f"{line}  {details}" if details else line)
            walk(resource.urn, depth + 1)

    walk(None, 0)
    section.lines.append(f"{len(capture.resources)} resources")
    return section


def pool_components(capture: Capture) -> list[CapturedResource]:
    # Capture order is registration order, which races on the engine's threads; sorted so
    # the scheduling and capacity sections read the same on every run.
    pools = [r for r in capture.components() if r.type in POOL_TYPES]
    return sorted(pools, key=lambda r: (r.name, r.type))


def scheduling_section(capture: Capture) -> Section:
    section = Section("Scheduling info (paste into a pod spec)")
    for pool in pool_components(capture):
        outputs = capture.outputs_of(pool)
        section.lines.append(f"{pool.name} ({pool.type.rsplit(':', 1)[-1]}):")
        yaml_text = outputs.get("scheduling_info_yaml") or ""
        section.lines.extend(f"  {line}" for line in yaml_text.rstrip().splitlines())
        section.lines.extend(_advertised_note(capture, pool))
    return section


def _advertised_note(capture: Capture, pool: CapturedResource) -> list[str]:
    """A line when device software makes the pool's nodes advertise another resource or
    count than its hardware (MIG, time slicing): what to request instead."""
    from nodepools.planning.devices_section import device_rows, device_stacks

    spec: dict[str, Any] = pool.inputs.get("spec") or {}
    name = spec.get("poolName", pool.name)
    # The stack says which pools it changes (a Karpenter pool has no one count per node).
    changed: set[tuple[str, str]] = set()
    for stack in device_stacks(capture):
        offers: dict[str, dict[str, Any]] = stack.inputs.get("advertised") or {}
        changed.update(
            (stack.name, served) for served, f in offers.items() if f.get("changed", True)
        )
    lines: list[str] = []
    for row in device_rows(capture):
        if row["pool"] != name or (row["stack"], name) not in changed:
            continue
        lines.append(
            f"  # with {row['stack']} ({row['software']}) one node advertises "
            f"{row['resource']}: {row['count']} (MIG or time slicing)"
        )
        if pool.type == "nodepools:index:KarpenterNodePool":
            # Karpenter simulates with the instance type's own capacity and has no way to
            # learn other extended resources (kubernetes-sigs/karpenter#751).
            hardware = spec.get("acceleratorResource")
            lines.append(
                "  # Karpenter launches nodes by the instance type's hardware resources only: "
                + (
                    "a pending pod asking for the advertised resource won't launch a node"
                    if row["resource"] != hardware
                    else f"a pending pod asking for more {hardware} than one instance has "
                    "won't launch a node"
                )
            )
        elif (
            str(row["resource"]).startswith("nvidia.com/mig-") and spec.get("clusterKind") == "eks"
        ):
            lines.append(
                "  # cluster-autoscaler counts a GPU node without allocatable nvidia.com/gpu as "
                "unready (kubernetes/autoscaler#8095): check your version before relying on "
                "`mixed` MIG to scale"
            )
    return lines


def capacity_section(capture: Capture) -> Section:
    """Nodes and accelerators per pool, from the same data as the JSON plan (`pool_data`):
    what a node advertises once its device software runs (MIG slices, time slicing), and
    the most the pool can hold."""
    from nodepools.planning.pool_data import pool_data

    section = Section("Capacity")
    rows: list[tuple[str, ...]] = [
        ("pool", "cluster", "instance type", "nodes", "accelerator", "per node", "max total")
    ]
    for pool in pool_components(capture):
        rows.append(_capacity_row(pool_data(capture, pool)))
    if len(rows) == 1:
        return section  # no pools in this stack: the section renders as "(none)"
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        section.lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return section


def _capacity_row(pool: dict[str, Any]) -> tuple[str, ...]:
    nodes: dict[str, Any] = pool["nodes"]
    low, high = nodes["min"], nodes["max"]
    limits: dict[str, Any] = pool["limits"] or {}
    karpenter = pool["backend"] == "karpenter"
    if karpenter and limits and low == 0:
        # Sized by resource limits rather than node counts.
        span = "limits " + ",".join(f"{k}={compact(v)}" for k, v in limits.items())
    elif high is None:
        span = "unbounded" if low == 0 else f"{low}..unbounded"
    else:
        span = f"{low}..{high}" if low != high else str(low)
    # A mix shows every type: the counts are what all of them have.
    types = ",".join(pool["instance_types"]) or pool["instance_selection"] or "?"
    accelerator: dict[str, Any] | None = pool["accelerator"]
    if accelerator is None:
        none = "-" if karpenter else "0"
        return (pool["name"], pool["backend"], types, span, "-", none, none)
    model = accelerator["model"]
    resource, per_node = accelerator["resource"], accelerator["per_node"]
    counted: dict[str, Any] | None = pool["accelerators"]
    total: Any = counted["max"] if counted is not None else None
    for offer in pool.get("advertised") or ():
        # What a node advertises once its device software runs.
        resource, per_node = offer["resource"], offer["count"]
        total = None if high is None else high * per_node
    return (
        pool["name"],
        pool["backend"],
        types,
        span,
        f"{resource} ({model})" if model else resource,
        "?" if per_node is None else compact(per_node),
        # No total: unbounded when the nodes are, else not known (sizes that differ).
        compact(total) if total is not None else "unbounded" if high is None else "?",
    )
