"""PoolQuotas: Run:ai-style departments, projects and per-pool quotas, emitted as Kueue.

See `nodepools.governance.kueue` for how each Run:ai concept maps to a Kueue object.
Kueue objects are cluster-scoped on the cluster whose nodes form the pools (pass its
Kubernetes provider in `opts`); pools of several clusters in one PoolQuotas are out of
scope (Kueue can't share quota across clusters without MultiKueue): use one PoolQuotas
per cluster.
"""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.governance.kueue import render_quotas
from nodepools.governance.manifests import validate_rendered
from nodepools.outputs import known_output
from nodepools.preflight import checked
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.quotas import PoolQuotasArgs


@documented(PoolQuotasArgs)
class PoolQuotas(pulumi.ComponentResource):
    """Departments -> projects -> per-pool quotas with over-quota borrowing and reclaim.

    Outputs: `queue_names` (project name -> its (first) LocalQueue's name, the value of a
    workload's `kueue.x-k8s.io/queue-name` label) and `summary` (per pool: `capacity`
    and total `nominal` quota, by `gpu`, `cpu`, `memory`; an unknown capacity is left out).
    Children: `{name}-topology-<topology>`, `{name}-flavor-<pool>`, `{name}-cohort`,
    `{name}-cohort-<department>` (with `cohorts` `organization`),
    `{name}-namespace-<namespace>`, `{name}-clusterqueue-<project>`,
    `{name}-localqueue-<project>` (`{name}-localqueue-<namespace>-<queue>` for the
    `local_queues` a project names) (Kubernetes forms of the names).
    """

    TYPE = "nodepools:index:PoolQuotas"

    queue_names: pulumi.Output[dict[str, Any]]
    summary: pulumi.Output[dict[str, Any]]

    @classmethod
    def preflight(cls, name: str, args: PoolQuotasArgs | dict[str, Any]):
        """Everything the constructor checks (every Kueue object rendered and validated),
        registering nothing; the fleet runs it on each entry before building any."""
        subject = f"PoolQuotas {name!r}"
        plan = render_quotas(name, parse_spec(PoolQuotasArgs, args, subject))
        validate_rendered(subject, plan.objects)
        return plan

    def __init__(
        self,
        name: str,
        args: PoolQuotasArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        plan = checked(self, name, args, opts)
        # The quota table is registered as the component's inputs, for `plan` and
        # `pulumi stack export`.
        props = {
            "spec": {"quotas": plan.table, "pools": plan.summary, "departments": plan.departments}
        }
        super().__init__(self.TYPE, name, props, opts)
        from nodepools.governance.register import register_manifests

        self.resources = register_manifests(name, plan.objects, self)
        self.queue_names = known_output(plan.queue_names)
        self.summary = known_output(plan.summary)
        self.register_outputs({"queue_names": self.queue_names, "summary": self.summary})
