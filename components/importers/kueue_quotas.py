"""Kueue objects read back into a PoolQuotas entry, every option PoolQuotas has included.

Each ResourceFlavor is a pool (node labels, tolerations as the pool's taints, `topologyName`
as a Topology's pool, its capacity the quotas on it plus what the root Cohort lends of it);
each ClusterQueue a project (its quotas per flavor, borrowing limits as `over_quota`,
namespace selector, LocalQueues, flavor order, admission checks, flavor fungibility,
concurrent admission); the queues' cohorts a department each. The cohort tree is `organization` when Cohort objects join the departments
under one root, `departments` when queues name cohorts that have no objects, `none` when no
queue names one. An option is written only where the objects differ from what PoolQuotas
does by default, so a PoolQuotas-made organisation imports as its short form.

Objects of kinds PoolQuotas doesn't make (AdmissionChecks and their parameters, MultiKueue
clusters, a Topology no flavor names) go into a KueueQueues entry beside it, as a user would
write them. Whatever PoolQuotas still can't say shows up as a difference when the result is
planned (and `--as auto` then uses KueueQueues for everything).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

from nodepools.importers.model import Imported, object_key
from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.kube import CPU, MEMORY, format_quantity, kube_name, parse_amount
from nodepools.specs.governance.kueue import KINDS as QUEUE_FIELDS

ENTRY = "kueue"
# The KueueQueues entry beside PoolQuotas, for the objects PoolQuotas doesn't make.
OTHERS_ENTRY = "kueue-objects"
# The department of queues that name no cohort (`cohorts: none` renders no Cohort, so its
# name appears nowhere in the objects).
NO_COHORT_DEPARTMENT = "queues"
NAMESPACE_LABEL = "kubernetes.io/metadata.name"
NVIDIA_GPU = "nvidia.com/gpu"
RECLAIM = ("Any", "LowerPriority", "Never")
KINDS = ("ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue", "Topology")
_FIELD_OF = {kind: field for field, kind in QUEUE_FIELDS.items()}
# Why a plan may still differ from the objects given: what PoolQuotas has no option for.
WHY = {
    "Cohort": "PoolQuotas writes a root Cohort (its own quota: what the pools have beyond the "
    "projects' quotas) and one Cohort per department under it (a department's `limit` as its "
    "borrowing limit); it has no option for other cohort trees or quotas",
    "ClusterQueue": "PoolQuotas writes a project's ClusterQueue from its quotas and options; "
    "it has no option for this field",
    "LocalQueue": "PoolQuotas writes a project's LocalQueues with a name and namespace only",
    "ResourceFlavor": "PoolQuotas writes a flavor from its pool's node labels, taints and topology",
    "Topology": "PoolQuotas writes a Topology's levels as node labels only",
}


def _dict(value: Any) -> dict[str, Any]:
    """A mapping of a user's object, or {} for anything else (the CRD check reports it)."""
    return cast("dict[str, Any]", value) if is_dict(value) else {}


def _list(value: Any) -> list[Any]:
    return value if is_list(value) else []


def _spec(doc: dict[str, Any]) -> dict[str, Any]:
    return _dict(doc.get("spec"))


def key_of(doc: dict[str, Any]) -> str:
    metadata = doc["metadata"]
    return object_key(doc["kind"], metadata["name"], metadata.get("namespace"))


def _quota_name(resource: str) -> str:
    return resource if resource in (CPU, MEMORY) else "gpu"


def _amount(resource: str, value: Any) -> Any:
    if _quota_name(resource) == "gpu" and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def _amounts(
    resources: list[Any], field: str, accelerator: dict[str, str], flavor: str
) -> dict[str, Any]:
    """{gpu, cpu, memory} of one flavor's `resources` entries' `field`, where set."""
    amounts: dict[str, Any] = {}
    for resource in resources:
        name = _dict(resource).get("name")
        if not isinstance(name, str) or field not in resource:
            continue
        quota = _quota_name(name)
        if quota == "gpu":
            accelerator.setdefault(flavor, name)
        amounts[quota] = _amount(name, resource[field])
    return amounts


