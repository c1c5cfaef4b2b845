"""Karpenter v1 NodePools and EC2NodeClasses -> KarpenterNodePool entries.

Each NodePool becomes one `KarpenterNodePool` named after it, written to say what the
NodePool says: `identity_label: false` (no label of ours), `capacity_types: []` (the
requirements as written), its taints written out (`[]` too, so no accelerator taint is
added). The first pool naming an EC2NodeClass of the files creates it (`node_class`, with
its `name`), later ones name it (`node_class_name`); a class no file holds is used by name.
Fields without an arg are left out, and the comparison lists them.
"""

from __future__ import annotations

import re
from typing import Any, cast

from nodepools.importers.documents import Document
from nodepools.importers.model import Imported, object_key
from nodepools.json_values import is_dict, is_list
from nodepools.offline import Capture

KINDS = ("NodePool", "EC2NodeClass")
NODE_POOL_TYPE = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS_TYPE = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
CLASS_GROUP = "karpenter.k8s.aws"
COMPONENT = "KarpenterNodePool"

# EC2NodeClass spec fields written as an arg of the same meaning, snake_case.
_CLASS_FIELDS = {
    "amiFamily": "ami_family",
    "userData": "user_data",
    "instanceStorePolicy": "instance_store_policy",
    "instanceProfile": "instance_profile",
    "role": "role",
    "detailedMonitoring": "detailed_monitoring",
    "tags": "tags",
    "metadataOptions": "metadata_options",
    "blockDeviceMappings": "block_device_mappings",
    "capacityReservationSelectorTerms": "capacity_reservation_selector_terms",
    "placementGroupSelector": "placement_group",
    "networkInterfaces": "network_interfaces",
}
_CLASS_GAPS = {
    "kubelet": "KarpenterNodePool has no kubelet settings for its EC2NodeClass",
    "associatePublicIPAddress": "KarpenterNodePool has no `associatePublicIPAddress`",
    "context": "KarpenterNodePool has no `context`",
    "ipPrefixCount": "KarpenterNodePool has no `ipPrefixCount`",
}


