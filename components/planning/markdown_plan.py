"""The pull-request comment of one or more plans: headline, pools, capacity, placement,
quotas, policy findings and resources."""

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
    money_span,
    num,
    pairs,
    span,
)


def _total_max(row: dict[str, Any], pools: list[dict[str, Any]]) -> str:
    """A capacity row's max: "unbounded" only when one of its pools' nodes are, "?" when
    a pool's count per node isn't known (a Karpenter pool of several sizes)."""
    if row["max"] is not None:
        return num(row["max"])
    mine = [p for p in pools if p["name"] in row["pools"]]
    unbounded = any(
        p["nodes"]["max"] is None
        and (p["accelerators"] is None or p["accelerators"]["max"] is None)
        for p in mine
    )
    return "unbounded" if unbounded else "?"


def _accelerator_summary(document: dict[str, Any]) -> str:
    capacity: list[dict[str, Any]] = document["capacity"]
    if not capacity:
        return "no accelerators"
    parts: list[str] = []
    for row in capacity:
        low, high = num(row["min"]), _total_max(row, document["pools"])
        what = row["resource"] if row["model"] == "?" else f"{row['model']} ({row['resource']})"
        parts.append(f"{low if high == low else f'{low}..{high}'} {what}")
    return ", ".join(parts)


def _per_node(pool: dict[str, Any]) -> str:
    """`4 x A10G (nvidia.com/gpu)`: what one node has, as far as it is known."""
    accelerator = pool["accelerator"]
    if accelerator is None:
        return "-"
    model, resource, count = accelerator["model"], accelerator["resource"], accelerator["per_node"]
    what = f"{model} ({resource})" if model else resource
    text = f"{num(count)} x {what}" if count is not None else f"{what}, per node by instance type"
    for offer in pool.get("advertised") or ():
        text += f"; advertised as {num(offer['count'])} x {offer['resource']}"
    return text


def plan_headline(document: dict[str, Any]) -> str:
    if document["status"] == "error":
        return f"**`{document['stack']}`**: the program failed (the errors are below)"
    pools = document["pools"]
    cost = document["cost"]
    nodes_min = sum(p["nodes"]["min"] for p in pools)
    highs = [p["nodes"]["max"] for p in pools]
    nodes_max = None if None in highs else sum(h for h in highs if h is not None)
    mandatory = sum(1 for f in document["policy"] if f["level"] == "mandatory")
    advisory = len(document["policy"]) - mandatory
    status = {"ok": "OK", "failed": "FAILED"}[document["status"]]
    unknown = (
        f" (unknown price: {', '.join(cost['unknown_price'])})" if cost["unknown_price"] else ""
    )
    return (
        f"**`{document['stack']}`** {status}: {len(pools)} pools, {span(nodes_min, nodes_max)} nodes, "
        f"{_accelerator_summary(document)}; "
        f"{money_span(cost['hourly']['min'], cost['hourly']['max'])}/h "
        f"({money_span(cost['monthly']['min'], cost['monthly']['max'])}/month){unknown}; "
        f"policy: {mandatory} mandatory, {advisory} advisory"
    )


def _pool_cost_cell(cost: dict[str, Any]) -> str:
    if not cost["known"]:
        return cost["reason"]
    text = money_span(cost["hourly"]["min"], cost["hourly"]["max"])
    # A price nobody dated against its source (see components/specs/catalog/data/prices.json).
    return text if cost["as_of"] is not None else f"{text} (unverified price)"


def _pool_rows(pools: list[dict[str, Any]]) -> list[list[str]]:
    rows: list[list[str]] = []
    for pool in pools:
        cost = pool["cost"]
        rows.append(
            [
                f"`{pool['name']}`",
                pool["backend"],
                ", ".join(pool["instance_types"]) or pool["instance_selection"] or "-",
                "/".join(pool["capacity_types"]),
                span(pool["nodes"]["min"], pool["nodes"]["max"]),
                _per_node(pool),
                _pool_cost_cell(cost),
            ]
        )
    return rows


