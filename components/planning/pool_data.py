"""Each pool as the plan reports it, and the totals over pools: one source for the text
plan's Capacity section, the JSON plan, its Markdown comment and the diff, so that they
never disagree (a Karpenter pool's GPU bound, a pool's range, the cost totals).

Read from what the pool components registered (their `spec` input and outputs).
Accelerators: the hardware's (`accelerator`, `accelerators`: min..max over the pool's
range, bounded by a Karpenter pool's limit on the resource); `advertised`: what one node
offers instead once device software cuts its accelerators (MIG slices, time slicing).
"""

from __future__ import annotations

import math
from typing import Any

from nodepools.offline import Capture, CapturedResource
from nodepools.planning.report import whole_numbers
from nodepools.specs.catalog.pool_cost import PoolCost, karpenter_nodes, pool_cost, priced_as_spot
from nodepools.specs.catalog.prices import HOURS_PER_MONTH, price_sources
from nodepools.validation.quantity import InvalidQuantity, parse_quantity

OKE_NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"


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


def _limit(limits: dict[str, Any] | None, resource: str) -> float | None:
    """A Karpenter pool's limit on `resource`, as a number (None: no limit)."""
    if not limits or resource not in limits:
        return None
    try:
        return float(parse_quantity(limits[resource]))
    except InvalidQuantity:
        return None


def _accelerators(
    low: int, high: int | None, per_node: float | None, limit: float | None
) -> dict[str, Any]:
    """Accelerators at both ends of the range: `per_node` each, never above `limit` (a
    Karpenter pool's limit on the resource bounds them even when its node count isn't
    known); min None when not known, max None when unbounded."""
    least = 0 if low == 0 else None if per_node is None else low * per_node
    most = None if high is None or per_node is None else high * per_node
    if limit is not None:
        most = limit if most is None else min(most, limit)
    return {"min": least, "max": None if most is None else whole_numbers(most)}


def pool_data(capture: Capture, pool: CapturedResource) -> dict[str, Any]:
    """A pool as the JSON plan has it (see plan.schema.json, `pools`)."""
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
    offered: dict[str, Any] = spec.get("advertised") or {}
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
        if resource is None
        else _accelerators(low, high, per_node, _limit(spec.get("limits"), resource)),
        "advertised": [{"resource": k, "count": v} for k, v in sorted(offered.items())] or None,
        "labels": spec.get("labels") or {},
        "taints": sorted(spec.get("taints") or []),
        "scheduling": whole_numbers(outputs.get("scheduling_info")),
        "cost": _cost(
            pool_cost(
                # A managed pool's type the catalog lacks is still named: "no price for it".
                types or [n for n in named if isinstance(n, str) and "minNodes" in spec],
                spot=spot,
                min_nodes=low,
                max_nodes=high,
                ocpus=size[0],
                memory_gb=size[1],
                capacity_block=spec.get("capacityReservation") == "capacity_block",
            )
        ),
    }


def accelerator_totals(pools: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Accelerators and nodes per (resource, model), summed over the pools that have them:
    a min not known counts as 0 (`min_known` says so), an unbounded max makes the total
    unbounded (None)."""
    totals: dict[tuple[str, str], dict[str, Any]] = {}
    for pool in pools:
        accelerator = pool.get("accelerator")
        if not accelerator:
            continue
        count = pool.get("accelerators") or {"min": None, "max": None}
        key = (accelerator["resource"], accelerator.get("model") or "?")
        entry = totals.setdefault(
            key,
            {"min": 0, "max": 0, "spot_max": 0, "pools": [], "nodes_min": 0, "nodes_max": 0},
        )
        entry["pools"].append(pool["name"])
        entry["min"] += count["min"] or 0
        entry["max"] = _plus(entry["max"], count["max"])
        entry["nodes_min"] += pool["nodes"]["min"]
        entry["nodes_max"] = _plus(entry["nodes_max"], pool["nodes"]["max"])
        if "spot" in pool["capacity_types"] and count["max"] is not None:
            entry["spot_max"] += count["max"]
    return totals


def _plus(total: float | None, value: float | None) -> float | None:
    return None if total is None or value is None else total + value


def capacity_rows(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accelerators per (resource, model), summed over pools; max is None when a pool of
    that model has no upper bound."""
    totals = accelerator_totals(pools)
    return [
        {
            "resource": key[0],
            "model": key[1],
            **{k: totals[key][k] for k in ("min", "max", "spot_max", "pools")},
        }
        for key in sorted(totals)
    ]


def total_cost(pools: list[dict[str, Any]]) -> dict[str, Any]:
    """Cost of the priced pools at both ends of their ranges: summed from each pool's exact
    figures (price x nodes) and rounded once, so a total is never off by the rounding of
    its parts."""
    known = [p for p in pools if p["cost"]["known"]]
    unbounded = [p["name"] for p in known if p["cost"]["hourly"]["max"] is None]
    hourly_min = math.fsum(p["cost"]["per_node_hour"]["min"] * p["nodes"]["min"] for p in known)
    hourly_max = (
        None
        if unbounded
        else math.fsum(p["cost"]["per_node_hour"]["max"] * p["nodes"]["max"] for p in known)
    )
    return {
        "currency": "USD",
        "hourly": {"min": round(hourly_min, 2), "max": _rounded(hourly_max)},
        "monthly": {
            "min": round(hourly_min * HOURS_PER_MONTH, 2),
            "max": _rounded(None if hourly_max is None else hourly_max * HOURS_PER_MONTH),
        },
        "unknown_price": sorted(p["name"] for p in pools if not p["cost"]["known"]),
        "unbounded": sorted(unbounded),
        "sources": price_sources(),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
