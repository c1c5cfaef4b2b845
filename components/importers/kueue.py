"""Kueue objects -> a PoolQuotas entry (departments and projects), or a KueueQueues entry
(every object as written).

PoolQuotas reads an organisation out of the objects: each ResourceFlavor is a pool (its
node labels, its tolerations as the pool's taints, its capacity the quotas on it), each
Cohort with queues a department, each ClusterQueue a project (its namespace from its
`kubernetes.io/metadata.name` selector, else its LocalQueue's; its quotas per flavor; its
borrowing limits as `over_quota`), the Cohorts' common parent the organisation. What
PoolQuotas adds or can't say is listed by the comparison. `--as auto` (the default) falls
back to KueueQueues when the fleet refuses the PoolQuotas entry, and says why.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

from nodepools.importers.documents import Document
from nodepools.importers.model import Imported, object_key
from nodepools.json_values import is_dict, is_list
from nodepools.offline import Capture
from nodepools.specs.core.kube import format_quantity, parse_amount
from nodepools.specs.governance.kueue import KINDS as QUEUE_FIELDS

COMPONENTS = ("auto", "pool-quotas", "kueue-queues")
KINDS = tuple(QUEUE_FIELDS.values())
ENTRY = "kueue"
NAMESPACE_LABEL = "kubernetes.io/metadata.name"
RECLAIM = ("Any", "LowerPriority", "Never")
_FIELD_OF = {kind: field for field, kind in QUEUE_FIELDS.items()}
_POOL_QUOTAS_KINDS = ("ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue")
# Why a plan differs from the objects given. The importer maps Kueue objects onto PoolQuotas's
# default model (root Cohort, departments, one LocalQueue per project); PoolQuotas's options
# for other shapes (`cohorts`, `local_queues`, `namespace_selector`, `covered_resources`,
# `reclaim: null`, `topologies`, `admission_checks`) are not read back yet, so `--as auto`
# then uses KueueQueues, which writes every object as given.
WHY = {
    "Cohort": "the importer maps Cohorts onto PoolQuotas's default root and department "
    "Cohorts (its `cohorts` option is not read back yet)",
    "ClusterQueue": "PoolQuotas writes a project's ClusterQueue from its quotas",
    "cohortName": "the importer puts every project's ClusterQueue in its department's Cohort",
    "namespaceSelector": "the importer selects the project's namespace by name (PoolQuotas's "
    "`namespace_selector` is not read back yet)",
    "preemption": "the importer keeps PoolQuotas's `reclaim` default, `reclaimWithinCohort` on "
    "every queue (`reclaim: null` is not read back yet)",
    "resourceGroups": "the importer keeps PoolQuotas's default resource group: cpu, memory and "
    "every pool's accelerator, every pool listed, quota 0 where a project has none "
    "(`covered_resources` and `pool_order` are not read back yet)",
    "LocalQueue": "the importer makes one LocalQueue per project, named after it, in its "
    "namespace (PoolQuotas's `local_queues` is not read back yet)",
    "ResourceFlavor": "PoolQuotas writes a flavor from its pool's node labels and taints",
}


def key_of(doc: dict[str, Any]) -> str:
    metadata = doc["metadata"]
    return object_key(doc["kind"], metadata["name"], metadata.get("namespace"))


def kueue_queues(documents: list[Document]) -> Imported:
    """One KueueQueues entry holding every object as written."""
    imported = Imported("kueue", {}, {}, default_why="KueueQueues writes the object this way")
    args: dict[str, list[dict[str, Any]]] = {}
    for doc in (d.data for d in documents):
        item: dict[str, Any] = {"name": doc["metadata"]["name"]}
        if "namespace" in doc["metadata"]:
            item["namespace"] = doc["metadata"]["namespace"]
        if "spec" in doc:
            item["spec"] = doc["spec"]
        args.setdefault(_FIELD_OF[doc["kind"]], []).append(item)
        imported.upstream[key_of(doc)] = doc
    imported.origins[ENTRY] = sorted(imported.upstream)
    ordered = {field: args[field] for field in QUEUE_FIELDS if field in args}
    imported.config["nodepools:governance"] = [
        {"component": "KueueQueues", "name": ENTRY, **ordered}
    ]
    return imported


def _spec(doc: dict[str, Any]) -> dict[str, Any]:
    return _dict(doc.get("spec"))


def _dict(value: Any) -> dict[str, Any]:
    """A mapping of a user's object, or {} for anything else (the CRD check reports it)."""
    return cast("dict[str, Any]", value) if is_dict(value) else {}


def _list(value: Any) -> list[Any]:
    return value if is_list(value) else []


def _taints(flavor: dict[str, Any]) -> list[dict[str, Any]]:
    taints: list[dict[str, Any]] = []
    spec: Any = flavor.get("spec") or {}
    toleration: Any
    for toleration in _list(spec.get("tolerations")):
        taint = {"key": toleration.get("key"), "effect": toleration.get("effect", "NoSchedule")}
        if "value" in toleration:
            taint["value"] = toleration["value"]
        taints.append(taint)
    return taints


def _quota_name(resource: str) -> str:
    return resource if resource in ("cpu", "memory") else "gpu"


