"""A finding: one thing in the cluster that differs from the plan, with where and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Finding:
    """`pool`: the pool it concerns ("" for none); `kind`: a stable short code (scripts
    match on it); `subject`: the object (`node/NAME`, `pod/NS/NAME`, ...); `message`: what is
    wrong and, where we know it, what to do."""

    pool: str
    kind: str
    subject: str
    message: str

    def as_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool or None,
            "kind": self.kind,
            "subject": self.subject,
            "message": self.message,
        }


@dataclass
class PoolStatus:
    """What doctor saw of one pool, findings or not (the report's healthy lines)."""

    name: str
    nodes: list[str] = field(default_factory=list[str])
    min_nodes: int | None = None
    max_nodes: int | None = None
    advertised: dict[str, int] = field(default_factory=dict[str, int])
    nodeclaims: int | None = None  # Karpenter pools: NodeClaims of its NodePool
    limits: dict[str, str] = field(default_factory=dict[str, str])  # Karpenter: "used/limit"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "nodes": sorted(self.nodes),
            "min": self.min_nodes,
            "max": self.max_nodes,
            "advertised": dict(sorted(self.advertised.items())),
            "nodeclaims": self.nodeclaims,
            "limits": dict(sorted(self.limits.items())),
        }
