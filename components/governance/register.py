"""Rendered manifests -> pulumi_kubernetes resources, children of a governance component.

The only governance module that imports pulumi_kubernetes, and only when called, so
`import nodepools` stays light. Manifests are passed through verbatim (camelCase dicts),
so what was validated is exactly what is registered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pulumi
from nodepools.backends.provider_resource import KubernetesCustomObject
from nodepools.governance.manifests import Rendered

# Top-level manifest fields -> constructor keyword arguments of the typed resources.
_KWARGS = {
    "metadata": "metadata",
    "spec": "spec",
    "template": "template",
    "rules": "rules",
    "roleRef": "role_ref",
    "subjects": "subjects",
}


def _resource_class(api_version: str, kind: str) -> Any:
    import pulumi_kubernetes as k8s

    classes = {
        ("v1", "Namespace"): k8s.core.v1.Namespace,
        ("v1", "PodTemplate"): k8s.core.v1.PodTemplate,
        (
            "admissionregistration.k8s.io/v1",
            "ValidatingAdmissionPolicy",
        ): k8s.admissionregistration.v1.ValidatingAdmissionPolicy,
        (
            "admissionregistration.k8s.io/v1",
            "ValidatingAdmissionPolicyBinding",
        ): k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding,
        ("rbac.authorization.k8s.io/v1", "Role"): k8s.rbac.v1.Role,
        ("rbac.authorization.k8s.io/v1", "RoleBinding"): k8s.rbac.v1.RoleBinding,
    }
    return classes.get((api_version, kind))


def register_manifests(
    component_name: str, objects: Iterable[Rendered], parent: pulumi.Resource
) -> dict[str, pulumi.CustomResource]:
    """Register every object as `f"{component_name}-{role}"`, parented to `parent`.

    Objects in a namespace this batch creates depend on that Namespace (the API server
    refuses them until it exists); the provider comes from the parent's options.
    """
    created: dict[str, pulumi.CustomResource] = {}
    namespaces: dict[str, pulumi.CustomResource] = {}
    for item in objects:
        manifest = item.manifest
        api_version, kind = manifest["apiVersion"], manifest["kind"]
        namespace = manifest["metadata"].get("namespace")
        depends_on = [namespaces[namespace]] if namespace in namespaces else []
        opts = pulumi.ResourceOptions(parent=parent, depends_on=depends_on)
        name = f"{component_name}-{item.role}"
        fields = {k: v for k, v in manifest.items() if k not in ("apiVersion", "kind")}
        resource_class = _resource_class(api_version, kind)
        if resource_class is None:
            # A kind of a custom resource (Kueue's), as apiextensions.CustomResource makes it.
            resource = KubernetesCustomObject(name, manifest, opts=opts)
        else:
            resource = resource_class(
                name, opts=opts, **{_KWARGS[key]: value for key, value in fields.items()}
            )
        if kind == "Namespace":
            namespaces[manifest["metadata"]["name"]] = resource
        created[item.role] = resource
    return created
