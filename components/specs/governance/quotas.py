"""Args of PoolQuotas: Run:ai-style departments -> projects -> per-pool quotas.

Checked here, with paths, before anything is rendered: unknown pools, quotas that add
up to more than a pool holds, names that collide once mapped to Kubernetes names, and
pools Kueue could not tell apart (see `PoolQuotasArgs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Annotated, Any, Literal

from nodepools.specs.core.base import (
    Issue,
    NestedIssues,
    SpecModel,
    format_path,
    register_union_tags,
)
from nodepools.specs.core.kube import Amount, DnsLabel, ObjectName, display_quantity, kube_name
from nodepools.specs.governance.governed_pool import GovernedPool, PoolDescription
from pydantic import Discriminator, Field, Tag, model_validator

# A ClusterQueue resource group holds at most 64 flavors (Kueue v1beta2 CRD), and every
# project's queue lists every pool.
MAX_POOLS = 64
QUOTA_RESOURCES = ("gpu", "cpu", "memory")
HARD_TAINT_EFFECTS = ("NoSchedule", "NoExecute")

Reclaim = Literal["Any", "LowerPriority", "Never"]


class Amounts(SpecModel):
    """Amounts of the three governed resources; an unset one is not governed here."""

    gpu: int | None = Field(
        default=None,
        ge=0,
        description="Accelerators (the pool's accelerator resource); default None.",
    )
    cpu: Amount | None = Field(
        default=None, description="CPU cores, e.g. 96 or `500m`; default None."
    )
    memory: Amount | None = Field(default=None, description="Memory, e.g. `768Gi`; default None.")

    def items(self) -> Iterator[tuple[str, Fraction]]:
        """(resource, amount) for the resources that are set, in QUOTA_RESOURCES order."""
        for resource in QUOTA_RESOURCES:
            value = getattr(self, resource)
            if value is not None:
                yield resource, Fraction(value)


def _over_quota_kind(value: Any) -> str:
    return "cap" if isinstance(value, dict | Amounts) else "flag"


register_union_tags("flag", "cap")
# true | false | {gpu, cpu, memory}; tagged so an error points into the mapping, not at
# each member of the union.
OverQuota = Annotated[
    Annotated[bool, Tag("flag")] | Annotated[Amounts, Tag("cap")],
    Discriminator(_over_quota_kind),
]


class Project(SpecModel):
    """A project: a namespace, its guaranteed quota per pool and how far it may borrow."""

    name: ObjectName = Field(
        description="Project name, unique across departments; names its ClusterQueue and "
        "LocalQueue (Kubernetes form). Required."
    )
    namespace: DnsLabel | None = Field(
        default=None,
        description="Namespace the project's workloads run in; default the project's "
        "Kubernetes name.",
    )
    quotas: dict[str, Amounts] = Field(
        default_factory=dict,
        description="Guaranteed quota per pool name (`{pool: {gpu, cpu, memory}}`); a pool "
        "not listed gets a quota of 0, as in Run:ai. Default {}.",
    )
    over_quota: OverQuota = Field(
        default=True,
        description="Borrowing beyond the quota, from idle capacity of any pool: true = "
        "unlimited, false = none, a mapping = at most that much of each named resource per "
        "pool (unnamed resources unlimited). Default true.",
    )

    @property
    def namespace_name(self) -> str:
        return self.namespace or kube_name(self.name)


class Department(SpecModel):
    """A department: a group of projects, optionally capped in what it borrows."""

    name: ObjectName = Field(description="Department name; names its Cohort. Required.")
    limit: Amounts | None = Field(
        default=None,
        description="The most the department may borrow per pool beyond its projects' "
        "quotas (the Cohort's borrowingLimit); default None (no cap).",
    )
    projects: list[Project] = Field(
        default_factory=list[Project], description="Projects; default []."
    )


class PoolQuotasArgs(SpecModel):
    """Args of `PoolQuotas`."""

    pools: list[GovernedPool] = Field(
        min_length=1,
        description="Pools: pool components or descriptions {name, node_labels, taints, "
        "gpus, cpu, memory}. A pool named `default` stands for the nodes in no other pool. "
        "Required.",
    )
    departments: list[Department] = Field(
        min_length=1, description="Departments with their projects. Required."
    )
    reclaim: Reclaim = Field(
        default="Any",
        description="How an owner takes lent capacity back (ClusterQueue "
        "`preemption.reclaimWithinCohort`): `Any` preempts any borrower, `LowerPriority` "
        "only lower-priority ones, `Never` waits. Default `Any`.",
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
        if not pool.is_default and not pool.node_labels:
            issues.append(
                Issue(
                    f"pools[{i}].node_labels",
                    f"pool {pool.name!r} needs node labels: its ResourceFlavor selects its "
                    "nodes by them (only `default` may have none)",
                )
            )
    default = next((pool for pool in pools if pool.is_default), None)
    if default is not None and not default.node_labels:
        # The default flavor has no nodeLabels, so Kueue doesn't pin its pods anywhere; only
        # a hard taint keeps them (and their quota) off the other pools' nodes.
        for i, pool in enumerate(pools):
            if pool.is_default or any(t.effect in HARD_TAINT_EFFECTS for t in pool.taints):
                continue
            issues.append(
                Issue(
                    f"pools[{i}].taints",
                    f"pool {pool.name!r} has no NoSchedule or NoExecute taint, so workloads "
                    "admitted on `default` (which has no node_labels) could run on its nodes "
                    "without being counted there; taint it, or give `default` node_labels",
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
