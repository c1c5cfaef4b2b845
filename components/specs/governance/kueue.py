"""Args of KueueQueues: Kueue objects written as Kueue writes them, checked before anything
is registered.

PoolQuotas models an organisation (departments, projects, Run:ai-style over-quota); this is
the other way in, for users who already have Kueue objects or want exactly what Kueue's own
examples say: ResourceFlavors of any name (with or without node labels, with node taints
and tolerations, a topology), ClusterQueues with or without a cohort (any namespace
selector, `{}` for all namespaces; only the covered resources they list; fair sharing,
queueing strategy, admission checks, preemption), Cohorts only when listed, LocalQueues of
any name (several per namespace), Topologies, and the admission checks a ClusterQueue names:
AdmissionChecks with their ProvisioningRequestConfigs (Kueue's ProvisioningRequest
controller) or MultiKueueConfigs and MultiKueueClusters (a MultiKueue manager). Each object's `spec` is the Kueue
`kueue.x-k8s.io/v1beta2` spec, camelCase, verbatim; it is validated against the vendored
CRDs (structural schema, CEL rules) and Kueue's webhook checks, and the objects against
each other (a queue's flavors and admission checks, a LocalQueue's ClusterQueue, a flavor's
topology, an admission check's parameters, a MultiKueueConfig's clusters must exist here or
be named as existing), every problem reported with its path.
"""

from __future__ import annotations

from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.base import Issue, NestedIssues, SpecModel
from nodepools.specs.core.kube import DnsLabel, KubeObjectName
from pydantic import Field, model_validator

KUEUE_API = "kueue.x-k8s.io/v1beta2"
# Arg field -> Kueue kind, in the order objects are registered.
KINDS = {
    "topologies": "Topology",
    "resource_flavors": "ResourceFlavor",
    "cohorts": "Cohort",
    # An admission check and its parameters before the queues that name it, so a queue is
    # active as soon as it exists.
    "provisioning_request_configs": "ProvisioningRequestConfig",
    "multikueue_clusters": "MultiKueueCluster",
    "multikueue_configs": "MultiKueueConfig",
    "admission_checks": "AdmissionCheck",
    "cluster_queues": "ClusterQueue",
    "local_queues": "LocalQueue",
}
# Kueue's built-in admission check controllers and the kind of parameters each reads (a check
# whose parameters are of another kind stays inactive); other controller names are third
# parties', whose parameters are not checked here.
CHECK_CONTROLLERS = {
    "kueue.x-k8s.io/provisioning-request": "ProvisioningRequestConfig",
    "kueue.x-k8s.io/multikueue": "MultiKueueConfig",
}
KUEUE_GROUP = "kueue.x-k8s.io"


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The mappings of a list in a user's spec (anything else there is the CRD check's to
    report, not a crash here)."""
    return [item for item in value if is_dict(item)] if is_list(value) else []


class KueueObject(SpecModel):
    """A cluster-scoped Kueue object: its name and its spec as Kueue writes it."""

    name: KubeObjectName = Field(description="The object's name, as it is. Required.")
    spec: dict[str, Any] = Field(
        default_factory=dict,
        description="The object's `spec`, camelCase as in Kueue's documentation "
        "(e.g. `{namespaceSelector: {}, resourceGroups: [...]}`). Default {}.",
    )


class LocalQueueObject(KueueObject):
    """A LocalQueue: a namespace's entry to a ClusterQueue."""

    namespace: DnsLabel = Field(description="Namespace of the LocalQueue. Required.")


