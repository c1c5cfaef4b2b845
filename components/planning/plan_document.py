"""The plan as data: `nodepools plan --format json`, input of `nodepools diff` and of the
Markdown pull-request comment.

The document's shape is fixed by `plan.schema.json` beside this module (`schema_version`
says which); tests validate every example stack's document against it. Everything is read
from what the components registered (their `spec` inputs and outputs, their children's
inputs), so a plan of the same program and config is the same document, byte for byte:
lists are sorted, numbers are whole where they are whole, nothing carries a time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from nodepools.json_values import dig
from nodepools.offline import Capture, CapturedResource
from nodepools.planning.pool_data import capacity_rows, pool_data, total_cost
from nodepools.planning.report import whole_numbers
from nodepools.planning.sections import KEY_INPUTS, pool_components


class PlanOutcome(Protocol):
    """What a document is made of (`nodepools.planning.PlanResult` is one)."""

    @property
    def stack(self) -> str: ...
    @property
    def capture(self) -> Capture | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def ok(self) -> bool: ...


SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).parent / "plan.schema.json"
SECRET = "[secret]"  # what a secret input shows as: never its value


def _resource(resource: CapturedResource, names: dict[str, str]) -> dict[str, Any]:
    key: dict[str, Any] = {}
    if resource.type.startswith("kubernetes:"):
        meta: dict[str, Any] = resource.inputs.get("metadata") or {}
        for field in ("namespace", "name"):
            if meta.get(field) is not None:
                key[field] = meta[field]
    for path in KEY_INPUTS.get(resource.type, ()):
        if path in resource.unknown_paths:
            key[path] = None
        elif any(path == s or path.startswith(f"{s}.") for s in resource.secret_paths):
            key[path] = SECRET
        else:
            value = dig(resource.inputs, path)
            if value is not None:
                key[path] = whole_numbers(value)
    return {
        "type": resource.type,
        "name": resource.name,
        "parent": names.get(resource.parent or ""),
        "custom": resource.custom,
        "key_inputs": key,
        "known_after_apply": sorted(resource.unknown_paths),
    }


def _quotas(capture: Capture) -> list[dict[str, Any]]:
    from nodepools.planning.governance_section import QUOTAS_TYPE

    rows: list[dict[str, Any]] = []
    for component in sorted(capture.components(QUOTAS_TYPE), key=lambda c: c.name):
        spec: dict[str, Any] = whole_numbers(component.inputs.get("spec") or {})
        for row in spec.get("quotas") or ():
            rows.append(
                {
                    "quotas": component.name,
                    "department": row["department"],
                    "project": row["project"],
                    "queue": f"{row['namespace']}/{row['queue']}",
                    "pool": row["pool"],
                    "nominal": row["nominal"],
                    "borrowing_limit": row["borrowingLimit"],
                }
            )
    return sorted(rows, key=lambda r: (r["quotas"], r["department"], r["project"], r["pool"]))


def plan_document(result: PlanOutcome) -> dict[str, Any]:
    """The JSON document of a plan (see plan.schema.json)."""
    from nodepools.planning.devices_section import device_rows
    from nodepools.planning.outputs_section import stack_outputs
    from nodepools.planning.placement_section import placement_data
    from nodepools.planning.policy_section import policy_findings
    from nodepools.planning.validation_section import validation_findings

    capture = result.capture
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "stack": result.stack,
        "status": "error" if result.error else "ok" if result.ok else "failed",
        "error": result.error,
    }
    if result.error or capture is None:
        return document | {
            "resources": [],
            "pools": [],
            "capacity": [],
            "cost": total_cost([]),
            "placement": {"shared_pools": [], "recipes": []},
            "quotas": [],
            "validation": {"checked": 0, "violations": []},
            "policy": [],
            "outputs": {"values": {}, "secret": [], "known_after_apply": []},
        }
    names = {r.urn: f"{r.type} {r.name}" for r in capture.resources}
    resources = sorted(
        (_resource(r, names) for r in capture.resources), key=lambda r: (r["type"], r["name"])
    )
    pools = [pool_data(capture, p) for p in pool_components(capture)]
    checked, violations = validation_findings(capture)
    return document | {
        "resources": resources,
        "pools": pools,
        "capacity": capacity_rows(pools),
        "cost": total_cost(pools),
        "placement": placement_data(capture),
        "quotas": _quotas(capture),
        "devices": device_rows(capture),
        "validation": {"checked": checked, "violations": violations},
        "policy": policy_findings(capture),
        "outputs": stack_outputs(capture),
    }


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(whole_numbers(document), indent=2, sort_keys=True) + "\n"
