"""PoolQuotas as Kueue v1beta2 objects (pure: specs in, manifests out).

The mapping (DESIGN section 4), Run:ai concept -> Kueue object:

- node pool -> ResourceFlavor named after the pool: `nodeLabels` = the pool's node labels
  (a pool component's identity label `nodepools.dev/pool`), `tolerations` = tolerations of
  its taints, which Kueue adds to the pods it admits there. The `default` pool (nodes in
  no other pool) has no node labels to select, so its flavor has none: its pods are
  pinned nowhere and only the other pools' taints keep them off those nodes (the spec
  refuses an untainted other pool unless `default` is given node labels).
- organisation -> a root Cohort (named `organization`, default the component name) that
  joins the departments, so idle capacity of any pool is lent across departments. Its own
  `nominalQuota` is what each pool has beyond its projects' quotas (where the pool's
  capacity is given): Kueue lends only quotas, so capacity nobody is guaranteed would
  otherwise never be admitted; as the root's quota every project may borrow it.
- department -> Cohort with `parentName` = the root; its `limit` becomes the Cohort's
  `borrowingLimit` on every pool (Kueue limits are per flavor and resource).
- project -> ClusterQueue (`cohortName` = its department; `namespaceSelector` on the
  project's namespace) with one resource group covering the governed resources and a
  flavor per pool, every pool listed as Run:ai assigns every pool to every project (quota
  0 where none is given, so over-quota can borrow there). `nominalQuota` = the quota,
  `borrowingLimit` from `over_quota`, `preemption.reclaimWithinCohort` = `reclaim`, so an
  owner reclaims lent quota by preempting borrowers. Flavors the project has quota on come
  first (Kueue tries flavors in order), each group sorted by name.
- project namespace -> LocalQueue (named after the project) pointing at its ClusterQueue;
  the Namespace too when `create_namespaces`.

Covered resources: `cpu` and `memory` when any quota, cap or limit names them, then every
pool's accelerator resource (sorted), in that order in every flavor of every group. Kueue
does not admit a workload that requests a resource its ClusterQueue doesn't cover, so
GPU-only quotas need Kueue configured to ignore cpu and memory
(`resources.excludeResourcePrefixes`), or quotas that name them too (as the org-quotas
stack does, reserving CPU and memory with the GPUs as Run:ai advises).

Each opinion above can be turned off (`nodepools.specs.governance.quota_options`): `cohorts`
`departments` (no root) or `none` (no cohort, no borrowing limit, no preemption), `reclaim`
None, `covered_resources` as written, any one pool without node labels (its flavor then
has no `spec` unless tainted), `topologies` (Topology objects, the flavors' `topologyName`),
and per project `namespace_selector` (`{}`: every namespace), `local_queues` (any names,
several), `pool_order` (only these pools, in this order), `admission_checks`,
`flavor_fungibility` and `concurrent_admission`.

Not mapped: Run:ai's over-quota fair-share weights (Kueue's fair sharing is a manager
setting, not an object this component owns) and node-pool placement priority among pools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from nodepools.governance.manifests import Rendered
from nodepools.scheduling import toleration_for
from nodepools.specs.core.base import Issue, SpecError, format_path
from nodepools.specs.core.kube import CPU, MEMORY, format_quantity, kube_name
from nodepools.specs.core.labels import DEPARTMENT_LABEL, PROJECT_LABEL
from nodepools.specs.governance.governed_pool import PoolDescription
from nodepools.specs.governance.quota_options import TopologyArgs
from nodepools.specs.governance.quotas import Amounts, Department, PoolQuotasArgs, Project

KUEUE_API = "kueue.x-k8s.io/v1beta2"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace


@dataclass(frozen=True)
class QuotaPlan:
    """Everything PoolQuotas registers and publishes."""

    objects: list[Rendered]
    queue_names: dict[str, str]
    summary: dict[str, dict[str, dict[str, Any]]]
    table: list[dict[str, Any]] = field(default_factory=list)
    departments: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)


def _kueue(
    kind: str, name: str, spec: dict[str, Any], namespace: str | None = None
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {"apiVersion": KUEUE_API, "kind": kind, "metadata": metadata, "spec": spec}


def covered_resources(args: PoolQuotasArgs) -> list[str]:
    if args.covered_resources is not None:
        return list(args.covered_resources)
    named: set[str] = set()
    for department in args.departments:
        amounts = [department.limit] if department.limit else []
        for project in department.projects:
            amounts += list(project.quotas.values())
            if isinstance(project.over_quota, Amounts):
                amounts.append(project.over_quota)
        for amount in amounts:
            named.update(resource for resource, _ in amount.items())
    plain = [resource for resource in (CPU, MEMORY) if resource in named]
    return plain + sorted({pool.gpu_resource for pool in args.pools})


def _amount_for(amounts: Amounts | None, pool: PoolDescription, resource: str) -> Fraction | None:
    """The amount `amounts` gives Kubernetes resource `resource` on `pool` (None: unset)."""
    if amounts is None:
        return None
    if resource in (CPU, MEMORY):
        value = getattr(amounts, resource)
        return None if value is None else Fraction(value)
    # `gpu` means the pool's own accelerator resource; the pool has none of the others.
    if resource != pool.gpu_resource or amounts.gpu is None:
        return None
    return Fraction(amounts.gpu)


def _borrowing_limit(project: Project, pool: PoolDescription, resource: str) -> Fraction | None:
    if project.over_quota is True:
        return None
    if project.over_quota is False:
        return Fraction(0)
    cap = project.over_quota
    if resource not in (CPU, MEMORY):
        # A gpu cap applies to whichever accelerator resource the pool has.
        return None if cap.gpu is None else Fraction(cap.gpu)
    return _amount_for(cap, pool, resource)


def _sorted_pools(pools: list[PoolDescription]) -> list[PoolDescription]:
    return sorted(pools, key=lambda pool: kube_name(pool.name))


def _flavor(pool: PoolDescription, index: int, topology: str | None) -> Rendered:
    spec: dict[str, Any] = {}
    if pool.node_labels:
        spec["nodeLabels"] = dict(pool.node_labels)
    if pool.taints:
        spec["tolerations"] = [toleration_for(taint) for taint in pool.taints]
    if topology is not None:
        spec["topologyName"] = topology
    name = kube_name(pool.name)
    manifest = _kueue("ResourceFlavor", name, spec)
    if not spec:
        del manifest["spec"]  # as Kueue's examples write a flavor with nothing to say
    return Rendered(f"flavor-{name}", manifest, f"pools[{index}]")


def _topology(topology: TopologyArgs, index: int) -> Rendered:
    name = kube_name(topology.name)
    spec = {"levels": [{"nodeLabel": key} for key in topology.levels]}
    return Rendered(f"topology-{name}", _kueue("Topology", name, spec), f"topologies[{index}]")


def _capacity(pool: PoolDescription, resource: str) -> Fraction | None:
    """What the whole pool has of `resource` (None: not described)."""
    if resource == CPU:
        return None if pool.cpu is None else Fraction(pool.cpu)
    if resource == MEMORY:
        return None if pool.memory is None else Fraction(pool.memory)
    return Fraction(pool.gpus) if resource == pool.gpu_resource else None


def _unassigned_quota(args: PoolQuotasArgs, covered: list[str]) -> dict[str, Any]:
    """The root Cohort's spec: as its own `nominalQuota`, what each pool has beyond its
    projects' quotas, so any project can borrow it (a Cohort's quota is shared by every
    ClusterQueue under it). Without it Kueue admits nothing on capacity no project is
    guaranteed: it lends only the quotas of queues. {} when nothing is left over."""
    flavors: list[dict[str, Any]] = []
    lent = False
    for pool in _sorted_pools(args.pools):
        resources: list[dict[str, Any]] = []
        for resource in covered:
            assigned = sum(
                (
                    _amount_for(project.quotas.get(pool.name), pool, resource) or Fraction(0)
                    for _, _, _, project in args.projects()
                ),
                Fraction(0),
            )
            capacity = _capacity(pool, resource)
            left = max(capacity - assigned, Fraction(0)) if capacity is not None else Fraction(0)
            lent = lent or left > 0
            resources.append({"name": resource, "nominalQuota": format_quantity(left, resource)})
        flavors.append({"name": kube_name(pool.name), "resources": resources})
    if not lent:
        return {}
    return {"resourceGroups": [{"coveredResources": list(covered), "flavors": flavors}]}


def _department_cohort(
    department: Department, index: int, root: str, pools: list[PoolDescription], covered: list[str]
) -> Rendered:
    spec: dict[str, Any] = {
        "parentName": root
    }  # cohorts 'organization': the only tree with objects
    if department.limit is not None:
        flavors: list[dict[str, Any]] = []
        for pool in _sorted_pools(pools):
            resources: list[dict[str, Any]] = []
            for resource in covered:
                quota: dict[str, Any] = {"name": resource, "nominalQuota": 0}
                limit = _amount_for(department.limit, pool, resource)
                if limit is not None:
                    quota["borrowingLimit"] = format_quantity(limit, resource)
                resources.append(quota)
            flavors.append({"name": kube_name(pool.name), "resources": resources})
        spec["resourceGroups"] = [{"coveredResources": list(covered), "flavors": flavors}]
    name = kube_name(department.name)
    return Rendered(f"cohort-{name}", _kueue("Cohort", name, spec), f"departments[{index}]")


def _project_queue(
    department: Department,
    project: Project,
    origin: str,
    args: PoolQuotasArgs,
    covered: list[str],
) -> tuple[Rendered, list[dict[str, Any]]]:
    flavors: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    in_cohort = args.cohorts != "none"
    for pool in _queue_pools(project, args.pools):
        resources: list[dict[str, Any]] = []
        nominal_row: dict[str, Any] = {}
        limit_row: dict[str, Any] = {}
        for resource in covered:
            nominal = _amount_for(project.quotas.get(pool.name), pool, resource) or Fraction(0)
            quota: dict[str, Any] = {
                "name": resource,
                "nominalQuota": format_quantity(nominal, resource),
            }
            limit = _borrowing_limit(project, pool, resource) if in_cohort else None
            if limit is not None:
                quota["borrowingLimit"] = format_quantity(limit, resource)
            resources.append(quota)
            nominal_row[resource] = quota["nominalQuota"]
            limit_row[resource] = quota.get("borrowingLimit")
        flavors.append({"name": kube_name(pool.name), "resources": resources})
        rows.append(
            {
                "department": department.name,
                "project": project.name,
                # Where its (first) LocalQueue is: `namespace/queue` is what workloads name.
                "namespace": project.queues()[0][0],
                "queue": project.queues()[0][1],
                "pool": pool.name,
                "nominal": nominal_row,
                "borrowingLimit": limit_row,
            }
        )
    spec: dict[str, Any] = {}
    if in_cohort:
        spec["cohortName"] = kube_name(department.name)
    spec["namespaceSelector"] = (
        {"matchLabels": {NAMESPACE_NAME_LABEL: project.namespace_name}}
        if project.namespace_selector is None
        else project.namespace_selector
    )
    spec["resourceGroups"] = [{"coveredResources": list(covered), "flavors": flavors}]
    if in_cohort and args.reclaim is not None:
        spec["preemption"] = {"reclaimWithinCohort": args.reclaim}
    spec.update(_queue_settings(project))
    name = kube_name(project.name)
    return Rendered(f"clusterqueue-{name}", _kueue("ClusterQueue", name, spec), origin), rows


def _queue_pools(project: Project, pools: list[PoolDescription]) -> list[PoolDescription]:
    """The pools a project's ClusterQueue lists, in the order Kueue tries them."""
    if project.pool_order is not None:
        by_name = {pool.name: pool for pool in pools}
        return [by_name[name] for name in project.pool_order]
    owned = [pool for pool in pools if pool.name in project.quotas]
    others = [pool for pool in pools if pool.name not in project.quotas]
    return [*_sorted_pools(owned), *_sorted_pools(others)]


