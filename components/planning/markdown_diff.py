"""The pull-request comment of a diff between two plans (`plan_diff.diff_stacks`): what
changes in pools, accelerators, cost, placement, quotas, policy findings and resources."""

from __future__ import annotations

from typing import Any

from nodepools.planning.markdown import (
    COMMENT_LIMIT,
    MARKER,
    Block,
    artifact_line,
    assemble,
    compact_or_dash,
    error_block,
    money,
    money_span,
    num,
    signed,
    span,
)


def diff_headline(diff: dict[str, Any]) -> str:
    stack = f"**`{diff['stack']}`**"
    if diff["status"]["after"] == "removed":
        return f"{stack}: stack removed"
    if diff["status"]["after"] == "error":
        return f"{stack}: the head plan failed (the errors are below)"
    if not diff["changed"]:
        return f"{stack}: no changes"
    pools = diff["pools"]
    parts = [f"pools +{len(pools['added'])} / -{len(pools['removed'])} / ~{len(pools['changed'])}"]
    for row in diff["accelerators"]:
        parts.append(
            f"{row['model']} max {signed(row['delta']['max'])} (min {signed(row['delta']['min'])})"
        )
    hourly, monthly = diff["cost"]["hourly"], diff["cost"]["monthly"]
    parts.append(
        f"cost max {money(hourly['delta']['max'], signed=True)}/h "
        f"({money(monthly['delta']['max'], signed=True)}/month), "
        f"min {money(hourly['delta']['min'], signed=True)}/h"
    )
    if diff["placement_moves"]:
        parts.append(f"{len(diff['placement_moves'])} placement moves")
    if diff["quota_changes"]:
        parts.append(f"{len(diff['quota_changes'])} quota changes")
    new = diff["policy"]["new"]
    if new:
        mandatory = sum(1 for f in new if f["level"] == "mandatory")
        parts.append(f"{len(new)} new policy findings ({mandatory} mandatory)")
    if diff["status"]["after"] == "failed":
        parts.append("**plan FAILED**")
    return f"{stack}: " + "; ".join(parts)


def diff_blocks(diff: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = []
    if diff["status"]["after"] == "error":
        blocks.append(error_block(diff["error"] or ""))
    pools = diff["pools"]
    rows: list[list[str]] = []
    for pool in pools["added"]:
        rows.append(["added", f"`{pool['name']}`", "", "", _pool_summary(pool)])
    for pool in pools["removed"]:
        rows.append(["removed", f"`{pool['name']}`", "", _pool_summary(pool), ""])
    for pool in pools["changed"]:
        for change in pool["changes"]:
            rows.append(
                [
                    "changed",
                    f"`{pool['name']}`",
                    change["field"],
                    compact_or_dash(change["before"]),
                    compact_or_dash(change["after"]),
                ]
            )
    if rows:
        blocks.append(
            Block("Pools", ["change", "pool", "field", "before", "after"], rows, open=True)
        )
    if diff["accelerators"]:
        blocks.append(
            Block(
                "Accelerators and nodes per model",
                [
                    "model",
                    "resource",
                    "before",
                    "after",
                    "delta (min/max)",
                    "nodes delta (min/max)",
                ],
                [
                    [
                        a["model"],
                        a["resource"],
                        span(a["before"]["min"], a["before"]["max"]),
                        span(a["after"]["min"], a["after"]["max"]),
                        f"{signed(a['delta']['min'])} / {signed(a['delta']['max'])}",
                        f"{signed(a['nodes_delta']['min'])} / {signed(a['nodes_delta']['max'])}",
                    ]
                    for a in diff["accelerators"]
                ],
                open=True,
            )
        )
    cost = diff["cost"]
    cost_rows = [
        [
            period,
            money_span(cost[period]["before"]["min"], cost[period]["before"]["max"]),
            money_span(cost[period]["after"]["min"], cost[period]["after"]["max"]),
            f"{money(cost[period]['delta']['min'], signed=True)} / {money(cost[period]['delta']['max'], signed=True)}",
        ]
        for period in ("hourly", "monthly")
    ]
    text: list[str] = []
    if cost["unknown_price"]:
        text.append(f"Not counted (unknown price): {', '.join(cost['unknown_price'])}.")
    blocks.append(
        Block(
            "Cost (USD, autoscaling min..max)",
            ["period", "before", "after", "delta (min/max)"],
            cost_rows,
            text=text,
        )
    )
    if diff["placement_moves"]:
        blocks.append(
            Block(
                "Placement moves",
                ["recipe", "before", "after"],
                [
                    [
                        m["recipe"],
                        f"{m['before']['pool'] or '-'} ({m['before']['status']})",
                        f"{m['after']['pool'] or '-'} ({m['after']['status']})",
                    ]
                    for m in diff["placement_moves"]
                ],
            )
        )
    if diff["quota_changes"]:
        blocks.append(
            Block(
                "Quota changes",
                ["department", "project", "pool", "change", "field", "before", "after"],
                [
                    [
                        q["department"],
                        q["project"],
                        q["pool"],
                        q["change"],
                        c["field"],
                        compact_or_dash(c["before"]),
                        compact_or_dash(c["after"]),
                    ]
                    for q in diff["quota_changes"]
                    for c in q["changes"]
                ],
            )
        )
    policy = diff["policy"]
    if policy["new"] or policy["resolved"]:
        blocks.append(
            Block(
                "Policy findings",
                ["", "level", "policy", "resource", "message"],
                [
                    ["new", f["level"], f["policy"], f["resource"], f["message"]]
                    for f in policy["new"]
                ]
                + [
                    ["resolved", f["level"], f["policy"], f["resource"], f["message"]]
                    for f in policy["resolved"]
                ],
            )
        )
    resources = diff["resources"]
    resource_rows = (
        [["added", r] for r in resources["added"]]
        + [["removed", r] for r in resources["removed"]]
        + [["changed", r] for r in resources["changed"]]
    )
    if resource_rows:
        blocks.append(
            Block(f"Resources ({len(resource_rows)})", ["change", "resource"], resource_rows)
        )
    return blocks


def _pool_summary(pool: dict[str, Any]) -> str:
    accelerator = pool["accelerator"]
    parts = [
        pool["backend"],
        ", ".join(t for t in pool["instance_types"] if t) or "-",
        f"{span(pool['nodes']['min'], pool['nodes']['max'])} nodes",
    ]
    if accelerator:
        parts.append(f"{num(accelerator['per_node'])} x {accelerator['model']}/node")
    return ", ".join(parts)


def diff_markdown(
    diff: dict[str, Any], *, artifact_url: str | None = None, limit: int = COMMENT_LIMIT
) -> str:
    """The comment for a `diff_stacks` result."""
    head = [MARKER, "### nodepools plan: changes in this pull request", ""]
    head += [f"- {diff_headline(stack)}" for stack in diff["stacks"]]
    head += artifact_line(artifact_url)
    blocks: list[Block] = []
    for stack in diff["stacks"]:
        if not stack["changed"]:
            continue
        for block in diff_blocks(stack):
            block.title = f"{stack['stack']}: {block.title}"
            blocks.append(block)
    return assemble(head, blocks, limit)
