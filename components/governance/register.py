"""Rendered manifests -> Kubernetes resources, children of a governance component.

Manifests are passed through verbatim (camelCase dicts), so what was validated is exactly
what is registered: built-in kinds as their typed pulumi_kubernetes class registers them
(`KubernetesObject`), custom kinds (Kueue's) as `apiextensions.CustomResource` does. Neither
imports pulumi_kubernetes, whose core/v1 module alone costs a cold plan about 250 ms.
"""

from __future__ import annotations

from collections.abc import Iterable

import pulumi
from nodepools.backends.provider_resource import KubernetesCustomObject, KubernetesObject
from nodepools.governance.manifests import Rendered


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
        built_in = (api_version, kind) in KubernetesObject.KINDS
        resource_class = KubernetesObject if built_in else KubernetesCustomObject
        resource: pulumi.CustomResource = resource_class(name, manifest, opts=opts)
        if kind == "Namespace":
            namespaces[manifest["metadata"]["name"]] = resource
        created[item.role] = resource
    return created
