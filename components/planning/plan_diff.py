"""What changes between two JSON plans (`nodepools diff BASE HEAD`, `plan --compare BASE`).

Pools are matched by name; for a changed pool every field that differs is listed with its
dotted path, before and after. Accelerators are compared per (resource, model), cost per
stack (hourly and monthly, both ends of the autoscaling range), recipes by where they are
placed, quota rows by (quotas, department, project, pool), and policy findings as a set:
only findings the base did not have are "new". The result is data (`diff_plans`) that the
JSON and Markdown outputs render; `changed` says whether anything differs at all.
"""

from __future__ import annotations

import json
from typing import Any

from nodepools.json_values import dig, is_dict
from nodepools.planning.pool_data import accelerator_totals

DIFF_SCHEMA_VERSION = 1
# Pool fields compared; `cost` is compared through the totals and the per-node price only,
# so that a price-table refresh shows as a price change, not as every pool changing shape.
POOL_FIELDS = (
    "component",
    "backend",
    "instance_types",
    "instance_selection",
    "capacity_types",
    "nodes",
    "limits",
    "accelerator",
    "labels",
    "taints",
    "scheduling",
    "cost.per_node_hour",
    "cost.basis",
)


def _child(path: str, key: str) -> str:
    # `labels["nodepools.dev/pool"]`, not `labels.nodepools.dev/pool`: a key with dots or
    # slashes is quoted, as the validation errors quote such keys.
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def _leaf_changes(before: Any, after: Any, path: str) -> list[dict[str, Any]]:
    """Dotted paths whose values differ; dicts are compared key by key, lists whole."""
    if is_dict(before) and is_dict(after):
        changes: list[dict[str, Any]] = []
        keys: set[str] = set(before) | set(after)
        for key in sorted(keys):
            changes += _leaf_changes(before.get(key), after.get(key), _child(path, key))
        return changes
    if before == after:
        return []
    return [{"field": path, "before": before, "after": after}]


