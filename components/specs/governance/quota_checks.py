"""Checks of PoolQuotas' Kueue settings (`quota_options`) against the rest of the args: the
pools they name exist, the cohort tree they assume is there, the resources they govern are
covered, the names they give don't collide. Each issue has its path and quotes the value."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from nodepools.specs.core.base import Issue
from nodepools.specs.core.kube import CPU, MEMORY, kube_name
from nodepools.specs.governance.governed_pool import PoolDescription
from nodepools.specs.governance.quota_models import Amounts, Department, Project
from nodepools.specs.governance.quota_options import Cohorts, TopologyArgs
from pydantic import BaseModel


@dataclass(frozen=True)
class _Args:
    """What the checks read of PoolQuotasArgs (`reclaim`: only when written)."""

    pools: list[PoolDescription]
    departments: list[Department]
    cohorts: Cohorts
    organization: str | None
    reclaim: str | None
    covered_resources: list[str] | None
    topologies: list[TopologyArgs]

    def projects(self) -> Iterator[tuple[int, Department, int, Project]]:
        for d, department in enumerate(self.departments):
            for p, project in enumerate(department.projects):
                yield d, department, p, project


def option_issues(
    pools: list[PoolDescription],
    departments: list[Department],
    cohorts: Cohorts,
    organization: str | None,
    reclaim: str | None,
    covered_resources: list[str] | None,
    topologies: list[TopologyArgs],
) -> list[Issue]:
    """Every problem of the Kueue settings (`reclaim`: the value only when it was written)."""
    args = _Args(pools, departments, cohorts, organization, reclaim, covered_resources, topologies)
    issues = _cohort_issues(args) + _covered_issues(args) + _topology_issues(args)
    queues_seen: dict[tuple[str, str], str] = {}
    for d, _, p, project in args.projects():
        at = f"departments[{d}].projects[{p}]"
        issues += _project_issues(args, project, at)
        for q, (namespace, name) in enumerate(project.queues()):
            path = f"{at}.local_queues[{q}].name" if project.local_queues else f"{at}.name"
            if (namespace, name) in queues_seen:
                issues.append(
                    Issue(
                        path,
                        f"LocalQueue {namespace}/{name} is already made by "
                        f"`{queues_seen[(namespace, name)]}`",
                    )
                )
            queues_seen.setdefault((namespace, name), path)
    return issues


def _cohort_issues(args: _Args) -> list[Issue]:
    issues: list[Issue] = []
    if args.cohorts != "organization" and args.organization is not None:
        issues.append(
            Issue(
                "organization",
                f"{args.organization!r} names the root Cohort, which cohorts "
                f"{args.cohorts!r} doesn't make; use cohorts 'organization' or drop it",
            )
        )
    if args.cohorts == "departments":
        for d, department in enumerate(args.departments):
            if department.limit is not None:
                issues.append(
                    Issue(
                        f"departments[{d}].limit",
                        f"{department.limit.model_dump(exclude_none=True)!r}: with cohorts "
                        "'departments' a department borrows from no one, so nothing caps; "
                        "use cohorts 'organization'",
                    )
                )
    if args.cohorts != "none":
        return issues
    if args.reclaim is not None:
        issues.append(
            Issue(
                "reclaim",
                f"{args.reclaim!r}: with cohorts 'none' nothing is lent, so nothing is "
                "reclaimed; drop it, or use cohorts 'departments'",
            )
        )
    for d, department in enumerate(args.departments):
        if department.limit is not None:
            issues.append(
                Issue(
                    f"departments[{d}].limit",
                    f"{department.limit.model_dump(exclude_none=True)!r}: with cohorts 'none' "
                    "there is no department Cohort to cap; use cohorts 'departments'",
                )
            )
        for p, project in enumerate(department.projects):
            if "over_quota" in project.model_fields_set and project.over_quota is not True:
                issues.append(
                    Issue(
                        f"departments[{d}].projects[{p}].over_quota",
                        f"{_shown(project.over_quota)}: with cohorts 'none' a ClusterQueue "
                        "has no cohort to borrow from (Kueue refuses a borrowingLimit "
                        "without one); drop it, or use cohorts 'departments'",
                    )
                )
    return issues


def _shown(value: object) -> str:
    return repr(value.model_dump(exclude_none=True) if isinstance(value, BaseModel) else value)


def _accelerators(args: _Args) -> list[str]:
    return sorted({pool.gpu_resource for pool in args.pools})


def _covered_issues(args: _Args) -> list[Issue]:
    if args.covered_resources is None:
        return []
    issues: list[Issue] = []
    governed = [CPU, MEMORY, *_accelerators(args)]
    for i, resource in enumerate(args.covered_resources):
        if resource not in governed:
            issues.append(
                Issue(
                    f"covered_resources[{i}]",
                    f"{resource!r} is not a resource PoolQuotas governs ({', '.join(governed)})"
                    "; a queue over other resources is KueueQueues'",
                )
            )
        elif resource in args.covered_resources[:i]:
            issues.append(Issue(f"covered_resources[{i}]", f"{resource!r} is listed twice"))
    covered = set(args.covered_resources)
    pools = {pool.name: pool for pool in args.pools}
    for d, department in enumerate(args.departments):
        named: list[tuple[str, Amounts | None, str | None]] = [
            (f"departments[{d}].limit", department.limit, None)
        ]
        for p, project in enumerate(department.projects):
            at = f"departments[{d}].projects[{p}]"
            named += [(f"{at}.quotas.{n}", amounts, n) for n, amounts in project.quotas.items()]
            if not isinstance(project.over_quota, bool):
                named.append((f"{at}.over_quota", project.over_quota, None))
        for path, amounts, pool_name in named:
            if amounts is None:
                continue
            for resource, _ in amounts.items():
                pool = pools.get(pool_name) if pool_name else None
                if resource == "gpu":
                    needed = [pool.gpu_resource] if pool else _accelerators(args)
                else:
                    needed = [resource]
                missing = [r for r in needed if r not in covered]
                if missing:
                    issues.append(
                        Issue(
                            f"{path}.{resource}",
                            f"{resource} is set, but {missing[0]!r} is not in "
                            f"covered_resources {args.covered_resources!r}: add it, or drop "
                            "the amount",
                        )
                    )
    return issues


def _pool_names(args: _Args) -> set[str]:
    return {pool.name for pool in args.pools}


def _unknown_pool(path: str, name: str, args: _Args) -> Issue:
    known = ", ".join(repr(pool.name) for pool in args.pools)
    return Issue(path, f"unknown pool {name!r} (pools: {known})")


def _topology_issues(args: _Args) -> list[Issue]:
    issues: list[Issue] = []
    names: dict[str, int] = {}
    pools_seen: dict[str, str] = {}
    for t, topology in enumerate(args.topologies):
        mapped = kube_name(topology.name)
        if mapped in names:
            issues.append(
                Issue(
                    f"topologies[{t}].name",
                    f"{topology.name!r} names the same Topology as `topologies[{names[mapped]}]`",
                )
            )
        names.setdefault(mapped, t)
        for level, key in enumerate(topology.levels):
            if key in topology.levels[:level]:
                issues.append(Issue(f"topologies[{t}].levels[{level}]", f"{key!r} is listed twice"))
        for i, pool in enumerate(topology.pools):
            path = f"topologies[{t}].pools[{i}]"
            if pool not in _pool_names(args):
                issues.append(_unknown_pool(path, pool, args))
            elif pool in pools_seen:
                issues.append(
                    Issue(path, f"pool {pool!r} already has topology `{pools_seen[pool]}`")
                )
            pools_seen.setdefault(pool, f"topologies[{t}]")
    return issues


def _project_issues(args: _Args, project: Project, at: str) -> list[Issue]:
    issues: list[Issue] = []
    known = _pool_names(args)
    listed = project.pool_order if project.pool_order is not None else sorted(known)
    if project.pool_order is not None:
        for i, pool in enumerate(project.pool_order):
            if pool not in known:
                issues.append(_unknown_pool(f"{at}.pool_order[{i}]", pool, args))
            elif pool in project.pool_order[:i]:
                issues.append(Issue(f"{at}.pool_order[{i}]", f"{pool!r} is listed twice"))
        if not project.pool_order:
            issues.append(Issue(f"{at}.pool_order", "[]: the queue must list a pool"))
        for pool in project.quotas:
            if pool in known and pool not in project.pool_order:
                issues.append(
                    Issue(
                        f"{at}.quotas.{pool}",
                        f"quota on pool {pool!r}, which pool_order "
                        f"{project.pool_order!r} leaves out of the project's queue",
                    )
                )
    for c, check in enumerate(project.admission_checks):
        for i, pool in enumerate(check.on_pools or []):
            if pool not in known:
                issues.append(
                    _unknown_pool(f"{at}.admission_checks[{c}].on_pools[{i}]", pool, args)
                )
            elif pool not in listed:
                issues.append(
                    Issue(
                        f"{at}.admission_checks[{c}].on_pools[{i}]",
                        f"pool {pool!r} is not in the project's queue (pool_order)",
                    )
                )
    if project.local_queues == []:
        issues.append(Issue(f"{at}.local_queues", "[]: the project needs a LocalQueue"))
    concurrent = project.concurrent_admission
    if concurrent is not None and concurrent.last_acceptable_pool is not None:
        path = f"{at}.concurrent_admission.last_acceptable_pool"
        pool = concurrent.last_acceptable_pool
        if concurrent.mode != "TryPreferredFlavors":
            issues.append(
                Issue(
                    path,
                    f"{pool!r} is only read with mode 'TryPreferredFlavors' (mode is "
                    f"{concurrent.mode!r})",
                )
            )
        elif pool not in known:
            issues.append(_unknown_pool(path, pool, args))
        elif pool not in listed:
            issues.append(Issue(path, f"pool {pool!r} is not in the project's queue (pool_order)"))
    return issues
