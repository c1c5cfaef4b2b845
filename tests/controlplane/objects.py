"""Kubernetes objects a program registers, as manifests, and how they are applied for real.

A captured `kubernetes:<group>/<version>:<Kind>` registration's inputs are the object's
manifest (the provider sends them as they are), except that numbers crossed the engine as
protobuf doubles: integral ones are turned back into integers, as the provider's own
marshalling does. Objects are applied by server-side apply, first `dryRun=All`, then for real.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nodepools.offline import Capture

FIELD_MANAGER = "nodepools-tests"
# Applied before everything else, in this order; the rest by (kind, namespace, name).
KIND_ORDER = (
    "Namespace",
    "ServiceAccount",
    "PriorityClass",
    "ResourceFlavor",
    "Cohort",
    "WorkloadPriorityClass",
    "ClusterQueue",
    "LocalQueue",
    "EC2NodeClass",
    "NodePool",
    "ClusterRole",
    "Role",
    "ClusterRoleBinding",
    "RoleBinding",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
)
# Registered types that are not API objects: rendered and checked elsewhere, never applied.
NOT_API_OBJECTS = {
    "kubernetes:helm.sh/v3:Release": "a Helm release: its pinned chart, rendered by helm with these values, is applied in tests/controlplane/test_helm_charts.py",
    "kubernetes:helm.sh/v4:Chart": "a Helm chart needs the chart (not served here)",
    "kubernetes:yaml/v2:ConfigGroup": "a YAML bundle of objects, registered as its own children",
    "pulumi:providers:kubernetes": "a provider, not an object",
}


@dataclass(frozen=True)
class KubeObject:
    """One manifest and where it came from."""

    source: str  # "<stack or program>: <resource name>"
    manifest: dict[str, Any]

    @property
    def label(self) -> str:
        metadata = self.manifest.get("metadata", {})
        where = f"{metadata['namespace']}/" if metadata.get("namespace") else ""
        return f"{self.manifest['apiVersion']} {self.manifest['kind']} {where}{metadata.get('name')} ({self.source})"


def integral(value: Any) -> Any:
    """Integral doubles back to integers, everywhere in a manifest."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [integral(v) for v in value]
    return value


def kube_objects(capture: Capture, source: str) -> tuple[list[KubeObject], dict[str, str]]:
    """(the API objects a capture registered in apply order, {resource: why not applied})."""
    found: list[KubeObject] = []
    skipped: dict[str, str] = {}
    for resource in capture.resources:
        if not resource.custom or not resource.type.startswith(
            ("kubernetes:", "pulumi:providers:kubernetes")
        ):
            continue
        if resource.type in NOT_API_OBJECTS:
            skipped[f"{source}: {resource.type} {resource.name}"] = NOT_API_OBJECTS[resource.type]
            continue
        if resource.unknown_paths:
            skipped[f"{source}: {resource.type} {resource.name}"] = (
                f"inputs known only after apply: {', '.join(resource.unknown_paths)}"
            )
            continue
        manifest = integral(resource.inputs)
        _, group_version, kind = resource.type.split(":")
        api_version = group_version.removeprefix("core/")
        assert manifest.get("apiVersion", api_version) == api_version, resource.name
        assert manifest.get("kind", kind) == kind, resource.name
        manifest = {"apiVersion": api_version, "kind": kind, **manifest}
        found.append(KubeObject(source=f"{source}: {resource.name}", manifest=manifest))
    return sorted(found, key=apply_rank), skipped


def apply_rank(obj: KubeObject) -> tuple[int, str, str, str]:
    kind = obj.manifest["kind"]
    metadata = obj.manifest.get("metadata", {})
    rank = KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
    return (rank, kind, metadata.get("namespace", ""), metadata.get("name", ""))


def server_message(error: Exception) -> str:
    """The API server's own words from a failed request."""
    body = getattr(error, "body", None)
    if isinstance(body, bytes):
        body = body.decode(errors="replace")
    if body:
        import json

        try:
            return str(json.loads(body).get("message", body))
        except ValueError:
            return str(body)
    return str(error)


def apply(dynamic: Any, obj: KubeObject, *, dry_run: bool) -> dict[str, Any]:
    """Server-side apply one object (dryRun=All when asked); returns what the server answered."""
    manifest = obj.manifest
    resource = dynamic.resources.get(api_version=manifest["apiVersion"], kind=manifest["kind"])
    metadata = manifest["metadata"]
    kwargs: dict[str, Any] = {"field_manager": FIELD_MANAGER, "force_conflicts": True}
    if dry_run:
        kwargs["dry_run"] = "All"
    answer = dynamic.server_side_apply(
        resource,
        body=manifest,
        name=metadata["name"],
        namespace=(metadata.get("namespace") or "default") if resource.namespaced else None,
        **kwargs,
    )
    return answer.to_dict()


def read_back(dynamic: Any, obj: KubeObject) -> dict[str, Any]:
    manifest = obj.manifest
    resource = dynamic.resources.get(api_version=manifest["apiVersion"], kind=manifest["kind"])
    metadata = manifest["metadata"]
    namespace = (metadata.get("namespace") or "default") if resource.namespaced else None
    return dynamic.get(resource, name=metadata["name"], namespace=namespace).to_dict()
