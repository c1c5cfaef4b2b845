"""The people side of PoolQuotas: departments, their projects, and the amounts of quota
they are given (`PoolQuotasArgs` in `quotas` puts them on pools)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Annotated, Any, Literal

from nodepools.specs.core.base import SpecModel, register_union_tags
from nodepools.specs.core.kube import Amount, DnsLabel, ObjectName, kube_name
from nodepools.specs.governance.quota_options import (
    AdmissionCheckRef,
    ConcurrentAdmission,
    FlavorFungibility,
    LocalQueueArgs,
)
from pydantic import Discriminator, Field, Tag

QUOTA_RESOURCES = ("gpu", "cpu", "memory")

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

    namespace_selector: dict[str, Any] | None = Field(
        default=None,
        description="Namespaces whose workloads the project's ClusterQueue admits, as a "
        "Kubernetes label selector (`matchLabels`, `matchExpressions`); `{}` = every "
        "namespace. Default None (the project's namespace).",
    )
    local_queues: list[LocalQueueArgs] | None = Field(
        default=None,
        description="The project's LocalQueues `[{name, namespace}]` (namespace default the "
        "project's). Default None (one, named after the project, in its namespace).",
    )
    pool_order: list[str] | None = Field(
        default=None,
        description="Pools the project's ClusterQueue lists, in the order Kueue tries them "
        "(pools left out can't be used). Default None (pools with quota, then the others, "
        "each sorted by name).",
    )
    admission_checks: list[AdmissionCheckRef] = Field(
        default_factory=list[AdmissionCheckRef],
        description="AdmissionChecks `[{name, on_pools}]` the project's workloads must pass "
        "(`admissionChecksStrategy`; the AdmissionCheck objects are made elsewhere, e.g. by "
        "KueueQueues). Default [].",
    )
    flavor_fungibility: FlavorFungibility | None = Field(
        default=None,
        description="`{when_can_borrow, when_can_preempt, preference}`: whether a workload "
        "tries the next pool before borrowing or preempting. Default None (Kueue's defaults).",
    )
    concurrent_admission: ConcurrentAdmission | None = Field(
        default=None,
        description="`{mode, last_acceptable_pool}`: Kueue's `concurrentAdmissionPolicy` "
        "(its ConcurrentAdmission feature gate must be on). Default None.",
    )

    @property
    def namespace_name(self) -> str:
        return self.namespace or kube_name(self.name)

    def queues(self) -> list[tuple[str, str]]:
        """(namespace, LocalQueue name) of each of the project's LocalQueues."""
        if self.local_queues is None:
            return [(self.namespace_name, kube_name(self.name))]
        return [(q.namespace or self.namespace_name, kube_name(q.name)) for q in self.local_queues]


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
