"""Mocks for the offline engine: deterministic ids and the computed outputs programs read."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, cast

import pulumi

# Computed outputs that programs read back (e.g. the Auto Scaling group of an EKS node
# group). Without them an `apply` on the output would see None offline.
OutputsFactory = Callable[[str, dict[str, Any]], dict[str, Any]]


def stable_id(type_: str, name: str) -> str:
    digest = hashlib.sha256(f"{type_}::{name}".encode()).hexdigest()[:12]
    return f"{name}-{digest}"


def _eks_node_group(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    # As the provider names a group from its prefix: the prefix and a 26-digit suffix.
    prefix = inputs.get("nodeGroupNamePrefix")
    suffix = str(int(stable_id("nodegroup", name).rsplit("-", 1)[1], 16)).zfill(26)[:26]
    group = inputs.get("nodeGroupName") or (f"{prefix}{suffix}" if prefix else name)
    return {
        "arn": f"arn:aws:eks:us-east-1:123456789012:nodegroup/offline/{group}",
        "resources": [{"autoscalingGroups": [{"name": f"eks-{group}-{stable_id('asg', group)}"}]}],
        "nodeGroupName": group,
        "status": "ACTIVE",
    }


def _launch_template(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    # EC2 numbers a new template's first version 1; node groups reference it.
    return {"latestVersion": 1, "defaultVersion": 1}


def _auto_named(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    # The provider names a resource given no `name` as `<resource name>-<7 hex>`; what
    # references it (a launch template's placement group) needs that name.
    return {"name": inputs.get("name") or f"{name}-{stable_id('autoname', name)[-7:]}"}


def _iam_role(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    # As the provider names a role from its prefix: the prefix and a 26-digit suffix.
    prefix = inputs.get("namePrefix")
    suffix = str(int(stable_id("role", name).rsplit("-", 1)[1], 16)).zfill(26)[:26]
    role = inputs.get("name") or (f"{prefix}{suffix}" if prefix else name)
    return {"name": role, "arn": f"arn:aws:iam::123456789012:role/{role}"}


def _ocm_machine_pool(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    # What the OCM provider returns on create: the pool id is the body's `id`.
    body: dict[str, Any] = inputs.get("body") or {}
    pool_id = body.get("id") or name
    cluster_id = inputs.get("cluster_id")
    return {
        "pool_id": pool_id,
        "href": f"/api/clusters_mgmt/v1/clusters/{cluster_id}/machine_pools/{pool_id}",
    }


def _stack_reference(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    # Another stack's outputs can't be read offline: unknown, as in a preview whose
    # reference can't be resolved, never None (which would read as a real value).
    from pulumi.runtime import rpc

    return {"outputs": rpc.UNKNOWN, "secretOutputNames": []}


COMPUTED_OUTPUTS: dict[str, OutputsFactory] = {
    "aws:eks/nodeGroup:NodeGroup": _eks_node_group,
    "aws:ec2/launchTemplate:LaunchTemplate": _launch_template,
    "aws:ec2/placementGroup:PlacementGroup": _auto_named,
    "aws:iam/role:Role": _iam_role,
    "pulumi-python:dynamic/ocm:MachinePool": _ocm_machine_pool,
    "pulumi:pulumi:StackReference": _stack_reference,
}


class OfflineMocks(pulumi.runtime.Mocks):
    """Echo inputs as outputs, add known computed outputs, derive ids from (type, name)."""

    def __init__(self, computed: dict[str, OutputsFactory] | None = None):
        self.computed = {**COMPUTED_OUTPUTS, **(computed or {})}

    def new_resource(
        self, args: pulumi.runtime.MockResourceArgs
    ) -> tuple[str | None, dict[str, Any]]:
        # MockResourceArgs.inputs is a bare dict in the SDK.
        inputs = cast("dict[str, Any]", args.inputs)  # pyright: ignore[reportUnknownMemberType]
        outputs = dict(inputs)
        factory = self.computed.get(args.typ)
        if factory is not None:
            outputs.update(factory(args.name, inputs))
        resource_id = args.resource_id or stable_id(args.typ, args.name)
        outputs.setdefault("id", resource_id)
        return resource_id, outputs

    def call(
        self, args: pulumi.runtime.MockCallArgs
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        # Every read finds nothing: no existing resources offline. (The SDK iterates the
        # failures, so an empty list, never None.)
        return {}, []
