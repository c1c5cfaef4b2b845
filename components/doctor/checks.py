"""All of doctor's checks over one plan and one snapshot of the cluster."""

from __future__ import annotations

from nodepools.doctor.device_checks import check_releases
from nodepools.doctor.expected import Expectations
from nodepools.doctor.findings import Finding, PoolStatus
from nodepools.doctor.live import LiveCluster
from nodepools.doctor.pending import check_pending_pods, check_workloads
from nodepools.doctor.pool_checks import check_pool
from nodepools.doctor.report import Report


def diagnose(plan: Expectations, live: LiveCluster, *, namespace: str | None = None) -> Report:
    statuses: list[PoolStatus] = []
    findings: list[Finding] = []
    for pool in plan.pools:
        status, found = check_pool(pool, live)
        statuses.append(status)
        findings += found
    findings += check_releases(plan, live)
    findings += check_pending_pods(plan, live, namespace)
    findings += check_workloads(plan, live, namespace)
    return Report(plan.stack, statuses, sorted(set(findings)))
