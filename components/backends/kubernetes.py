"""Rendered Kubernetes manifests registered through pulumi_kubernetes's typed classes.

A built-in kind goes through its own class (`pulumi_kubernetes.apps.v1.Deployment`, ...),
which also aliases the kind's earlier API versions, so a stack made with one of those
adopts the object instead of replacing it; any other kind (Karpenter's, Kueue's) through
`pulumi_kubernetes.apiextensions.CustomResource`. The manifests' fields are passed as
rendered (camelCase dicts), so what was validated is what is registered.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, cast

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

# Kubernetes' own API groups without the `.k8s.io` suffix ("" is the core group).
_UNSUFFIXED_GROUPS = frozenset({"", "apps", "autoscaling", "batch", "extensions", "policy"})
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


def built_in_class(api_version: str, kind: str) -> type[pulumi.CustomResource] | None:
    """The typed pulumi_kubernetes class of a built-in kind, None for a custom kind.

    The SDK's modules are named after the group's first label (`rbac` for
    rbac.authorization.k8s.io, `core` for the core group) and the version. A kind of one of
    Kubernetes' own groups that the installed SDK has no class for is refused, rather than
    registered without the aliases its class would add."""
    group, _, version = api_version.rpartition("/")
    if group not in _UNSUFFIXED_GROUPS and not group.endswith(".k8s.io"):
        return None
    module_name = f"pulumi_kubernetes.{group.split('.')[0] or 'core'}.{version}"
    try:
        found: object = getattr(importlib.import_module(module_name), kind, None)
    except ModuleNotFoundError:
        found = None
    if not (isinstance(found, type) and issubclass(found, pulumi.CustomResource)):
        raise ValueError(
            f"pulumi_kubernetes has no class for the built-in kind {api_version} {kind}"
        )
    return found


def _argument_name(field: str) -> str:
    """A manifest's top-level field as the typed class's argument (`roleRef` -> `role_ref`)."""
    return _CAMEL_HUMP.sub(r"_\1", field).lower()


def register_object(
    name: str, manifest: dict[str, Any], opts: pulumi.ResourceOptions
) -> pulumi.CustomResource:
    """`manifest` as a resource `name`: by its kind's typed class (`built_in_class`), or as
    a CustomResource."""
    api_version, kind = manifest["apiVersion"], manifest["kind"]
    fields = {key: value for key, value in manifest.items() if key not in ("apiVersion", "kind")}
    typed = built_in_class(api_version, kind)
    if typed is None:
        return custom_object(name, manifest, opts)
    arguments = {_argument_name(key): value for key, value in fields.items()}
    return typed(name, opts=opts, **arguments)


def custom_object(
    name: str, manifest: dict[str, Any], opts: pulumi.ResourceOptions
) -> CustomResource:
    """An object of a custom resource kind: `apiVersion`, `kind`, `metadata` and `spec` (the
    only fields CustomResource takes)."""
    extra = sorted(set(manifest) - {"apiVersion", "kind", "metadata", "spec"})
    if extra:
        raise ValueError(f"{manifest['kind']} {name!r}: CustomResource takes no {extra}")
    return CustomResource(
        name,
        api_version=manifest["apiVersion"],
        kind=manifest["kind"],
        metadata=manifest.get("metadata"),
        spec=manifest.get("spec"),
        opts=opts,
    )


def custom_object_name(resource: CustomResource) -> pulumi.Output[str]:
    """`metadata.name` of a custom object, as the provider returns it.

    CustomResource declares no output properties: the SDK gives it one per input, holding
    the provider's plain form (a dict with camelCase keys)."""
    metadata = cast("pulumi.Output[dict[str, Any]]", vars(resource)["metadata"])
    return metadata.apply(lambda value: cast("str", value["name"]))