def _queue_settings(project: Project) -> dict[str, Any]:
    """The ClusterQueue fields a project sets only when it says so."""
    spec: dict[str, Any] = {}
    if project.admission_checks:
        checks: list[dict[str, Any]] = []
        for check in project.admission_checks:
            entry: dict[str, Any] = {"name": check.name}
            if check.on_pools is not None:
                entry["onFlavors"] = [kube_name(pool) for pool in check.on_pools]
            checks.append(entry)
        spec["admissionChecksStrategy"] = {"admissionChecks": checks}
    if project.flavor_fungibility is not None:
        spec["flavorFungibility"] = project.flavor_fungibility.manifest()
    concurrent = project.concurrent_admission
    if concurrent is not None:
        migration: dict[str, Any] = {"mode": concurrent.mode}
        if concurrent.last_acceptable_pool is not None:
            last = kube_name(concurrent.last_acceptable_pool)
            migration["constraints"] = {"lastAcceptableFlavorName": last}
        spec["concurrentAdmissionPolicy"] = {"migration": migration}
    return spec


def _namespace(department: Department, project: Project, origin: str) -> Rendered:
    namespace = project.namespace_name
    manifest = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": namespace,
            "labels": {
                DEPARTMENT_LABEL: kube_name(department.name),
                PROJECT_LABEL: kube_name(project.name),
            },
        },
    }
    return Rendered(f"namespace-{namespace}", manifest, f"{origin}.namespace")