class _Reader:
    """The PoolQuotas arguments read from one file set's Kueue objects."""

    def __init__(self, docs: list[dict[str, Any]]) -> None:
        self.flavors = [d for d in docs if d["kind"] == "ResourceFlavor"]
        self.cohorts = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Cohort"}
        self.queues = [d for d in docs if d["kind"] == "ClusterQueue"]
        self.local = [d for d in docs if d["kind"] == "LocalQueue"]
        self.topologies = [d for d in docs if d["kind"] == "Topology"]
        # flavor name -> the accelerator resource its queues count (`gpu` in PoolQuotas)
        self.accelerator: dict[str, str] = {}

    def args(self) -> dict[str, Any]:
        cohorts = self._cohort_tree()
        departments = self._departments(cohorts)
        organization = self._organization(departments) if cohorts == "organization" else None
        unassigned = self._unassigned(organization)
        args: dict[str, Any] = {
            "pools": [self._pool(flavor, departments, unassigned) for flavor in self.flavors],
            "departments": departments,
            "create_namespaces": False,
        }
        if cohorts != "organization":
            args["cohorts"] = cohorts
        elif organization:
            args["organization"] = organization
        if cohorts != "none" and (reclaim := self._reclaim()) != "Any":
            args["reclaim"] = reclaim
        if (covered := self._covered(args)) is not None:
            args["covered_resources"] = covered
        if topologies := self._topologies():
            args["topologies"] = topologies
        return args

    def _reclaim(self) -> str | None:
        """The queues' common `reclaimWithinCohort` (None: no `preemption`); PoolQuotas's
        default `Any` when they differ (the comparison then lists them)."""
        reclaims = {
            _dict(_spec(q).get("preemption")).get("reclaimWithinCohort") for q in self.queues
        }
        reclaim = next(iter(reclaims)) if len(reclaims) == 1 else "Any"
        return reclaim if reclaim is None or reclaim in RECLAIM else "Any"

    def topologies_used(self) -> set[str]:
        return {
            str(_spec(f).get("topologyName")) for f in self.flavors if "topologyName" in _spec(f)
        }

    # The cohort tree and the departments.
    def _cohort_tree(self) -> str:
        named = [_spec(q).get("cohortName") for q in self.queues]
        if self.cohorts or (any(named) and not all(named)):
            return "organization"
        return "departments" if any(named) else "none"

    def _departments(self, cohorts: str) -> list[dict[str, Any]]:
        departments: dict[str, list[dict[str, Any]]] = {}
        if cohorts == "none":
            departments[NO_COHORT_DEPARTMENT] = []
        for name, cohort in self.cohorts.items():
            if "parentName" in _spec(cohort):
                departments.setdefault(name, [])
        for queue in self.queues:
            cohort_name = _spec(queue).get("cohortName")
            owner = NO_COHORT_DEPARTMENT if cohorts == "none" else cohort_name
            departments.setdefault(str(owner or queue["metadata"]["name"]), []).append(
                self._project(queue, in_cohort=cohorts != "none")
            )
        result: list[dict[str, Any]] = []
        for name, projects in departments.items():
            department: dict[str, Any] = {"name": name, "projects": projects}
            if limit := self._department_limit(name):
                department["limit"] = limit
            result.append(department)
        return [d for d in result if d["projects"] or d["name"] in self.cohorts]

    def _department_limit(self, name: str) -> dict[str, Any]:
        groups = _list(_spec(self.cohorts.get(name, {})).get("resourceGroups"))
        for group in groups:
            for flavor in _list(_dict(group).get("flavors")):
                flavor_name = str(_dict(flavor).get("name"))
                limit = _amounts(
                    _list(flavor.get("resources")), "borrowingLimit", self.accelerator, flavor_name
                )
                if limit:
                    return limit
        return {}

    def _organization(self, departments: list[dict[str, Any]]) -> str | None:
        parents = {
            _spec(self.cohorts[d["name"]]).get("parentName")
            for d in departments
            if d["name"] in self.cohorts
        }
        return next(iter(parents)) if len(parents) == 1 and None not in parents else None

    # A project: one ClusterQueue and its LocalQueues.
    def _project(self, queue: dict[str, Any], *, in_cohort: bool) -> dict[str, Any]:
        name = queue["metadata"]["name"]
        spec = _spec(queue)
        own_queues = [q for q in self.local if _spec(q).get("clusterQueue") == name]
        selector = _dict(spec.get("namespaceSelector"))
        by_name = _dict(selector.get("matchLabels")).get(NAMESPACE_LABEL)
        plain_selector = selector == {"matchLabels": {NAMESPACE_LABEL: by_name}}
        namespace = by_name if plain_selector else None
        if namespace is None and own_queues:
            namespace = own_queues[0]["metadata"].get("namespace")
        project: dict[str, Any] = {"name": name}
        if namespace and namespace != name:
            project["namespace"] = namespace
        if not plain_selector and "namespaceSelector" in spec:
            project["namespace_selector"] = spec["namespaceSelector"]
        namespace = namespace or name
        names = [(q["metadata"]["name"], q["metadata"].get("namespace")) for q in own_queues]
        if names != [(name, namespace)]:
            project["local_queues"] = [
                {"name": n} if ns in (None, namespace) else {"name": n, "namespace": ns}
                for n, ns in names
            ]
        self._quotas(project, spec, in_cohort=in_cohort)
        self._settings(project, spec)
        return project

    def _quotas(self, project: dict[str, Any], spec: dict[str, Any], *, in_cohort: bool) -> None:
        quotas: dict[str, dict[str, Any]] = {}
        limits: dict[str, Any] = {}
        order: list[str] = []
        for group in _list(spec.get("resourceGroups")):
            for flavor in _list(_dict(group).get("flavors")):
                flavor_name = str(_dict(flavor).get("name"))
                order.append(flavor_name)
                resources = _list(flavor.get("resources"))
                quotas[flavor_name] = _amounts(
                    resources, "nominalQuota", self.accelerator, flavor_name
                )
                for quota, value in _amounts(
                    resources, "borrowingLimit", self.accelerator, flavor_name
                ).items():
                    limits.setdefault(quota, value)
        # A quota of 0 is what PoolQuotas gives every pool a project has none on.
        project["quotas"] = {
            pool: nonzero
            for pool, amounts in quotas.items()
            if (nonzero := {k: v for k, v in sorted(amounts.items()) if str(v) != "0"})
        }
        owned = sorted((p for p in order if p in project["quotas"]), key=kube_name)
        others = sorted(
            (
                f["metadata"]["name"]
                for f in self.flavors
                if f["metadata"]["name"] not in project["quotas"]
            ),
            key=kube_name,
        )
        if order != owned + others:
            project["pool_order"] = order
        if limits and in_cohort:
            zero = all(str(value) == "0" for value in limits.values())
            project["over_quota"] = False if zero else limits

    def _settings(self, project: dict[str, Any], spec: dict[str, Any]) -> None:
        checks = _list(_dict(spec.get("admissionChecksStrategy")).get("admissionChecks"))
        if checks:
            project["admission_checks"] = [
                {
                    "name": c.get("name"),
                    **({"on_pools": c["onFlavors"]} if "onFlavors" in c else {}),
                }
                for c in map(_dict, checks)
            ]
        fungibility = _dict(spec.get("flavorFungibility"))
        if fungibility:
            keys = {
                "whenCanBorrow": "when_can_borrow",
                "whenCanPreempt": "when_can_preempt",
                "preference": "preference",
            }
            project["flavor_fungibility"] = {keys.get(k, k): v for k, v in fungibility.items()}
        migration = _dict(_dict(spec.get("concurrentAdmissionPolicy")).get("migration"))
        if migration:
            concurrent: dict[str, Any] = {"mode": migration.get("mode")}
            last = _dict(migration.get("constraints")).get("lastAcceptableFlavorName")
            if last is not None:
                concurrent["last_acceptable_pool"] = last
            project["concurrent_admission"] = concurrent

    # Pools, covered resources and topologies.
    def _unassigned(self, organization: str | None) -> dict[str, dict[str, Any]]:
        """Per flavor, the root Cohort's own quota: what PoolQuotas lends of each pool beyond
        its projects' quotas (so the pool's capacity is their sum and this)."""
        root = self.cohorts.get(organization or "", {})
        unassigned: dict[str, dict[str, Any]] = {}
        for group in _list(_spec(root).get("resourceGroups")):
            for flavor in _list(_dict(group).get("flavors")):
                name = str(_dict(flavor).get("name"))
                resources = _list(flavor.get("resources"))
                unassigned[name] = _amounts(resources, "nominalQuota", self.accelerator, name)
        return unassigned

    def _pool(
        self,
        flavor: dict[str, Any],
        departments: list[dict[str, Any]],
        unassigned: dict[str, dict[str, Any]],
    ) -> dict[str, Any]:
        name = flavor["metadata"]["name"]
        spec = _spec(flavor)
        pool: dict[str, Any] = {"name": name}
        if labels := spec.get("nodeLabels"):
            pool["node_labels"] = labels
        if taints := _taints(spec):
            pool["taints"] = taints
        if self.accelerator.get(name, NVIDIA_GPU) != NVIDIA_GPU:
            pool["gpu_resource"] = self.accelerator[name]
        totals: dict[str, list[Any]] = {}
        for department in departments:
            for project in department["projects"]:
                amounts: dict[str, Any] = project["quotas"].get(name) or {}
                for quota, value in amounts.items():
                    totals.setdefault(quota, []).append(value)
        for quota, value in unassigned.get(name, {}).items():
            if str(value) != "0":
                totals.setdefault(quota, []).append(value)
        if gpus := totals.get("gpu"):
            pool["gpus"] = sum(int(v) for v in gpus)
        for quota in (CPU, MEMORY):
            if values := totals.get(quota):
                # The pool holds at least what its queues are promised (PoolQuotas checks it).
                total = sum((parse_amount(value) for value in values), Fraction(0))
                pool[quota] = format_quantity(total, quota)
        return pool

    def _covered(self, args: dict[str, Any]) -> list[str] | None:
        """The queues' `coveredResources` when they differ from PoolQuotas's default (`cpu`
        and `memory` where an amount names them, then each pool's accelerator resource)."""
        lists = {
            tuple(_list(_dict(group).get("coveredResources")))
            for queue in self.queues
            for group in _list(_spec(queue).get("resourceGroups"))[:1]
        }
        if len(lists) != 1:
            return None
        covered = list(next(iter(lists)))
        named: set[str] = set()
        for department in args["departments"]:
            amounts: list[dict[str, Any]] = [department.get("limit") or {}]
            for project in department["projects"]:
                amounts += list(project["quotas"].values())
                if isinstance(project.get("over_quota"), dict):
                    amounts.append(project["over_quota"])
            for amount in amounts:
                named.update(amount)
        default = [r for r in (CPU, MEMORY) if r in named]
        default += sorted({p.get("gpu_resource", NVIDIA_GPU) for p in args["pools"]})
        return None if covered == default else covered

    def _topologies(self) -> list[dict[str, Any]]:
        used = self.topologies_used()
        result: list[dict[str, Any]] = []
        for topology in self.topologies:
            name = topology["metadata"]["name"]
            if name not in used:
                continue
            levels = [
                _dict(level).get("nodeLabel") for level in _list(_spec(topology).get("levels"))
            ]
            pools = [
                f["metadata"]["name"] for f in self.flavors if _spec(f).get("topologyName") == name
            ]
            result.append({"name": name, "levels": levels, "pools": pools})
        return result