def snake(name: str) -> str:
    """`kmsKeyID` -> `kms_key_id`, `httpProtocolIPv6` -> `http_protocol_ipv6`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def snake_keys(value: Any) -> Any:
    if is_dict(value):
        return {snake(key): snake_keys(item) for key, item in value.items()}
    if is_list(value):
        return [snake_keys(item) for item in value]
    return value


def _tag_terms(imported: Imported, where: str, terms: Any) -> list[dict[str, str]] | None:
    """Selector terms by tags as the arg takes them; None (and a refusal) for others."""
    if is_list(terms) and all(is_dict(t) and set(t) == {"tags"} for t in terms):
        return [
            dict(cast("dict[str, str]", t["tags"])) for t in cast("list[dict[str, Any]]", terms)
        ]
    imported.explain(where, "KarpenterNodePool selects subnets and security groups by tags only")
    return None


def _class_args(imported: Imported, doc: dict[str, Any]) -> dict[str, Any] | None:
    key = object_key("EC2NodeClass", doc["metadata"]["name"])
    imported.explain(f"{key} apiVersion", "KarpenterNodePool writes Karpenter v1 objects")
    spec: dict[str, Any] = dict(doc.get("spec") or {})
    args: dict[str, Any] = {"name": doc["metadata"]["name"]}
    if annotations := doc["metadata"].get("annotations"):
        args["annotations"] = annotations
    for field, arg in (
        ("subnetSelectorTerms", "subnet_selector_tags"),
        ("securityGroupSelectorTerms", "security_group_selector_tags"),
    ):
        terms = _tag_terms(imported, f"{key} spec.{field}", spec.pop(field, None))
        if terms is None:
            return None
        args[arg] = terms
    terms = spec.pop("amiSelectorTerms", None)
    if is_list(terms) and len(terms) == 1 and is_dict(terms[0]) and set(terms[0]) == {"alias"}:
        args["ami_alias"] = terms[0]["alias"]
    elif terms is not None:
        args["ami_selector_terms"] = snake_keys(terms)
    for field, arg in _CLASS_FIELDS.items():
        if field in spec:
            value = spec.pop(field)
            args[arg] = value if field in ("tags", "userData") else snake_keys(value)
    for field in sorted(spec):
        imported.explain(f"{key} spec.{field}", _CLASS_GAPS.get(field, f"no arg for `{field}`"))
    return args


def _pool_args(imported: Imported, doc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The args of one NodePool (without its node class) and the class it names."""
    key = object_key("NodePool", doc["metadata"]["name"])
    imported.explain(f"{key} apiVersion", "KarpenterNodePool writes Karpenter v1 objects")
    spec: dict[str, Any] = dict(doc.get("spec") or {})
    template: dict[str, Any] = dict(spec.pop("template", None) or {})
    template_meta: dict[str, Any] = dict(template.pop("metadata", None) or {})
    template_spec: dict[str, Any] = dict(template.pop("spec", None) or {})
    ref: dict[str, Any] = template_spec.pop("nodeClassRef", None) or {}
    if (ref.get("group"), ref.get("kind")) != (CLASS_GROUP, "EC2NodeClass"):
        imported.explain(
            f"{key} spec.template.spec.nodeClassRef",
            f"KarpenterNodePool names an EC2NodeClass of group {CLASS_GROUP!r} only",
        )
    args: dict[str, Any] = {
        "identity_label": False,
        "capacity_types": [],
        "requirements": snake_keys(template_spec.pop("requirements", [])),
        "taints": template_spec.pop("taints", []),
    }
    if labels := template_meta.pop("labels", None):
        args["labels"] = labels
    if node_annotations := template_meta.pop("annotations", None):
        args["node_annotations"] = node_annotations
    if annotations := doc["metadata"].get("annotations"):
        args["annotations"] = annotations
    if doc["metadata"].get("labels"):
        imported.explain(f"{key} metadata.labels", "KarpenterNodePool has no NodePool labels")
    for field, arg in (
        ("startupTaints", "startup_taints"),
        ("expireAfter", "expire_after"),
        ("terminationGracePeriod", "termination_grace_period"),
    ):
        if field in template_spec:
            args[arg] = template_spec.pop(field)
    for field in ("limits", "weight", "replicas"):
        if field in spec:
            args[field] = spec.pop(field)
    if "disruption" in spec:
        args["disruption"] = snake_keys(spec.pop("disruption"))
    for field in sorted(template_meta):
        imported.explain(
            f"{key} spec.template.metadata.{field}", f"KarpenterNodePool has no template {field}"
        )
    for field in sorted(template_spec):
        imported.explain(f"{key} spec.template.spec.{field}", f"no arg for `{field}`")
    for field in sorted(spec):
        imported.explain(f"{key} spec.{field}", f"no arg for `{field}`")
    if "disruption" not in args:
        imported.explain(
            f"{key} spec.disruption",
            "a pool that launches accelerator instances only gets `consolidationPolicy: "
            "WhenEmpty`, `consolidateAfter: 10m` when no disruption is written",
        )
    return args, str(ref.get("name", ""))


def import_documents(documents: list[Document]) -> Imported:
    imported = Imported("karpenter", {}, {}, default_why="KarpenterNodePool renders it this way")
    classes = {
        d.data["metadata"]["name"]: d.data for d in documents if d.data["kind"] == "EC2NodeClass"
    }
    used: set[str] = set()
    entries: list[dict[str, Any]] = []
    for doc in (d.data for d in documents if d.data["kind"] == "NodePool"):
        name: str = doc["metadata"]["name"]
        args, class_name = _pool_args(imported, doc)
        keys = [object_key("NodePool", name)]
        if class_name in classes and class_name not in used:
            class_args = _class_args(imported, classes[class_name])
            if class_args is None:
                imported.refuse(
                    keys[0], "present", f"its EC2NodeClass {class_name!r} can't be imported"
                )
                continue
            used.add(class_name)
            args["node_class"] = dict(sorted(class_args.items()))
            keys.append(object_key("EC2NodeClass", class_name))
            imported.upstream[keys[1]] = classes[class_name]
        else:
            args["node_class_name"] = class_name
        imported.upstream[keys[0]] = doc
        imported.origins[name] = keys
        entries.append({"component": COMPONENT, "name": name, **dict(sorted(args.items()))})
    for class_name in sorted(set(classes) - used):
        imported.refuse(
            object_key("EC2NodeClass", class_name),
            "present",
            "no NodePool of the files uses it; a KarpenterNodePool creates its class with it",
        )
    if entries:
        imported.config["nodepools:pools"] = entries
    return imported


def rendered(capture: Capture) -> dict[str, dict[str, Any]]:
    """The NodePools and EC2NodeClasses the plan registered, by `Kind/name`."""
    found: dict[str, dict[str, Any]] = {}
    for resource in capture.resources:
        if resource.type in (NODE_POOL_TYPE, NODE_CLASS_TYPE):
            manifest = resource.inputs
            found[object_key(manifest["kind"], manifest["metadata"]["name"])] = manifest
    return found