def _accelerator_totals(pools: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    # The plan's own totals: every pool with an accelerator counts, Karpenter pools of
    # unknown sizes too (bounded by their limit, else unbounded).
    return {
        key: {k: total[k] for k in ("min", "max", "nodes_min", "nodes_max")}
        for key, total in accelerator_totals(pools).items()
    }


def _delta(before: float | None, after: float | None) -> float | None:
    if before is None or after is None:
        return None
    return round(after - before, 2)


def _accelerators(base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    before, after = _accelerator_totals(base["pools"]), _accelerator_totals(head["pools"])
    rows: list[dict[str, Any]] = []
    for key in sorted(set(before) | set(after)):
        zero = {"min": 0, "max": 0, "nodes_min": 0, "nodes_max": 0}
        b, a = before.get(key, zero), after.get(key, zero)
        if a == b:
            continue
        rows.append(
            {
                "resource": key[0],
                "model": key[1],
                "before": {"min": b["min"], "max": b["max"]},
                "after": {"min": a["min"], "max": a["max"]},
                "delta": {"min": _delta(b["min"], a["min"]), "max": _delta(b["max"], a["max"])},
                "nodes_delta": {
                    "min": _delta(b["nodes_min"], a["nodes_min"]),
                    "max": _delta(b["nodes_max"], a["nodes_max"]),
                },
            }
        )
    return rows


def _cost(base: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for period in ("hourly", "monthly"):
        b, a = base["cost"][period], head["cost"][period]
        out[period] = {
            "before": b,
            "after": a,
            "delta": {"min": _delta(b["min"], a["min"]), "max": _delta(b["max"], a["max"])},
        }
    out["unknown_price"] = head["cost"]["unknown_price"]
    return out


def _pools(base: dict[str, Any], head: dict[str, Any]) -> dict[str, list[Any]]:
    before = {p["name"]: p for p in base["pools"]}
    after = {p["name"]: p for p in head["pools"]}
    changed: list[dict[str, Any]] = []
    for name in sorted(set(before) & set(after)):
        fields: list[dict[str, Any]] = []
        for path in POOL_FIELDS:
            fields += _leaf_changes(dig(before[name], path), dig(after[name], path), path)
        if fields:
            changed.append({"name": name, "backend": after[name]["backend"], "changes": fields})

    def summary(pool: dict[str, Any]) -> dict[str, Any]:
        return {
            "name": pool["name"],
            "backend": pool["backend"],
            "instance_types": pool["instance_types"] or [pool.get("instance_selection")],
            "nodes": pool["nodes"],
            "accelerator": pool["accelerator"],
            "cost_hourly": pool["cost"].get("hourly"),
        }

    return {
        "added": [summary(after[n]) for n in sorted(set(after) - set(before))],
        "removed": [summary(before[n]) for n in sorted(set(before) - set(after))],
        "changed": changed,
    }


def _placement(base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    before = {r["name"]: r for r in base["placement"]["recipes"]}
    after = {r["name"]: r for r in head["placement"]["recipes"]}
    moves: list[dict[str, Any]] = []
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name), after.get(name)
        b_at = (b["pool"], b["status"]) if b else (None, "absent")
        a_at = (a["pool"], a["status"]) if a else (None, "absent")
        if b_at != a_at:
            moves.append(
                {
                    "recipe": name,
                    "before": {"pool": b_at[0], "status": b_at[1]},
                    "after": {"pool": a_at[0], "status": a_at[1]},
                }
            )
    return moves


def _quotas(base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    def key(row: dict[str, Any]) -> tuple[str, ...]:
        return (row["quotas"], row["department"], row["project"], row["pool"])

    before = {key(r): r for r in base["quotas"]}
    after = {key(r): r for r in head["quotas"]}
    rows: list[dict[str, Any]] = []
    for k in sorted(set(before) | set(after)):
        b, a = before.get(k), after.get(k)
        changes: list[dict[str, Any]] = []
        for field in ("nominal", "borrowing_limit", "queue"):
            changes += _leaf_changes(
                b.get(field) if b else None, a.get(field) if a else None, field
            )
        if changes:
            rows.append(
                {
                    "quotas": k[0],
                    "department": k[1],
                    "project": k[2],
                    "pool": k[3],
                    "change": "added" if b is None else "removed" if a is None else "changed",
                    "changes": changes,
                }
            )
    return rows


def _new_findings(base: dict[str, Any], head: dict[str, Any]) -> dict[str, list[Any]]:
    def key(f: dict[str, Any]) -> tuple[str, ...]:
        return (f["policy"], f["level"], f["resource"], f["message"])

    before = {key(f) for f in base["policy"]}
    after = {key(f) for f in head["policy"]}
    return {
        "new": [f for f in head["policy"] if key(f) not in before],
        "resolved": [f for f in base["policy"] if key(f) not in after],
    }


def _resources(base: dict[str, Any], head: dict[str, Any]) -> dict[str, list[str]]:
    before = {(r["type"], r["name"]): r for r in base["resources"]}
    after = {(r["type"], r["name"]): r for r in head["resources"]}
    return {
        "added": [f"{t} {n}" for t, n in sorted(set(after) - set(before))],
        "removed": [f"{t} {n}" for t, n in sorted(set(before) - set(after))],
        "changed": [
            f"{t} {n}"
            for t, n in sorted(set(after) & set(before))
            if after[(t, n)]["key_inputs"] != before[(t, n)]["key_inputs"]
        ],
    }


def diff_plans(base: dict[str, Any] | None, head: dict[str, Any]) -> dict[str, Any]:
    """The difference from `base` (None: the stack is new) to `head`, two plan documents of
    the same stack."""
    if base is None:
        base = _empty(head["stack"])
    pools = _pools(base, head)
    findings = _new_findings(base, head)
    diff: dict[str, Any] = {
        "stack": head["stack"],
        "status": {"before": base["status"], "after": head["status"]},
        "error": head.get("error"),
        "pools": pools,
        "accelerators": _accelerators(base, head),
        "cost": _cost(base, head),
        "placement_moves": _placement(base, head),
        "quota_changes": _quotas(base, head),
        "policy": findings,
        "resources": _resources(base, head),
    }
    diff["changed"] = bool(
        any(pools.values())
        or diff["accelerators"]
        or diff["placement_moves"]
        or diff["quota_changes"]
        or findings["new"]
        or findings["resolved"]
        or any(diff["resources"].values())
        or diff["status"]["before"] != diff["status"]["after"]
        or any(
            v["delta"] != {"min": 0, "max": 0}
            for k, v in diff["cost"].items()
            if k != "unknown_price"
        )
    )
    return diff


def diff_stacks(
    bases: dict[str, dict[str, Any]], heads: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The diff of several stacks (plan documents by stack name): one entry per stack of
    either side, a stack only in the base shows as removed."""
    stacks: list[dict[str, Any]] = []
    for name in sorted(set(bases) | set(heads)):
        head = heads.get(name)
        if head is None:
            diff = diff_plans(bases[name], _empty(name))
            diff["status"]["after"] = "removed"
            diff["changed"] = True
        else:
            diff = diff_plans(bases.get(name), head)
        stacks.append(diff)
    return {
        "schema_version": DIFF_SCHEMA_VERSION,
        "changed": any(s["changed"] for s in stacks),
        "stacks": stacks,
    }


def _empty(stack: str) -> dict[str, Any]:
    zero = {"min": 0, "max": 0}
    return {
        "stack": stack,
        "status": "absent",
        "error": None,
        "resources": [],
        "pools": [],
        "capacity": [],
        "cost": {"hourly": zero, "monthly": zero, "unknown_price": []},
        "placement": {"shared_pools": [], "recipes": []},
        "quotas": [],
        "policy": [],
    }