def _taints(spec: dict[str, Any]) -> list[dict[str, Any]]:
    taints: list[dict[str, Any]] = []
    for toleration in map(_dict, _list(spec.get("tolerations"))):
        taint = {"key": toleration.get("key"), "effect": toleration.get("effect", "NoSchedule")}
        if "value" in toleration:
            taint["value"] = toleration["value"]
        taints.append(taint)
    return taints


def pool_quotas(docs: list[dict[str, Any]]) -> Imported:
    """A PoolQuotas entry for the ResourceFlavors, Cohorts, ClusterQueues, LocalQueues and
    Topologies they name, and a KueueQueues entry for every other object."""
    imported = Imported("kueue", {}, {}, default_why="PoolQuotas renders it this way")
    reader = _Reader(docs)
    used = reader.topologies_used()
    mine = [
        d
        for d in docs
        if d["kind"] in KINDS and (d["kind"] != "Topology" or d["metadata"]["name"] in used)
    ]
    others = [d for d in docs if d not in mine]
    entries: list[dict[str, Any]] = []
    others_entry = OTHERS_ENTRY
    if any(d["kind"] in ("ResourceFlavor", "ClusterQueue") for d in mine):
        entries.append({"component": "PoolQuotas", "name": ENTRY, **reader.args()})
        imported.origins[ENTRY] = sorted(key_of(d) for d in mine)
    else:
        # Nothing for PoolQuotas to hold (e.g. only AdmissionChecks): KueueQueues alone.
        others, others_entry = docs, ENTRY
    if others:
        entries.append(kueue_queues_entry(others_entry, others))
        imported.origins[others_entry] = sorted(key_of(d) for d in others)
    for doc in docs:
        imported.upstream[key_of(doc)] = doc
    for kind, reason in WHY.items():
        imported.explain(kind, reason)
    imported.config["nodepools:governance"] = entries
    return imported


def kueue_queues_entry(name: str, docs: list[dict[str, Any]]) -> dict[str, Any]:
    """A KueueQueues entry holding `docs` as written."""
    args: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        item: dict[str, Any] = {"name": doc["metadata"]["name"]}
        if "namespace" in doc["metadata"]:
            item["namespace"] = doc["metadata"]["namespace"]
        if "spec" in doc:
            item["spec"] = doc["spec"]
        args.setdefault(_FIELD_OF[doc["kind"]], []).append(item)
    ordered = {field: args[field] for field in QUEUE_FIELDS if field in args}
    return {"component": "KueueQueues", "name": name, **ordered}