def _department_totals(args: PoolQuotasArgs) -> dict[str, dict[str, dict[str, Any]]]:
    """Per department and pool, the nominal quota of its projects (pools with none left out)."""
    totals: dict[str, dict[str, dict[str, Any]]] = {}
    for department in args.departments:
        per_pool: dict[str, dict[str, Any]] = {}
        for pool in _sorted_pools(args.pools):
            sums: dict[str, Fraction] = {}
            for project in department.projects:
                for resource, amount in (project.quotas.get(pool.name) or Amounts()).items():
                    sums[resource] = sums.get(resource, Fraction(0)) + amount
            if any(sums.values()):
                per_pool[pool.name] = {r: format_quantity(v, r) for r, v in sums.items()}
        totals[department.name] = per_pool
    return totals


def _summary(args: PoolQuotasArgs) -> dict[str, dict[str, dict[str, Any]]]:
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for pool in _sorted_pools(args.pools):
        totals = {"gpu": Fraction(0), "cpu": Fraction(0), "memory": Fraction(0)}
        for _, _, _, project in args.projects():
            for resource, amount in (project.quotas.get(pool.name) or Amounts()).items():
                totals[resource] += amount
        capacity = {
            "gpu": pool.gpus,
            "cpu": None if pool.cpu is None else format_quantity(pool.cpu, CPU),
            "memory": None if pool.memory is None else format_quantity(pool.memory, MEMORY),
        }
        nominal = {resource: format_quantity(total, resource) for resource, total in totals.items()}
        summary[pool.name] = {"capacity": capacity, "nominal": nominal}
    return summary