class KueueQueuesArgs(SpecModel):
    """Args of `KueueQueues`: Kueue objects, each registered as written."""

    resource_flavors: list[KueueObject] = Field(
        default_factory=list[KueueObject], description="ResourceFlavors. Default []."
    )
    cohorts: list[KueueObject] = Field(
        default_factory=list[KueueObject],
        description="Cohort objects (only when you want one: a ClusterQueue's `cohort` needs "
        "no Cohort object). Default [].",
    )
    cluster_queues: list[KueueObject] = Field(
        default_factory=list[KueueObject], description="ClusterQueues. Default []."
    )
    local_queues: list[LocalQueueObject] = Field(
        default_factory=list[LocalQueueObject], description="LocalQueues. Default []."
    )
    topologies: list[KueueObject] = Field(
        default_factory=list[KueueObject],
        description="Topologies for topology-aware scheduling. Default [].",
    )
    admission_checks: list[KueueObject] = Field(
        default_factory=list[KueueObject],
        description="AdmissionChecks the ClusterQueues name in `admissionChecksStrategy` "
        "(`{controllerName, parameters: {apiGroup, kind, name}}`). Default [].",
    )
    provisioning_request_configs: list[KueueObject] = Field(
        default_factory=list[KueueObject],
        description="ProvisioningRequestConfigs, the parameters of "
        "`kueue.x-k8s.io/provisioning-request` checks. Default [].",
    )
    multikueue_configs: list[KueueObject] = Field(
        default_factory=list[KueueObject],
        description="MultiKueueConfigs (the worker clusters of a `kueue.x-k8s.io/multikueue` "
        "check). Default [].",
    )
    multikueue_clusters: list[KueueObject] = Field(
        default_factory=list[KueueObject],
        description="MultiKueueClusters: how the manager reaches each worker (a kubeconfig "
        "Secret in Kueue's namespace, made elsewhere, or a ClusterProfile). Default [].",
    )
    existing_resource_flavors: list[str] = Field(
        default_factory=list[str],
        description="ResourceFlavors that exist already and queues here may use. Default [].",
    )
    existing_cluster_queues: list[str] = Field(
        default_factory=list[str],
        description="ClusterQueues that exist already and LocalQueues here may point to. "
        "Default [].",
    )
    existing_topologies: list[str] = Field(
        default_factory=list[str],
        description="Topologies that exist already and flavors here may name. Default [].",
    )
    existing_admission_checks: list[str] = Field(
        default_factory=list[str],
        description="AdmissionChecks that exist already and ClusterQueues here may name. "
        "Default [].",
    )
    existing_check_parameters: list[str] = Field(
        default_factory=list[str],
        description="Parameter objects (`<Kind>/<name>`, e.g. `ProvisioningRequestConfig/"
        "prov`) that exist already and AdmissionChecks here may name. Default [].",
    )
    existing_multikueue_clusters: list[str] = Field(
        default_factory=list[str],
        description="MultiKueueClusters that exist already and MultiKueueConfigs here may "
        "list. Default [].",
    )

    def manifests(self) -> list[tuple[str, dict[str, Any]]]:
        """(arg path, manifest) of every object, in registration order."""
        out: list[tuple[str, dict[str, Any]]] = []
        for field, kind in KINDS.items():
            for index, item in enumerate(getattr(self, field)):
                metadata: dict[str, Any] = {"name": item.name}
                if isinstance(item, LocalQueueObject):
                    metadata["namespace"] = item.namespace
                manifest: dict[str, Any] = {
                    "apiVersion": KUEUE_API,
                    "kind": kind,
                    "metadata": metadata,
                }
                if item.spec or kind != "ResourceFlavor":
                    manifest["spec"] = item.spec
                out.append((f"{field}[{index}]", manifest))
        return out

    @model_validator(mode="after")
    def _valid_together(self) -> KueueQueuesArgs:
        from nodepools.validation import validate_manifest

        issues: list[Issue] = []
        for path, manifest in self.manifests():
            for violation in validate_manifest(manifest):
                where = f"{path}.{violation.path}" if violation.path else path
                issues.append(Issue(where, violation.message))
        issues += self._duplicates() + self._references()
        if issues:
            raise NestedIssues(issues)
        return self

    def _duplicates(self) -> list[Issue]:
        issues: list[Issue] = []
        for field in KINDS:
            seen: dict[tuple[str, str], int] = {}
            for index, item in enumerate(getattr(self, field)):
                key = (getattr(item, "namespace", ""), item.name)
                if key in seen:
                    issues.append(
                        Issue(
                            f"{field}[{index}].name",
                            f"{item.name!r} is already the name of {field}[{seen[key]}]",
                        )
                    )
                seen.setdefault(key, index)
        return issues

    def _check_parameters(self) -> list[Issue]:
        """An AdmissionCheck's parameters name an object of the kind its controller reads,
        here or existing."""
        known = {
            f"{KINDS[field]}/{item.name}"
            for field in ("provisioning_request_configs", "multikueue_configs")
            for item in getattr(self, field)
        } | set(self.existing_check_parameters)
        issues: list[Issue] = []
        for i, check in enumerate(self.admission_checks):
            controller = check.spec.get("controllerName")
            parameters = check.spec.get("parameters")
            expected = CHECK_CONTROLLERS.get(controller) if isinstance(controller, str) else None
            path = f"admission_checks[{i}].spec.parameters"
            if expected is None:
                continue
            if not is_dict(parameters):
                issues.append(
                    Issue(
                        path,
                        f"{controller!r} reads its settings from a {expected}: give "
                        f"`parameters: {{apiGroup: {KUEUE_GROUP}, kind: {expected}, name: ...}}`",
                    )
                )
                continue
            group, kind, name = (parameters.get(k) for k in ("apiGroup", "kind", "name"))
            if (group, kind) != (KUEUE_GROUP, expected):
                issues.append(
                    Issue(
                        path,
                        f"{controller!r} reads a {KUEUE_GROUP} {expected}, not {kind!r} of "
                        f"{group!r}: Kueue would leave the check inactive",
                    )
                )
            elif isinstance(name, str) and f"{kind}/{name}" not in known:
                issues.append(
                    Issue(
                        f"{path}.name",
                        f"{name!r} is not a {kind} here ({sorted(known) or 'none'}); add it, or "
                        f"list '{kind}/{name}' in `existing_check_parameters` if it exists "
                        "already",
                    )
                )
        return issues

    def _references(self) -> list[Issue]:
        flavors = {f.name for f in self.resource_flavors} | set(self.existing_resource_flavors)
        queues = {q.name for q in self.cluster_queues} | set(self.existing_cluster_queues)
        topologies = {t.name for t in self.topologies} | set(self.existing_topologies)
        checks = {c.name for c in self.admission_checks} | set(self.existing_admission_checks)
        clusters = {c.name for c in self.multikueue_clusters} | set(
            self.existing_multikueue_clusters
        )
        issues: list[Issue] = []

        def unknown(path: str, what: str, name: Any, known: set[str], arg: str) -> None:
            if isinstance(name, str) and name not in known:
                issues.append(
                    Issue(
                        path,
                        f"{name!r} is not {'an' if what[0] in 'AEIOU' else 'a'} {what} here "
                        f"({sorted(known) or 'none'}); add it, or "
                        f"list it in `{arg}` if it exists already",
                    )
                )

        for i, flavor in enumerate(self.resource_flavors):
            unknown(
                f"resource_flavors[{i}].spec.topologyName",
                "Topology",
                flavor.spec.get("topologyName"),
                topologies,
                "existing_topologies",
            )
        for i, queue in enumerate(self.cluster_queues + self.cohorts):
            field = "cluster_queues" if i < len(self.cluster_queues) else "cohorts"
            index = i if field == "cluster_queues" else i - len(self.cluster_queues)
            for g, group in enumerate(_dicts(queue.spec.get("resourceGroups"))):
                for f, flavor in enumerate(_dicts(group.get("flavors"))):
                    unknown(
                        f"{field}[{index}].spec.resourceGroups[{g}].flavors[{f}].name",
                        "ResourceFlavor",
                        flavor.get("name"),
                        flavors,
                        "existing_resource_flavors",
                    )
            strategy = queue.spec.get("admissionChecksStrategy")
            named = _dicts(strategy.get("admissionChecks") if is_dict(strategy) else None)
            for c, check in enumerate(named):
                unknown(
                    f"{field}[{index}].spec.admissionChecksStrategy.admissionChecks[{c}].name",
                    "AdmissionCheck",
                    check.get("name"),
                    checks,
                    "existing_admission_checks",
                )
                on_flavors = check.get("onFlavors")
                for o, name in enumerate(on_flavors if is_list(on_flavors) else ()):
                    unknown(
                        f"{field}[{index}].spec.admissionChecksStrategy.admissionChecks[{c}]"
                        f".onFlavors[{o}]",
                        "ResourceFlavor",
                        name,
                        flavors,
                        "existing_resource_flavors",
                    )
        for i, config in enumerate(self.multikueue_configs):
            listed = config.spec.get("clusters")
            for c, name in enumerate(listed if is_list(listed) else ()):
                unknown(
                    f"multikueue_configs[{i}].spec.clusters[{c}]",
                    "MultiKueueCluster",
                    name,
                    clusters,
                    "existing_multikueue_clusters",
                )
        issues += self._check_parameters()
        for i, local in enumerate(self.local_queues):
            unknown(
                f"local_queues[{i}].spec.clusterQueue",
                "ClusterQueue",
                local.spec.get("clusterQueue"),
                queues,
                "existing_cluster_queues",
            )
        return issues