def plan_blocks(document: dict[str, Any]) -> list[Block]:
    if document["status"] == "error":
        return [error_block(document["error"] or "")]
    blocks: list[Block] = []
    if document["pools"]:
        blocks.append(
            Block(
                f"Pools ({len(document['pools'])})",
                [
                    "pool",
                    "backend",
                    "instance types",
                    "capacity",
                    "nodes",
                    "accelerators/node",
                    "USD/hour",
                ],
                _pool_rows(document["pools"]),
                open=True,
            )
        )
    if document["capacity"]:
        blocks.append(
            Block(
                "Accelerators per model",
                ["model", "resource", "min", "max", "of which spot (max)", "pools"],
                [
                    [
                        "-" if c["model"] == "?" else c["model"],
                        c["resource"],
                        num(c["min"]),
                        _total_max(c, document["pools"]),
                        num(c["spot_max"]),
                        ", ".join(c["pools"]),
                    ]
                    for c in document["capacity"]
                ],
            )
        )
    recipes = document["placement"]["recipes"]
    if recipes:
        blocks.append(
            Block(
                f"Placement ({len(recipes)} recipes)",
                ["recipe", "status", "pool", "asks for"],
                [
                    [
                        r["name"],
                        r["status"],
                        r["pool"],
                        f"{r['replicas']} x {r['accelerators_per_replica']} {r['resource'] or ''}".rstrip(),
                    ]
                    for r in recipes
                ],
            )
        )
    if document["quotas"]:
        blocks.append(
            Block(
                f"Quotas ({len(document['quotas'])} rows)",
                ["department", "project", "queue", "pool", "nominal", "borrowing limit"],
                [
                    [
                        q["department"],
                        q["project"],
                        q["queue"],
                        q["pool"],
                        pairs(q["nominal"]),
                        pairs(q["borrowing_limit"]),
                    ]
                    for q in document["quotas"]
                ],
            )
        )
    findings = document["policy"]
    violations = document["validation"]["violations"]
    if findings or violations:
        blocks.append(
            Block(
                f"Policy and validation ({len(findings)} findings, {len(violations)} invalid)",
                ["level", "policy / kind", "resource", "message"],
                [[f["level"], f["policy"], f["resource"], f["message"]] for f in findings]
                + [
                    ["invalid", v["kind"], v["name"], f"{v['path']}: {v['message']}"]
                    for v in violations
                ],
            )
        )
    # Plans written before outputs were planned have none.
    planned: dict[str, Any] = document.get("outputs") or {}
    outputs: dict[str, Any] = planned.get("values") or {}
    if outputs:
        unknown = set(planned["known_after_apply"])
        blocks.append(
            Block(
                f"Stack outputs ({len(outputs)})",
                ["output", "value"],
                [
                    [
                        f"`{name}`",
                        "(known after apply)"
                        if value is None and name in unknown
                        else compact_or_dash(value),
                    ]
                    for name, value in outputs.items()
                ],
            )
        )
    blocks.append(
        Block(
            f"Resources ({len(document['resources'])})",
            ["type", "name", "key inputs"],
            [[r["type"], r["name"], pairs(r["key_inputs"])] for r in document["resources"]],
        )
    )
    return blocks


def plan_markdown(
    documents: list[dict[str, Any]], *, artifact_url: str | None = None, limit: int = COMMENT_LIMIT
) -> str:
    head = [MARKER, "### nodepools plan", ""]
    head += [f"- {plan_headline(d)}" for d in documents]
    head += artifact_line(artifact_url)
    blocks: list[Block] = []
    for document in documents:
        for block in plan_blocks(document):
            if len(documents) > 1:
                block.title = f"{document['stack']}: {block.title}"
            blocks.append(block)
    return assemble(head, blocks, limit)