def render_quotas(name: str, args: PoolQuotasArgs) -> QuotaPlan:
    """All objects of a PoolQuotas, in a stable order; raises SpecError on a name clash."""
    root = kube_name(args.organization or name)
    clashes = [
        Issue(
            format_path(["departments", d, "name"]),
            f"{department.name!r} names the same Cohort as the organisation ({root!r}); "
            "rename it or set `organization`",
        )
        for d, department in enumerate(args.departments)
        if kube_name(department.name) == root
    ]
    if clashes:
        raise SpecError(f"PoolQuotas {name!r}", clashes)
    covered = covered_resources(args)
    topology_of = {
        pool: kube_name(topology.name) for topology in args.topologies for pool in topology.pools
    }
    objects = [_topology(topology, i) for i, topology in enumerate(args.topologies)]
    objects += [_flavor(pool, i, topology_of.get(pool.name)) for i, pool in enumerate(args.pools)]
    if args.cohorts == "organization":
        root_spec = _unassigned_quota(args, covered)
        objects.append(Rendered("cohort", _kueue("Cohort", root, root_spec), "organization"))
        objects += [
            _department_cohort(department, d, root, args.pools, covered)
            for d, department in enumerate(args.departments)
        ]
    queue_names: dict[str, str] = {}
    table: list[dict[str, Any]] = []
    for d, department, p, project in args.projects():
        origin = f"departments[{d}].projects[{p}]"
        queue, rows = _project_queue(department, project, origin, args, covered)
        table += rows
        if args.create_namespaces:
            objects.append(_namespace(department, project, origin))
        objects.append(queue)
        for q, (namespace, local_name) in enumerate(project.queues()):
            # The default LocalQueue keeps the child name it always had.
            role = local_name if project.local_queues is None else f"{namespace}-{local_name}"
            objects.append(
                Rendered(
                    f"localqueue-{role}",
                    _kueue(
                        "LocalQueue",
                        local_name,
                        {"clusterQueue": queue.manifest["metadata"]["name"]},
                        namespace,
                    ),
                    origin if project.local_queues is None else f"{origin}.local_queues[{q}]",
                )
            )
        queue_names[project.name] = project.queues()[0][1]
    return QuotaPlan(
        objects, dict(sorted(queue_names.items())), _summary(args), table, _department_totals(args)
    )