def _amount(resource: str, value: Any) -> Any:
    if _quota_name(resource) == "gpu" and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def _project(
    queue: dict[str, Any], namespaces: dict[str, str], accelerators: dict[str, str]
) -> dict[str, Any]:
    name = queue["metadata"]["name"]
    spec: Any = queue.get("spec") or {}
    selector: Any = spec.get("namespaceSelector") or {}
    labels: Any = selector.get("matchLabels") or {} if is_dict(selector) else {}
    namespace: str | None = labels.get(NAMESPACE_LABEL) or namespaces.get(name)
    project: dict[str, Any] = {"name": name}
    if namespace and namespace != name:
        project["namespace"] = namespace
    quotas: dict[str, dict[str, Any]] = {}
    limits: dict[str, Any] = {}
    group: Any
    flavor: Any
    resource: Any
    for group in _list(spec.get("resourceGroups")):
        for flavor in _list(group.get("flavors")):
            amounts = quotas.setdefault(flavor["name"], {})
            for resource in _list(flavor.get("resources")):
                quota = _quota_name(resource["name"])
                if quota == "gpu":
                    accelerators.setdefault(flavor["name"], resource["name"])
                amounts[quota] = _amount(resource["name"], resource.get("nominalQuota", 0))
                if "borrowingLimit" in resource:
                    limits.setdefault(quota, _amount(resource["name"], resource["borrowingLimit"]))
    # A quota of 0 is what PoolQuotas gives every pool a project has none on.
    project["quotas"] = {
        pool: nonzero
        for pool, amounts in quotas.items()
        if (nonzero := {k: v for k, v in sorted(amounts.items()) if str(v) != "0"})
    }
    if limits:
        zero = all(str(value) == "0" for value in limits.values())
        project["over_quota"] = False if zero else limits
    return project


def pool_quotas(documents: list[Document]) -> Imported:
    """One PoolQuotas entry for the ResourceFlavors, Cohorts, ClusterQueues and LocalQueues."""
    imported = Imported("kueue", {}, {}, default_why="PoolQuotas renders it this way")
    docs = [d.data for d in documents]
    for doc in docs:
        if doc["kind"] not in _POOL_QUOTAS_KINDS:
            imported.refuse(
                key_of(doc),
                "present",
                f"the importer maps no {doc['kind']} into PoolQuotas (KueueQueues writes it)",
            )
    flavors = [d for d in docs if d["kind"] == "ResourceFlavor"]
    cohorts = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Cohort"}
    queues = [d for d in docs if d["kind"] == "ClusterQueue"]
    local = [d for d in docs if d["kind"] == "LocalQueue"]
    namespaces: dict[str, str] = {}
    for queue in local:
        target = str(_spec(queue).get("clusterQueue"))
        namespaces.setdefault(target, queue["metadata"].get("namespace", "default"))
    accelerators: dict[str, str] = {}
    departments: dict[str, list[dict[str, Any]]] = {}
    for queue in queues:
        cohort: str = _spec(queue).get("cohortName") or queue["metadata"]["name"]
        departments.setdefault(cohort, []).append(_project(queue, namespaces, accelerators))
    parents: set[str | None] = {
        _spec(c).get("parentName") for n, c in cohorts.items() if n in departments
    }
    organization = next(iter(parents)) if len(parents) == 1 and None not in parents else None
    pools = [_pool(flavor, departments, accelerators) for flavor in flavors]
    args: dict[str, Any] = {
        "pools": pools,
        "departments": [{"name": n, "projects": p} for n, p in departments.items()],
        "create_namespaces": False,
    }
    if organization:
        args["organization"] = organization
    reclaims: set[str | None] = {
        _dict(_spec(q).get("preemption")).get("reclaimWithinCohort") for q in queues
    }
    if len(reclaims) == 1 and (reclaim := next(iter(reclaims))) in RECLAIM:
        args["reclaim"] = reclaim
    for doc in docs:
        if doc["kind"] in _POOL_QUOTAS_KINDS:
            imported.upstream[key_of(doc)] = doc
    for kind_or_field, reason in WHY.items():
        prefixes = (
            [f"{kind_or_field}"]
            if kind_or_field[0].isupper()
            else [f"{key} spec.{kind_or_field}" for key in map(key_of, queues)]
        )
        for prefix in prefixes:
            imported.explain(prefix, reason)
    imported.origins[ENTRY] = sorted(imported.upstream)
    imported.config["nodepools:governance"] = [{"component": "PoolQuotas", "name": ENTRY, **args}]
    return imported


def _pool(
    flavor: dict[str, Any],
    departments: dict[str, list[dict[str, Any]]],
    accelerators: dict[str, str],
) -> dict[str, Any]:
    name = flavor["metadata"]["name"]
    spec: dict[str, Any] = flavor.get("spec") or {}
    pool: dict[str, Any] = {"name": name}
    if labels := spec.get("nodeLabels"):
        pool["node_labels"] = labels
    if taints := _taints(flavor):
        pool["taints"] = taints
    if name in accelerators:
        pool["gpu_resource"] = accelerators[name]
    totals: dict[str, list[Any]] = {}
    for projects in departments.values():
        for project in projects:
            amounts: dict[str, Any] = project["quotas"].get(name) or {}
            for quota, value in amounts.items():
                totals.setdefault(quota, []).append(value)
    if gpus := totals.get("gpu"):
        pool["gpus"] = sum(int(v) for v in gpus)
    for quota in ("cpu", "memory"):
        if values := totals.get(quota):
            # The pool holds at least what its queues are promised (PoolQuotas checks it).
            total = sum((parse_amount(value) for value in values), Fraction(0))
            pool[quota] = format_quantity(total, quota)
    return pool


def import_documents(documents: list[Document], component: str) -> Imported:
    if component == "kueue-queues":
        return kueue_queues(documents)
    return pool_quotas(documents)


def rendered(capture: Capture) -> dict[str, dict[str, Any]]:
    """Every Kueue object (and Namespace) the plan registered, by `Kind[/namespace]/name`."""
    found: dict[str, dict[str, Any]] = {}
    for resource in capture.resources:
        manifest = resource.inputs
        api = manifest.get("apiVersion")
        if resource.custom and isinstance(api, str) and api.startswith("kueue.x-k8s.io/"):
            found[key_of(manifest)] = manifest
    return found
