"""PoolQuotas' Kueue settings beyond the department/project model: each turns one of our
opinions off (issue 32), the model staying the default.

New fields (snake_case in Python and stack config; camelCase through the provider):

`PoolQuotasArgs`:
- `cohorts`: "organization" | "departments" | "none"; default "organization" (a root Cohort
  joins the department Cohorts). "departments": each department's projects share its cohort
  (`cohortName`, an implicit cohort: no Cohort objects; a department `limit` is refused,
  since it borrows from no one). "none": no cohort at all (no `cohortName`, no Cohort
  objects; nothing is borrowed).
- `covered_resources`: list[str] | None; default None (`cpu`/`memory` when a quota names
  them, then every pool's accelerator resource). Set: exactly these, in this order (each
  `cpu`, `memory` or a pool's accelerator resource).
- `reclaim`: now also None (no `preemption` written: Kueue's default, `Never`).
- `topologies`: list[{name: str, levels: list[str] (node label keys, top level first),
  pools: list[str] (pool names)}]; default []. Each is a Topology object, and each pool
  listed gets `topologyName` on its ResourceFlavor (topology-aware scheduling).
- `departments`: may be empty (the pools' ResourceFlavors only).
- pools: any one pool may have no node labels (not only `default`): its ResourceFlavor then
  has none (and no `spec` when it has no taints either).

`Project`:
- `namespace_selector`: dict | None; default None (the project's namespace). A Kubernetes
  label selector as Kueue writes it (`matchLabels`, `matchExpressions`); `{}` = every
  namespace.
- `local_queues`: list[{name: str, namespace: str | None (default the project's)}] | None;
  default None (one LocalQueue named after the project in its namespace).
- `pool_order`: list[str] | None; default None (pools with quota, sorted, then the others).
  Set: the pools the project's ClusterQueue lists, in the order Kueue tries them (others
  are not listed: the project can't use them).
- `admission_checks`: list[{name: str, on_pools: list[str] | None}]; default [] (the
  ClusterQueue's `admissionChecksStrategy`; the AdmissionCheck objects are KueueQueues').
- `flavor_fungibility`: {when_can_borrow, when_can_preempt: "MayStopSearch" |
  "TryNextFlavor" | None, preference: "BorrowingOverPreemption" | "PreemptionOverBorrowing" |
  None} | None; default None (Kueue's defaults).
- `concurrent_admission`: {mode: "TryPreferredFlavors" | "RetainFirstAdmission",
  last_acceptable_pool: str | None} | None; default None (Kueue v0.19's
  `concurrentAdmissionPolicy.migration`, behind Kueue's ConcurrentAdmission feature gate).
"""

from __future__ import annotations

from typing import Any, Literal

from nodepools.specs.core.base import SpecModel
from nodepools.specs.core.kube import DnsLabel, ObjectName
from nodepools.specs.core.labels import LabelKey
from pydantic import Field

Cohorts = Literal["organization", "departments", "none"]
Fungibility = Literal["MayStopSearch", "TryNextFlavor"]


class LocalQueueArgs(SpecModel):
    """A LocalQueue of a project: a namespace's entry to the project's ClusterQueue."""

    name: ObjectName = Field(description="LocalQueue name (Kubernetes form). Required.")
    namespace: DnsLabel | None = Field(
        default=None, description="Its namespace; default the project's namespace."
    )


class AdmissionCheckRef(SpecModel):
    """An AdmissionCheck the project's workloads must pass before they are admitted."""

    name: ObjectName = Field(description="The AdmissionCheck's name. Required.")
    on_pools: list[str] | None = Field(
        default=None,
        description="Pools (their ResourceFlavors) the check applies to (`onFlavors`); "
        "default None (every pool).",
    )


class TopologyArgs(SpecModel):
    """A Topology for topology-aware scheduling and the pools whose nodes it describes."""

    name: ObjectName = Field(description="Topology name. Required.")
    levels: list[LabelKey] = Field(
        min_length=1,
        description="Node label keys, from the top level (e.g. a block) down to "
        "`kubernetes.io/hostname`. Required.",
    )
    pools: list[str] = Field(
        default_factory=list[str],
        description="Pools whose ResourceFlavor gets this `topologyName`; default [].",
    )


class FlavorFungibility(SpecModel):
    """Whether a workload tries the next pool before borrowing or preempting in this one."""

    when_can_borrow: Fungibility | None = Field(
        default=None, description="`whenCanBorrow`; default None (Kueue's `MayStopSearch`)."
    )
    when_can_preempt: Fungibility | None = Field(
        default=None, description="`whenCanPreempt`; default None (Kueue's `TryNextFlavor`)."
    )
    preference: Literal["BorrowingOverPreemption", "PreemptionOverBorrowing"] | None = Field(
        default=None,
        description="`preference`; default None (Kueue's `BorrowingOverPreemption`).",
    )

    def manifest(self) -> dict[str, Any]:
        fields = {
            "whenCanBorrow": self.when_can_borrow,
            "whenCanPreempt": self.when_can_preempt,
            "preference": self.preference,
        }
        return {k: v for k, v in fields.items() if v is not None}


class ConcurrentAdmission(SpecModel):
    """Workloads pursuing several pools at once, migrating to a preferred one when it frees
    (Kueue's ConcurrentAdmission feature gate must be on)."""

    mode: Literal["TryPreferredFlavors", "RetainFirstAdmission"] = Field(
        default="TryPreferredFlavors",
        description="`migration.mode`; default `TryPreferredFlavors`.",
    )
    last_acceptable_pool: str | None = Field(
        default=None,
        description="The last pool (in the queue's order) a workload may migrate to "
        "(`lastAcceptableFlavorName`; only with `TryPreferredFlavors`); default None (any "
        "more preferred pool).",
    )
