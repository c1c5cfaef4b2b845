"""Plans and plan diffs as a pull-request comment (GitHub-flavoured Markdown).

A headline with the totals a reviewer wants at a glance, then collapsible sections. GitHub
refuses comment bodies over 65,536 characters; a comment that would be longer is cut to fit
by showing fewer rows of its longest tables, and every cut says what it left out (the JSON
plan, uploaded beside the comment, has everything). The first line is a marker, so a CI job
can find its own comment and edit it rather than post another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MARKER = "<!-- nodepools-plan -->"
COMMENT_LIMIT = 65_536  # characters GitHub accepts in one issue or pull-request comment


def _cell(value: Any) -> str:
    text = "-" if value is None or value == "" else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def money(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "unbounded"
    sign = "+" if signed and value > 0 else "-" if value < 0 else ""
    return f"{sign}${abs(value):,.2f}"


def money_span(low: float | None, high: float | None) -> str:
    return money(low) if low == high else f"{money(low)}..{money(high)}"


def span(low: Any, high: Any) -> str:
    if high is None:
        return f"{_num(low)}..unbounded"
    return _num(low) if low == high else f"{_num(low)}..{_num(high)}"


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def signed(value: Any) -> str:
    if value is None:
        return "unbounded"
    return f"+{_num(value)}" if value > 0 else _num(value)


@dataclass
class Block:
    """One collapsible section: a table (or a list) whose rows can be cut to fit."""

    title: str
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)  # lines before the table, never cut
    shown: int | None = None  # rows shown; None: all
    open: bool = False

    def render(self) -> str:
        shown = len(self.rows) if self.shown is None else self.shown
        lines = [f"<details{' open' if self.open else ''}><summary>{self.title}</summary>", ""]
        lines += self.text
        if self.header:
            if self.text:
                lines.append("")
            lines.append("| " + " | ".join(self.header) + " |")
            lines.append("|" + "---|" * len(self.header))
            lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in self.rows[:shown]]
        if shown < len(self.rows):
            lines += [
                "",
                f"_Cut: {len(self.rows) - shown} of {len(self.rows)} rows not shown to fit "
                "GitHub's comment size limit; the JSON plan artifact has them all._",
            ]
        lines += ["", "</details>"]
        return "\n".join(lines)


def assemble(head: list[str], blocks: list[Block], limit: int = COMMENT_LIMIT) -> str:
    """The comment: `head` lines, then the blocks, cut to `limit` characters by halving the
    rows of the longest table until it fits (a table keeps at least one row)."""

    def text() -> str:
        return "\n".join([*head, "", *(b.render() + "\n" for b in blocks)]).rstrip() + "\n"

    body = text()
    while len(body) > limit:
        cuttable = [b for b in blocks if (b.shown if b.shown is not None else len(b.rows)) > 1]
        if not cuttable:
            note = "\n\n_Cut: the comment was still too long; see the JSON plan artifact._\n"
            return body[: limit - len(note)] + note
        longest = max(cuttable, key=lambda b: b.shown if b.shown is not None else len(b.rows))
        current = longest.shown if longest.shown is not None else len(longest.rows)
        longest.shown = current // 2
        body = text()
    return body


def _artifact_line(artifact_url: str | None) -> list[str]:
    if not artifact_url:
        return []
    return [
        "",
        f"Full JSON plans and the capacity chart (`capacity.svg`): [plan artifact]({artifact_url})",
    ]


# --- one plan ----------------------------------------------------------------------------


def _accelerator_summary(capacity: list[dict[str, Any]]) -> str:
    if not capacity:
        return "no accelerators"
    return ", ".join(f"{span(c['min'], c['max'])} {c['model']} ({c['resource']})" for c in capacity)


def plan_headline(document: dict[str, Any]) -> str:
    if document["status"] == "error":
        return f"**`{document['stack']}`**: the program failed; nothing would be created."
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
                else f"{_num(accelerator['per_node'])} x {accelerator['model']} ({accelerator['resource']})",
                _pool_cost_cell(cost),
            ]
        )
    return rows


def plan_blocks(document: dict[str, Any]) -> list[Block]:
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
                        _num(c["min"]),
                        span(c["max"], c["max"]),
                        _num(c["spot_max"]),
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
                        _pairs(q["nominal"]),
                        _pairs(q["borrowing_limit"]),
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
    blocks.append(
        Block(
            f"Resources ({len(document['resources'])})",
            ["type", "name", "key inputs"],
            [[r["type"], r["name"], _pairs(r["key_inputs"])] for r in document["resources"]],
        )
    )
    return blocks


def _pairs(values: dict[str, Any]) -> str:
    return (
        ", ".join(
            f"{k}={'(known after apply)' if v is None else _compact(v)}"
            for k, v in sorted(values.items())
        )
        or "-"
    )


def _compact(value: Any) -> str:
    import json

    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    if isinstance(value, bool):
        return json.dumps(value)
    return _num(value)


def plan_markdown(
    documents: list[dict[str, Any]], *, artifact_url: str | None = None, limit: int = COMMENT_LIMIT
) -> str:
    head = [MARKER, "### nodepools plan", ""]
    head += [f"- {plan_headline(d)}" for d in documents]
    head += _artifact_line(artifact_url)
    blocks: list[Block] = []
    for document in documents:
        for block in plan_blocks(document):
            if len(documents) > 1:
                block.title = f"{document['stack']}: {block.title}"
            blocks.append(block)
    return assemble(head, blocks, limit)


# --- a diff ------------------------------------------------------------------------------


def diff_headline(diff: dict[str, Any]) -> str:
    stack = f"**`{diff['stack']}`**"
    if diff["status"]["after"] == "removed":
        return f"{stack}: stack removed"
    if diff["status"]["after"] == "error":
        return f"{stack}: the head plan failed: {diff['error']}"
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
                    _compact_or_dash(change["before"]),
                    _compact_or_dash(change["after"]),
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
                        _compact_or_dash(c["before"]),
                        _compact_or_dash(c["after"]),
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
        parts.append(f"{_num(accelerator['per_node'])} x {accelerator['model']}/node")
    return ", ".join(parts)


def _compact_or_dash(value: Any) -> str:
    return "-" if value is None else _compact(value)


def diff_markdown(
    diff: dict[str, Any], *, artifact_url: str | None = None, limit: int = COMMENT_LIMIT
) -> str:
    """The comment for a `diff_stacks` result."""
    head = [MARKER, "### nodepools plan: changes in this pull request", ""]
    head += [f"- {diff_headline(stack)}" for stack in diff["stacks"]]
    head += _artifact_line(artifact_url)
    blocks: list[Block] = []
    for stack in diff["stacks"]:
        if not stack["changed"]:
            continue
        for block in diff_blocks(stack):
            block.title = f"{stack['stack']}: {block.title}"
            blocks.append(block)
    return assemble(head, blocks, limit)
