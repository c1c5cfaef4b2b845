"""The stack's outputs (`pulumi.export`), as `pulumi preview` lists them: secret values
shown as `[secret]`, values known only after apply as such."""

from __future__ import annotations

import json
from typing import Any, cast

import yaml
from nodepools.offline import Capture
from nodepools.planning.report import Section, whole_numbers
from nodepools.specs.core.base import format_path

SECRET = "[secret]"  # as the plan's key inputs show a secret
KNOWN_AFTER_APPLY = "(known after apply)"


def _masked(value: Any, loc: tuple[Any, ...], secret: set[str], unknown: set[str]) -> Any:
    path = format_path(loc)
    if path in secret:
        return SECRET
    if path in unknown:
        return None
    if isinstance(value, dict):
        mapping = cast("dict[str, Any]", value)
        return {k: _masked(v, (*loc, k), secret, unknown) for k, v in sorted(mapping.items())}
    if isinstance(value, list):
        items = cast("list[Any]", value)
        return [_masked(v, (*loc, i), secret, unknown) for i, v in enumerate(items)]
    return value


def stack_outputs(capture: Capture) -> dict[str, Any]:
    """`values` (secrets as `[secret]`, unknowns as null), and the paths of the `secret`
    and `known_after_apply` ones."""
    secret, unknown = capture.stack_output_secrets, capture.stack_output_unknowns
    values = {
        name: _masked(value, (name,), secret, unknown)
        for name, value in sorted(capture.stack_outputs.items())
    }
    return {
        "values": whole_numbers(values),
        "secret": sorted(secret),
        "known_after_apply": sorted(unknown),
    }


def outputs_section(capture: Capture) -> Section | None:
    outputs = stack_outputs(capture)
    if not outputs["values"]:
        return None
    section = Section("Stack outputs")
    for name, value in outputs["values"].items():
        if value is None and name in outputs["known_after_apply"]:
            value = KNOWN_AFTER_APPLY
        if isinstance(value, dict | list) and value:
            text = yaml.safe_dump(value, default_flow_style=False, sort_keys=True, width=100)
            section.lines.append(f"{name}:")
            section.lines.extend(f"  {line}" for line in text.rstrip().splitlines())
        else:
            text = value if isinstance(value, str) else json.dumps(value)
            section.lines.append(f"{name}: {text}")
    return section
