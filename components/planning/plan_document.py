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
from nodepools.planning.report import whole_numbers
from nodepools.planning.sections import KEY_INPUTS, pool_components
from nodepools.specs.catalog.pool_cost import PoolCost, karpenter_nodes, pool_cost, priced_as_spot
from nodepools.specs.catalog.prices import HOURS_PER_MONTH, price_sources


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
OKE_NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"


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


def _catalog_type(name: object) -> str | None:
    from nodepools.specs.catalog.instance_types import instance_type

    return name if isinstance(name, str) and instance_type(name) is not None else None


def _flex_size(capture: Capture, pool: CapturedResource) -> tuple[float | None, float | None]:
    for child in capture.descendants(pool.urn):
        if child.type == OKE_NODE_POOL:
            config: dict[str, Any] = child.inputs.get("nodeShapeConfig") or {}
            return config.get("ocpus"), config.get("memoryInGbs")
    return None, None


def _cost(cost: PoolCost) -> dict[str, Any]:
    if cost.reason is not None:
        return {"known": False, "reason": cost.reason}
    assert cost.cheapest is not None and cost.dearest is not None  # priced
    price = cost.dearest
    return {
        "known": True,
        "basis": price.basis,
        "per_node_hour": {"min": cost.cheapest.hourly, "max": price.hourly},
        "hourly": {"min": cost.hourly_min, "max": cost.hourly_max},
        "monthly": {
            "min": cost.hourly(cost.min_nodes, cost.cheapest, HOURS_PER_MONTH),
            "max": cost.hourly(cost.max_nodes, price, HOURS_PER_MONTH),
        },
        "source": price.source,
        "as_of": price.as_of,
        "region": price.region,
    }


def _pool(capture: Capture, pool: CapturedResource) -> dict[str, Any]:
    spec: dict[str, Any] = whole_numbers(pool.inputs.get("spec") or {})
    outputs = capture.outputs_of(pool)
    backend = spec.get("clusterKind", "?")
    named = spec.get("instanceTypes") or [spec.get("instanceType")]
    types = [t for t in (_catalog_type(name) for name in named) if t]
    selection = None if types else spec.get("instanceType")
    if "capacityTypes" in spec:
        capacity_types = sorted(spec["capacityTypes"])
    elif spec.get("capacityReservation"):
        # An On-Demand Capacity Reservation is billed as on-demand; a Capacity Block is paid
        # up front (see pool_cost).
        capacity_types = ["reserved"]
    else:
        capacity_types = ["spot"] if spec.get("spot") else ["on-demand"]
    spot = priced_as_spot(capacity_types)
    if "minNodes" in spec:
        low, high = int(spec["minNodes"]), int(spec["maxNodes"])
    else:  # Karpenter: a static pool's replicas, or from zero up to what its limits allow
        low, high = karpenter_nodes(spec.get("replicas"), spec.get("limits"), types)
    resource = spec.get("acceleratorResource")
    per_node = spec.get("acceleratorsPerNode") if resource else None
    accelerator = (
        {"resource": resource, "model": spec.get("acceleratorModel"), "per_node": per_node}
        if resource
        else None
    )
    size = _flex_size(capture, pool) if backend == "oke" else (None, None)
    return {
        "name": spec.get("poolName", pool.name),
        "component": pool.type.rsplit(":", 1)[-1],
        "resource_name": pool.name,
        "backend": backend,
        "instance_types": types,
        "instance_selection": selection,
        "capacity_types": capacity_types,
        "nodes": {"min": low, "max": high, "autoscaled": bool(spec.get("autoscaled", high != low))},
        "limits": spec.get("limits"),
        "accelerator": accelerator,
        "accelerators": None
        if accelerator is None or per_node is None
        else {"min": low * per_node, "max": None if high is None else high * per_node},
        "labels": spec.get("labels") or {},
        "taints": sorted(spec.get("taints") or []),
        "scheduling": whole_numbers(outputs.get("scheduling_info")),
        "cost": _cost(
            pool_cost(
                types,
                spot=spot,
                min_nodes=low,
                max_nodes=high,
                ocpus=size[0],
                memory_gb=size[1],
                capacity_block=spec.get("capacityReservation") == "capacity_block",
            )
        ),
    }


def _capacity(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accelerators per (resource, model), summed over pools; max is None when a pool of
    that model has no upper bound."""
    totals: dict[tuple[str, str], dict[str, Any]] = {}
    for pool in pools:
        accelerator, count = pool["accelerator"], pool["accelerators"]
        if accelerator is None:
            continue
        key = (accelerator["resource"], accelerator["model"] or "?")
        entry = totals.setdefault(
            key,
            {"resource": key[0], "model": key[1], "min": 0, "max": 0, "spot_max": 0, "pools": []},
        )
        entry["pools"].append(pool["name"])
        if count is None:
            entry["max"] = None
            continue
        entry["min"] += count["min"]
        if entry["max"] is not None:
            entry["max"] = None if count["max"] is None else entry["max"] + count["max"]
        if "spot" in pool["capacity_types"] and count["max"] is not None:
            entry["spot_max"] += count["max"]
    return [totals[key] for key in sorted(totals)]


def _total_cost(pools: list[dict[str, Any]]) -> dict[str, Any]:
    known = [p for p in pools if p["cost"]["known"]]
    unbounded = [p["name"] for p in known if p["cost"]["hourly"]["max"] is None]
    hourly_min = round(sum(p["cost"]["hourly"]["min"] for p in known), 2)
    hourly_max = None if unbounded else round(sum(p["cost"]["hourly"]["max"] for p in known), 2)
    return {
        "currency": "USD",
        "hourly": {"min": hourly_min, "max": hourly_max},
        "monthly": {
            "min": round(hourly_min * HOURS_PER_MONTH, 2),
            "max": None if hourly_max is None else round(hourly_max * HOURS_PER_MONTH, 2),
        },
        "unknown_price": sorted(p["name"] for p in pools if not p["cost"]["known"]),
        "unbounded": sorted(unbounded),
        "sources": price_sources(),
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
            "cost": _total_cost([]),
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
    pools = [_pool(capture, p) for p in pool_components(capture)]
    checked, violations = validation_findings(capture)
    return document | {
        "resources": resources,
        "pools": pools,
        "capacity": _capacity(pools),
        "cost": _total_cost(pools),
        "placement": placement_data(capture),
        "quotas": _quotas(capture),
        "devices": device_rows(capture),
        "validation": {"checked": checked, "violations": violations},
        "policy": policy_findings(capture),
        "outputs": stack_outputs(capture),
    }


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(whole_numbers(document), indent=2, sort_keys=True) + "\n"
