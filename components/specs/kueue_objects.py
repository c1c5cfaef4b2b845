"""Args of KueueQueues: Kueue objects written as Kueue writes them, checked before anything
is registered.

PoolQuotas models an organisation (departments, projects, Run:ai-style over-quota); this is
the other way in, for users who already have Kueue objects or want exactly what Kueue's own
examples say: ResourceFlavors of any name (with or without node labels, with node taints
and tolerations, a topology), ClusterQueues with or without a cohort (any namespace
selector, `{}` for all namespaces; only the covered resources they list; fair sharing,
queueing strategy, admission checks, preemption), Cohorts only when listed, LocalQueues of
any name (several per namespace), Topologies. Each object's `spec` is the Kueue
`kueue.x-k8s.io/v1beta2` spec, camelCase, verbatim; it is validated against the vendored
CRDs (structural schema, CEL rules) and Kueue's webhook checks, and the objects against
each other (a queue's flavors, a LocalQueue's ClusterQueue, a flavor's topology must exist
here or be named as existing), every problem reported with its path.
"""

from __future__ import annotations

from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.specs.base import Issue, NestedIssues, SpecModel
from nodepools.specs.kube import DnsLabel, KubeObjectName
from pydantic import Field, model_validator

KUEUE_API = "kueue.x-k8s.io/v1beta2"
# Arg field -> Kueue kind, in the order objects are registered.
KINDS = {
    "topologies": "Topology",
    "resource_flavors": "ResourceFlavor",
    "cohorts": "Cohort",
    "cluster_queues": "ClusterQueue",
    "local_queues": "LocalQueue",
}


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

    def _references(self) -> list[Issue]:
        flavors = {f.name for f in self.resource_flavors} | set(self.existing_resource_flavors)
        queues = {q.name for q in self.cluster_queues} | set(self.existing_cluster_queues)
        topologies = {t.name for t in self.topologies} | set(self.existing_topologies)
        issues: list[Issue] = []

        def unknown(path: str, what: str, name: Any, known: set[str], arg: str) -> None:
            if isinstance(name, str) and name not in known:
                issues.append(
                    Issue(
                        path,
                        f"{name!r} is not a {what} here ({sorted(known) or 'none'}); add it, or "
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
            checks = _dicts(strategy.get("admissionChecks") if is_dict(strategy) else None)
            for c, check in enumerate(checks):
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
        for i, local in enumerate(self.local_queues):
            unknown(
                f"local_queues[{i}].spec.clusterQueue",
                "ClusterQueue",
                local.spec.get("clusterQueue"),
                queues,
                "existing_cluster_queues",
            )
        return issues
