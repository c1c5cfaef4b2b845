"""The building blocks of the plan's pull-request comment (GitHub-flavoured Markdown).

A comment is a headline with the totals a reviewer wants at a glance, then collapsible
sections (`Block`). GitHub refuses comment bodies over 65,536 characters; `assemble` cuts a
comment that would be longer by showing fewer rows of its longest tables, and every cut says
what it left out (the JSON plan, uploaded beside the comment, has everything). The first
line is a marker, so a CI job can find its own comment and edit it rather than post another.
The comment of one plan is `markdown_plan`'s, the comment of a diff `markdown_diff`'s.
"""

from __future__ import annotations

import json
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
        return f"{num(low)}..unbounded"
    return num(low) if low == high else f"{num(low)}..{num(high)}"


def num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def signed(value: Any) -> str:
    if value is None:
        return "unbounded"
    return f"+{num(value)}" if value > 0 else num(value)


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


def error_block(error: str) -> Block:
    """Why a plan failed, as the text plan says it: every problem with its path, verbatim."""
    fence = "````" if "```" in error else "```"
    return Block("Errors", text=[f"{fence}text", *error.rstrip().splitlines(), fence], open=True)


def artifact_line(artifact_url: str | None) -> list[str]:
    if not artifact_url:
        return []
    return [
        "",
        f"Full JSON plans and the capacity chart (`capacity.svg`): [plan artifact]({artifact_url})",
    ]


def pairs(values: dict[str, Any]) -> str:
    """`key=value, ...` of a resource's key inputs, an unknown value spelled as such."""
    return (
        ", ".join(
            f"{k}={'(known after apply)' if v is None else compact(v)}"
            for k, v in sorted(values.items())
        )
        or "-"
    )


def compact(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    if isinstance(value, bool):
        return json.dumps(value)
    return num(value)


def compact_or_dash(value: Any) -> str:
    return "-" if value is None else compact(value)
