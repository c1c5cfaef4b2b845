"""The doctor's report: every pool's status and findings, then the pending pods and queued
workloads; as text for a terminal or JSON for scripts. Sorted, so the same cluster gives
the same report."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nodepools.doctor.findings import Finding, PoolStatus


@dataclass(frozen=True)
class Report:
    stack: str
    pools: Sequence[PoolStatus]
    findings: Sequence[Finding]

    @property
    def healthy(self) -> bool:
        return not self.findings

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "status": "healthy" if self.healthy else "findings",
            "pools": [p.as_json() for p in sorted(self.pools, key=lambda p: p.name)],
            "findings": [f.as_json() for f in sorted(self.findings)],
        }

    def json(self) -> str:
        return json.dumps(self.as_json(), indent=2, sort_keys=True) + "\n"

    def text(self) -> str:
        lines = [f"Doctor of stack {self.stack!r} against the live cluster"]
        by_pool: dict[str, list[Finding]] = {}
        for finding in sorted(self.findings):
            by_pool.setdefault(finding.pool, []).append(finding)
        for pool in sorted(self.pools, key=lambda p: p.name):
            bounds = f"{'' if pool.min_nodes is None else pool.min_nodes}..{'' if pool.max_nodes is None else pool.max_nodes}"
            head = f"pool {pool.name}: {len(pool.nodes)} nodes (plan {bounds})"
            if pool.nodeclaims is not None:
                head += f", {pool.nodeclaims} NodeClaims"
            if pool.limits:
                head += ", limits used " + ", ".join(
                    f"{r} {u}" for r, u in sorted(pool.limits.items())
                )
            if pool.advertised:
                head += ", advertising " + ", ".join(
                    f"{n} {r}" for r, n in sorted(pool.advertised.items())
                )
            own = by_pool.pop(pool.name, [])
            lines.append(f"{'!' if own else 'ok'} {head}")
            lines += [f"    {f.subject}: {f.message}" for f in own]
        rest = [f for findings in by_pool.values() for f in findings]
        if rest:
            lines.append("! not tied to one pool:")
            lines += [f"    {f.subject}: {f.message}" for f in sorted(rest)]
        count = len(self.findings)
        lines.append(
            "healthy: nothing differs from the plan"
            if not count
            else f"{count} finding{'s' if count != 1 else ''}"
        )
        return "\n".join(lines) + "\n"
