"""What a pool costs per hour across its autoscaling range: one function for the plan's cost
estimate and the policy pack's `pool-hourly-budget`, so both price the same pools the same
way and say the same thing about the ones they can't price.

Inputs are what both can read: the instance types, whether the pool buys spot only, the
node range, an OKE flexible shape's OCPUs and memory, and a Karpenter pool's `limits`
(which bound its node count when it names one instance type).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nodepools.specs.catalog.prices import NodePrice, node_price
from nodepools.validation.quantity import InvalidQuantity, parse_quantity

SPOT = "spot"
CAPACITY_BLOCK = "capacity-block"  # an EC2 Capacity Block for ML, as a capacity type


@dataclass(frozen=True)
class PoolCost:
    """USD per hour of a pool at both ends of its range, or why it has no price.

    `cheapest` prices `min_nodes` (a mix costs at least its cheapest type per node),
    `dearest` prices `max_nodes`; `max_nodes` None is unbounded (no hourly maximum)."""

    reason: str | None  # set when the pool is unpriced: "unknown price: ..."
    cheapest: NodePrice | None = None
    dearest: NodePrice | None = None
    min_nodes: int = 0
    max_nodes: int | None = None

    @property
    def known(self) -> bool:
        return self.reason is None

    def hourly(self, nodes: int | None, price: NodePrice | None, hours: int = 1) -> float | None:
        if nodes is None or price is None:
            return None
        return round(price.hourly * nodes * hours, 2)

    @property
    def hourly_min(self) -> float | None:
        return self.hourly(self.min_nodes, self.cheapest)

    @property
    def hourly_max(self) -> float | None:
        return self.hourly(self.max_nodes, self.dearest)


def priced_as_spot(capacity_types: Iterable[str]) -> bool:
    """A pool is priced at spot rates only when spot is all it can buy: one that may also
    launch on-demand nodes is priced at on-demand rates, its dearer case."""
    return set(capacity_types) == {SPOT}


def pool_cost(
    instance_types: Iterable[str],
    *,
    spot: bool,
    min_nodes: int,
    max_nodes: int | None,
    ocpus: float | None = None,
    memory_gb: float | None = None,
    capacity_block: bool = False,
) -> PoolCost:
    if capacity_block:
        # Bought up front for a fixed term at a price set when it is bought, which no list
        # has: pricing it on demand would be a guess presented as a fact.
        return PoolCost(
            "unknown price: a Capacity Block is paid up front for its term, not per node-hour"
        )
    types = list(instance_types)
    if not types:
        return PoolCost("unknown price: no instance type named")
    prices = [node_price(t, spot=spot, ocpus=ocpus, memory_gb=memory_gb) for t in types]
    missing = [t for t, p in zip(types, prices, strict=True) if p is None]
    if missing:
        kind = "spot " if spot else ""
        flexible = (
            " (a flexible shape is priced by its OCPUs and memory)"
            if any(t.endswith(".Flex") for t in missing) and (ocpus is None or memory_gb is None)
            else ""
        )
        return PoolCost(f"unknown price: no {kind}price for {', '.join(missing)}{flexible}")
    known = [p for p in prices if p is not None]
    return PoolCost(
        None,
        cheapest=min(known, key=lambda p: p.hourly),
        dearest=max(known, key=lambda p: p.hourly),
        min_nodes=min_nodes,
        max_nodes=max_nodes,
    )


def _number(value: Any) -> float | None:
    try:
        return float(parse_quantity(value))
    except InvalidQuantity:
        return None


def karpenter_max_nodes(limits: Mapping[str, Any] | None, instance_type: str | None) -> int | None:
    """How many nodes of `instance_type` a Karpenter pool's `limits` allow: the tightest of
    `nodes` and each limit on a resource the type has. None when unbounded or not
    computable (no limits, or not one known instance type)."""
    from nodepools.specs.catalog.instance_types import instance_type as facts_of

    if not limits:
        return None
    bounds: list[int] = []
    nodes = _number(limits.get("nodes")) if "nodes" in limits else None
    if nodes is not None:
        bounds.append(int(nodes))
    facts = facts_of(instance_type) if instance_type else None
    if facts is None:
        return min(bounds) if bounds else None
    per_node: dict[str, float] = {}
    if facts.vcpus:
        per_node["cpu"] = facts.vcpus
    if facts.memory_mib:
        per_node["memory"] = facts.memory_mib * 1024 * 1024
    if facts.accelerator is not None:
        per_node[facts.accelerator.resource] = facts.accelerator.count
    for resource, value in limits.items():
        limit = _number(value)
        if resource in per_node and per_node[resource] > 0 and limit is not None:
            bounds.append(int(limit // per_node[resource]))
    return min(bounds) if bounds else None


def karpenter_nodes(
    replicas: float | None, limits: Mapping[str, Any] | None, instance_types: Sequence[str]
) -> tuple[int, int | None]:
    """A Karpenter pool's node range: a static pool's `replicas`, else from zero up to what
    its limits allow (None: unbounded or not computable)."""
    if replicas is not None:
        return int(replicas), int(replicas)
    single = instance_types[0] if len(instance_types) == 1 else None
    return 0, karpenter_max_nodes(limits, single)
