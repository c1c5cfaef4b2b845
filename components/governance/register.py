"""Rendered manifests -> Kubernetes resources, children of a governance component.

Manifests are passed through verbatim (camelCase dicts), so what was validated is exactly
what is registered: built-in kinds by their typed pulumi_kubernetes class, custom kinds
(Kueue's) as `apiextensions.CustomResource` (`nodepools.backends.kubernetes`).
"""

from __future__ import annotations

from collections.abc import Iterable

import pulumi
from nodepools.governance.manifests import Rendered


def register_manifests(
    component_name: str, objects: Iterable[Rendered], parent: pulumi.Resource
) -> dict[str, pulumi.CustomResource]:
    """Register every object as `f"{component_name}-{role}"`, parented to `parent`.

    Objects in a namespace this batch creates depend on that Namespace (the API server
    refuses them until it exists); the provider comes from the parent's options.
    """
    # The backend imports pulumi_kubernetes: only once a governance component is built.
    from nodepools.backends.kubernetes import register_object

    created: dict[str, pulumi.CustomResource] = {}
    namespaces: dict[str, pulumi.CustomResource] = {}
    for item in objects:
        manifest = item.manifest
        namespace = manifest["metadata"].get("namespace")
        depends_on = [namespaces[namespace]] if namespace in namespaces else []
        opts = pulumi.ResourceOptions(parent=parent, depends_on=depends_on)
        resource = register_object(f"{component_name}-{item.role}", manifest, opts)
        if manifest["kind"] == "Namespace":
            namespaces[manifest["metadata"]["name"]] = resource
        created[item.role] = resource
    return created
