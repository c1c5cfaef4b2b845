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


def _accelerator_summary(capacity: list[dict[str, Any]]) -> str:
    if not capacity:
        return "no accelerators"
    return ", ".join(f"{span(c['min'], c['max'])} {c['model']} ({c['resource']})" for c in capacity)


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
        f"{_accelerator_summary(document['capacity'])}; "
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
        accelerator = pool["accelerator"]
        cost = pool["cost"]
        rows.append(
            [
                f"`{pool['name']}`",
                pool["backend"],
                ", ".join(pool["instance_types"]) or pool["instance_selection"] or "-",
                "/".join(pool["capacity_types"]),
                span(pool["nodes"]["min"], pool["nodes"]["max"]),
                "-"
                if accelerator is None
                else f"{num(accelerator['per_node'])} x {accelerator['model']} ({accelerator['resource']})",
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
                        c["model"],
                        c["resource"],
                        num(c["min"]),
                        span(c["max"], c["max"]),
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
