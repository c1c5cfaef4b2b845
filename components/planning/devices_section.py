"""The plan's device software section: per accelerator pool, what serves it, what one node
then advertises, and whether the software's pods tolerate the pool's taints and select its
nodes (computed by AcceleratorStack from its charts' merged values)."""

from __future__ import annotations

from typing import Any

from nodepools.offline import Capture, CapturedResource
from nodepools.planning.report import Section

STACK_TYPE = "nodepools:index:AcceleratorStack"


def device_stacks(capture: Capture) -> list[CapturedResource]:
    return sorted((r for r in capture.components() if r.type == STACK_TYPE), key=lambda r: r.name)


def device_rows(capture: Capture) -> list[dict[str, Any]]:
    """One row per served accelerator pool: stack, pool, software, resource, count,
    tolerated, selected."""
    rows: list[dict[str, Any]] = []
    for stack in device_stacks(capture):
        advertised: dict[str, Any] = stack.inputs.get("advertised") or {}
        for pool, facts in sorted(advertised.items()):
            rows.append(
                {
                    "stack": stack.name,
                    "pool": pool,
                    "software": facts.get("software"),
                    "resource": facts.get("resource"),
                    "count": int(facts.get("count") or 0),
                    "tolerated": bool(facts.get("tolerated")),
                    "selected": bool(facts.get("selected")),
                }
            )
    return rows


def devices_section(capture: Capture) -> Section | None:
    rows, efa = device_rows(capture), efa_rows(capture)
    if not rows and not efa:
        return None
    section = Section("Device software")
    served = [
        (
            row,
            f"{row['pool']}: {row['software']} ({row['stack']}), advertises "
            f"{row['resource']}: {row['count']} per node",
        )
        for row in rows
    ] + [
        (
            row,
            f"{row['pool']}: aws-efa-k8s-device-plugin ({row['stack']}), advertises "
            "vpc.amazonaws.com/efa",
        )
        for row in efa
    ]
    for row, what in served:
        covered = "yes" if row["tolerated"] else "no"
        selected = "yes" if row["selected"] else "no"
        section.lines.append(f"{what}; tolerations covered: {covered}; nodes selected: {selected}")
        if not (row["tolerated"] and row["selected"]):
            section.failures += 1
    # Not failures: what the cluster must already run, which the plan cannot see.
    for stack in device_stacks(capture):
        prerequisites: list[str] = stack.inputs.get("prerequisites") or []
        for needed in prerequisites:
            section.lines.append(f"{stack.name} needs, installed beforehand: {needed}")
    return section


def efa_rows(capture: Capture) -> list[dict[str, Any]]:
    """One row per EFA pool an AcceleratorStack's EFA device plugin serves."""
    rows: list[dict[str, Any]] = []
    for stack in device_stacks(capture):
        efa: dict[str, Any] = stack.inputs.get("efa") or {}
        for pool, facts in sorted(efa.items()):
            rows.append(
                {
                    "stack": stack.name,
                    "pool": pool,
                    "tolerated": bool(facts.get("tolerated")),
                    "selected": bool(facts.get("selected")),
                }
            )
    return rows
