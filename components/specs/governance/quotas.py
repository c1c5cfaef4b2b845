"""Args of PoolQuotas: Run:ai-style departments -> projects -> per-pool quotas.

Checked here, with paths, before anything is rendered: unknown pools, quotas that add
up to more than a pool holds, names that collide once mapped to Kubernetes names, and
pools Kueue could not tell apart (see `PoolQuotasArgs`). The settings that turn our Kueue
opinions off (cohorts, covered resources, LocalQueues, namespace selectors, pool order,
admission checks, topologies, ...) are described in `quota_options`, checked in
`quota_checks`.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from nodepools.specs.core.base import (
    Issue,
    NestedIssues,
    SpecModel,
    format_path,
)
from nodepools.specs.core.kube import ObjectName, display_quantity, kube_name
from nodepools.specs.governance.governed_pool import GovernedPool, PoolDescription
from nodepools.specs.governance.quota_checks import option_issues
from nodepools.specs.governance.quota_models import (
    QUOTA_RESOURCES,
    Amounts,
    Department,
    OverQuota,
    Project,
    Reclaim,
)
from nodepools.specs.governance.quota_options import Cohorts, TopologyArgs
from pydantic import Field, model_validator

__all__ = [
    "QUOTA_RESOURCES",
    "Amounts",
    "Department",
    "OverQuota",
    "PoolQuotasArgs",
    "Project",
    "Reclaim",
]

# A ClusterQueue resource group holds at most 64 flavors (Kueue v1beta2 CRD), and every
# project's queue lists every pool.
MAX_POOLS = 64
HARD_TAINT_EFFECTS = ("NoSchedule", "NoExecute")


class PoolQuotasArgs(SpecModel):
    """Args of `PoolQuotas`."""

    pools: list[GovernedPool] = Field(
        min_length=1,
        description="Pools: pool components or descriptions {name, node_labels, taints, "
        "gpus, cpu, memory}. A pool named `default` stands for the nodes in no other pool. "
        "Required.",
    )
    departments: list[Department] = Field(
        default_factory=list[Department],
        description="Departments with their projects; default [] (the pools' "
        "ResourceFlavors only).",
    )
    reclaim: Reclaim | None = Field(
        default="Any",
        description="How an owner takes lent capacity back (ClusterQueue "
        "`preemption.reclaimWithinCohort`): `Any` preempts any borrower, `LowerPriority` "
        "only lower-priority ones, `Never` waits; None writes no `preemption` (Kueue's "
        "default, `Never`). Default `Any`.",
    )
    cohorts: Cohorts = Field(
        default="organization",
        description="The cohort tree: `organization` (a root Cohort joins the department "
        "Cohorts: idle quota is lent across departments), `departments` (each department's "
        "projects share its cohort, by name only: no Cohort objects, no `limit`), `none` "
        "(no cohort: nothing is lent or borrowed). Default `organization`.",
    )
    covered_resources: list[str] | None = Field(
        default=None,
        description="The resources every ClusterQueue covers, in order (each `cpu`, "
        "`memory` or a pool's accelerator resource). Default None (`cpu` and `memory` when "
        "a quota names them, then every pool's accelerator resource).",
    )
    topologies: list[TopologyArgs] = Field(
        default_factory=list[TopologyArgs],
        description="Topologies `[{name, levels, pools}]` for topology-aware scheduling: "
        "each a Topology object, named as `topologyName` by the ResourceFlavors of its "
        "pools. Default [].",
    )
    create_namespaces: bool = Field(
        default=True, description="Create the projects' Namespaces; default true."
    )
    organization: ObjectName | None = Field(
        default=None,
        description="Name of the root Cohort that joins the departments (so idle capacity "
        "is lent across them); default the component name.",
    )

    @model_validator(mode="after")
    def _consistent(self) -> PoolQuotasArgs:
        issues = [*_pool_issues(self.pools), *_name_issues(self.departments)]
        issues += _quota_issues(self.pools, self.departments)
        issues += option_issues(
            self.pools,
            self.departments,
            self.cohorts,
            self.organization,
            self.reclaim if "reclaim" in self.model_fields_set else None,
            self.covered_resources,
            self.topologies,
        )
        if issues:
            raise NestedIssues(issues)
        return self

    def projects(self) -> Iterator[tuple[int, Department, int, Project]]:
        for d, department in enumerate(self.departments):
            for p, project in enumerate(department.projects):
                yield d, department, p, project


def _pool_issues(pools: list[PoolDescription]) -> list[Issue]:
    issues: list[Issue] = []
    if len(pools) > MAX_POOLS:
        issues.append(
            Issue(
                "pools",
                f"{len(pools)} pools; a Kueue ClusterQueue resource group holds at most "
                f"{MAX_POOLS} flavors (one per pool)",
            )
        )
    seen: dict[str, int] = {}
    for i, pool in enumerate(pools):
        mapped = kube_name(pool.name)
        if mapped in seen:
            issues.append(
                Issue(
                    f"pools[{i}].name",
                    f"{pool.name!r} names the same ResourceFlavor ({mapped!r}) as "
                    f"`pools[{seen[mapped]}]`",
                )
            )
        seen.setdefault(mapped, i)
    # A pool without node labels stands for the nodes in no other pool (as `default` does):
    # its ResourceFlavor pins its pods nowhere, so there can be only one.
    unlabelled = [i for i, pool in enumerate(pools) if not pool.node_labels]
    for i in unlabelled[1:]:
        first = pools[unlabelled[0]].name
        issues.append(
            Issue(
                f"pools[{i}].node_labels",
                f"pool {pools[i].name!r} needs node labels: its ResourceFlavor selects its "
                f"nodes by them, and pool {first!r} already has none (only one pool, the "
                "nodes in no other pool, may have none)",
            )
        )
    if unlabelled:
        # Only a hard taint keeps the unlabelled pool's pods (and their quota) off the
        # other pools' nodes.
        catch_all = pools[unlabelled[0]].name
        for i, pool in enumerate(pools):
            if i in unlabelled or any(t.effect in HARD_TAINT_EFFECTS for t in pool.taints):
                continue
            issues.append(
                Issue(
                    f"pools[{i}].taints",
                    f"pool {pool.name!r} has no NoSchedule or NoExecute taint, so workloads "
                    f"admitted on {catch_all!r} (which has no node_labels) could run on its "
                    "nodes without being counted there; taint it, or give "
                    f"{catch_all!r} node_labels",
                )
            )
    return issues


def _name_issues(departments: list[Department]) -> list[Issue]:
    issues: list[Issue] = []
    departments_seen: dict[str, str] = {}
    projects_seen: dict[str, str] = {}
    namespaces_seen: dict[str, str] = {}
    for d, department in enumerate(departments):
        here = f"departments[{d}]"
        _claim(departments_seen, kube_name(department.name), f"{here}.name", "Cohort", issues)
        for p, project in enumerate(department.projects):
            at = f"{here}.projects[{p}]"
            _claim(projects_seen, kube_name(project.name), f"{at}.name", "ClusterQueue", issues)
            _claim(namespaces_seen, project.namespace_name, f"{at}.namespace", "namespace", issues)
    return issues


def _claim(seen: dict[str, str], name: str, path: str, what: str, issues: list[Issue]) -> None:
    if name in seen:
        issues.append(Issue(path, f"{what} {name!r} is already used by `{seen[name]}`"))
    else:
        seen[name] = path


def _capacity(pool: PoolDescription, resource: str) -> Fraction | None:
    if resource == "gpu":
        return Fraction(pool.gpus)
    value = getattr(pool, resource)
    return None if value is None else Fraction(value)


def _capacity_path(index: int, resource: str) -> str:
    return f"pools[{index}].{'gpus' if resource == 'gpu' else resource}"


def _quota_issues(pools: list[PoolDescription], departments: list[Department]) -> list[Issue]:
    issues: list[Issue] = []
    by_name = {pool.name: (i, pool) for i, pool in enumerate(pools)}
    totals: dict[tuple[str, str], Fraction] = {}
    reported: set[tuple[str, str]] = set()
    for d, department in enumerate(departments):
        for p, project in enumerate(department.projects):
            for pool_name, amounts in project.quotas.items():
                path = format_path(["departments", d, "projects", p, "quotas", pool_name])
                if pool_name not in by_name:
                    known = ", ".join(repr(name) for name in by_name)
                    issues.append(Issue(path, f"unknown pool {pool_name!r} (pools: {known})"))
                    continue
                index, pool = by_name[pool_name]
                for resource, amount in amounts.items():
                    key = (pool_name, resource)
                    totals[key] = totals.get(key, Fraction(0)) + amount
                    capacity = _capacity(pool, resource)
                    if capacity is None or totals[key] <= capacity or key in reported:
                        continue
                    reported.add(key)
                    unit = pool.gpu_resource if resource == "gpu" else resource
                    issues.append(
                        Issue(
                            f"{path}.{resource}",
                            f"quotas on pool {pool_name!r} add up to "
                            f"{display_quantity(totals[key], resource)} {unit} with this "
                            f"project's {display_quantity(amount, resource)}, but the pool "
                            f"holds {display_quantity(capacity, resource)} "
                            f"(`{_capacity_path(index, resource)}`)",
                        )
                    )
    return issues
