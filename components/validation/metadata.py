"""``metadata`` of a custom resource, checked as the API server checks ObjectMeta.

Port of apimachinery ``api/validation/objectmeta.go`` (ValidateObjectMetaAccessor with
``NameIsDNSSubdomain``, the name rule for every custom resource): name or
generateName, namespace syntax, labels, annotations and finalizers. Fields ObjectMeta
does not have are reported as unknown (the decoder drops them, like pruning).

A namespaced object without ``metadata.namespace`` is fine here: kubectl and Pulumi
fill in the namespace of the request. A namespace on a cluster-scoped object is
cleared by the API server, so it is not an error either.
"""

from __future__ import annotations

from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.validation.names import (
    ANNOTATIONS_MAX_BYTES,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_labels,
)
from nodepools.validation.violations import Collector, child

OBJECT_META_FIELDS = frozenset(
    {
        "annotations",
        "creationTimestamp",
        "deletionGracePeriodSeconds",
        "deletionTimestamp",
        "finalizers",
        "generateName",
        "generation",
        "labels",
        "managedFields",
        "name",
        "namespace",
        "ownerReferences",
        "resourceVersion",
        "selfLink",
        "uid",
    }
)


def prune_unknown_metadata(meta: Any, out: Collector) -> None:
    if not is_dict(meta):
        return
    for name in [k for k in meta if k not in OBJECT_META_FIELDS]:
        del meta[name]
        out.unknown_field(child("metadata", str(name)))


def validate_metadata(meta: Any, namespaced: bool, out: Collector) -> None:
    if meta is None:
        out.required("metadata.name", "name or generateName is required")
        return
    if not is_dict(meta):
        out.type_invalid("metadata", meta, "object")
        return

    name = meta.get("name")
    generate_name = meta.get("generateName")
    for field, value in (("name", name), ("generateName", generate_name)):
        if value is not None and not isinstance(value, str):
            out.type_invalid(child("metadata", field), value, "string")
    if isinstance(generate_name, str) and generate_name:
        # A generated name gets a random suffix, so a trailing '-' is allowed.
        masked = generate_name[:-1] + "a" if generate_name.endswith("-") else generate_name
        for msg in is_dns1123_subdomain(masked):
            out.invalid("metadata.generateName", generate_name, msg)
    if isinstance(name, str) and name:
        for msg in is_dns1123_subdomain(name):
            out.invalid("metadata.name", name, msg)
    if not name and not generate_name:
        out.required("metadata.name", "name or generateName is required")

    namespace = meta.get("namespace")
    if namespaced and namespace is not None:
        if not isinstance(namespace, str):
            out.type_invalid("metadata.namespace", namespace, "string")
        else:
            for msg in is_dns1123_label(namespace):
                out.invalid("metadata.namespace", namespace, msg)

    if meta.get("labels") is not None:
        validate_labels(out, meta["labels"], "metadata.labels")
    if meta.get("annotations") is not None:
        _validate_annotations(meta["annotations"], out)
    if meta.get("finalizers") is not None:
        _validate_finalizers(meta["finalizers"], out)


def _validate_annotations(annotations: Any, out: Collector) -> None:
    path = "metadata.annotations"
    if not is_dict(annotations):
        out.type_invalid(path, annotations, "object")
        return
    total = 0
    for name in sorted(annotations, key=str):
        value = annotations[name]
        if not isinstance(name, str):
            out.type_invalid(path, name, "string")
            continue
        # Annotation keys are case-insensitive qualified names (objectmeta.go lowers them).
        for msg in is_qualified_name(name.lower()):
            out.invalid(path, name, msg)
        if not isinstance(value, str):
            out.type_invalid(path, value, "string")
            continue
        total += len(name.encode()) + len(value.encode())
    if total > ANNOTATIONS_MAX_BYTES:
        out.too_long(path, f"{total} bytes", ANNOTATIONS_MAX_BYTES)


def _validate_finalizers(finalizers: Any, out: Collector) -> None:
    path = "metadata.finalizers"
    if not is_list(finalizers):
        out.type_invalid(path, finalizers, "array")
        return
    for finalizer in finalizers:
        if not isinstance(finalizer, str):
            out.type_invalid(path, finalizer, "string")
            continue
        for msg in is_qualified_name(finalizer):
            out.invalid(path, finalizer, msg)
