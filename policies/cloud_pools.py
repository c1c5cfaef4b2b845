"""EKS node groups, OKE node pools and ROSA machine pools read into a `PoolView`.

Each reads the resource exactly as the engine sends it: camelCase inputs for the EKS and
OKE provider resources, the snake_case OCM body of the ROSA dynamic resource.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from nodepools.policies.engine_values import items, mapping, number, string_map
from nodepools.policies.pool_model import PoolView, Taint, accelerators, kubernetes_taints

# The labels and tags the components set, from their one definition: the pack reads
# hand-written resources by the same conventions.
from nodepools.specs.core.labels import MAX_NODES_TAG, MIN_NODES_TAG, POOL_LABEL

_EKS_TAINT_EFFECTS = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}


def eks_pool(props: Mapping[str, Any], name: str) -> PoolView:
    labels = string_map(props.get("labels"))
    instance_types = tuple(str(t) for t in items(props.get("instanceTypes")))
    scaling = mapping(props.get("scalingConfig"))
    return PoolView(
        platform="eks",
        name=labels.get(POOL_LABEL) or str(props.get("nodeGroupName") or name),
        instance_types=instance_types,
        accelerators=accelerators(instance_types),
        taints=kubernetes_taints(props.get("taints"), effects=_EKS_TAINT_EFFECTS),
        spot=props.get("capacityType") == "SPOT",
        capacity_types=("capacity-block",) if props.get("capacityType") == "CAPACITY_BLOCK" else (),
        min_nodes=number(scaling.get("minSize")),
        max_nodes=number(scaling.get("maxSize")),
        # EKS managed node groups refuse a spot max price (the components reject it too).
        max_price=None,
        labels=labels,
        # With a launch template the disk lives on the template, which this view can't see.
        boot_volume_gb=number(props.get("diskSize")),
        bare_metal=False,
        paths={
            "max_nodes": "scalingConfig.maxSize",
            "labels": "labels",
            "taints": "taints",
            "boot_volume_gb": "diskSize",
        },
    )


_REGISTER_WITH_TAINTS = re.compile(r"--register-with-taints[= ]([^\s\"']+)")


def _decode_user_data(encoded: str) -> str:
    # OCI wants base64; a hand-written pool may still pass the script as it is.
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return encoded


def taints_from_kubelet_args(script: str) -> tuple[Taint, ...]:
    """Taints registered by kubelet `--register-with-taints=key=value:Effect,key2:Effect`."""
    taints: list[Taint] = []
    for spec in _REGISTER_WITH_TAINTS.findall(script):
        for entry in spec.split(","):
            key_value, _, effect = entry.rpartition(":")
            key, has_value, value = key_value.partition("=")
            if key:
                taints.append(Taint(key, value if has_value else None, effect))
    return tuple(taints)


def oke_pool(props: Mapping[str, Any], name: str) -> PoolView:
    labels = {
        str(entry.get("key")): str(entry.get("value"))
        for entry in map(mapping, items(props.get("initialNodeLabels")))
        if entry.get("key") is not None
    }
    shape = str(props.get("nodeShape") or "")
    details = mapping(props.get("nodeConfigDetails"))
    size = number(details.get("size"))
    tags = mapping(props.get("freeformTags"))
    user_data = mapping(props.get("nodeMetadata")).get("user_data")
    placements = [mapping(p) for p in items(details.get("placementConfigs"))]
    min_tag, max_tag = number(tags.get(MIN_NODES_TAG)), number(tags.get(MAX_NODES_TAG))
    return PoolView(
        platform="oke",
        name=labels.get(POOL_LABEL) or str(props.get("name") or name),
        instance_types=(shape,) if shape else (),
        accelerators=accelerators([shape] if shape else []),
        taints=taints_from_kubelet_args(_decode_user_data(user_data))
        if isinstance(user_data, str)
        else (),
        spot=any(p.get("preemptibleNodeConfig") for p in placements),
        min_nodes=min_tag if min_tag is not None else size,
        max_nodes=max_tag if max_tag is not None else size,
        max_price=None,  # OCI preemptible capacity has no price knob
        labels=labels,
        boot_volume_gb=number(mapping(props.get("nodeSourceDetails")).get("bootVolumeSizeInGbs")),
        bare_metal=shape.startswith("BM."),
        ocpus=number(mapping(props.get("nodeShapeConfig")).get("ocpus")),
        memory_gb=number(mapping(props.get("nodeShapeConfig")).get("memoryInGbs")),
        paths={
            "max_nodes": f"freeformTags.{MAX_NODES_TAG}"
            if max_tag is not None
            else "nodeConfigDetails.size",
            "labels": "initialNodeLabels",
            "taints": "nodeMetadata.user_data (--register-with-taints)",
            "boot_volume_gb": "nodeSourceDetails.bootVolumeSizeInGbs",
        },
    )


def rosa_pool(props: Mapping[str, Any], name: str) -> PoolView:
    body = mapping(props.get("body"))
    labels = string_map(body.get("labels"))
    instance_type = str(body.get("instance_type") or "")
    autoscaling = mapping(body.get("autoscaling"))
    replicas = number(body.get("replicas"))
    aws = mapping(body.get("aws"))
    spot_options = aws.get("spot_market_options")
    autoscaled = bool(autoscaling)
    return PoolView(
        platform="rosa",
        name=labels.get(POOL_LABEL) or str(body.get("id") or name),
        instance_types=(instance_type,) if instance_type else (),
        accelerators=accelerators([instance_type] if instance_type else []),
        taints=kubernetes_taints(body.get("taints")),
        spot=isinstance(spot_options, Mapping),
        min_nodes=number(autoscaling.get("min_replicas")) if autoscaled else replicas,
        max_nodes=number(autoscaling.get("max_replicas")) if autoscaled else replicas,
        max_price=number(mapping(spot_options).get("max_price")),
        labels=labels,
        boot_volume_gb=number(mapping(mapping(body.get("root_volume")).get("aws")).get("size")),
        bare_metal=False,
        paths={
            "max_nodes": "body.autoscaling.max_replicas" if autoscaled else "body.replicas",
            "labels": "body.labels",
            "taints": "body.taints",
            "max_price": "body.aws.spot_market_options.max_price",
            "boot_volume_gb": "body.root_volume.aws.size",
        },
    )
