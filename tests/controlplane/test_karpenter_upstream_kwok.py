"""Karpenter's own examples (tests/upstream_karpenter: aws/karpenter-provider-aws examples/v1),
as KarpenterNodePool emits them, launched by Karpenter's controller (KWOK provider).

Each example NodePool is bridged to the KWOK node class (tests/controlplane/karpenter.py)
and applied under a name of its own (`<example>-<pool>`: the examples share `default`); it
must be Ready; a pod that selects it by `karpenter.sh/nodepool` must make Karpenter launch a
NodeClaim of an instance type and capacity type the requirements allow, the node must carry
the template's labels and taints, and the pod binds once the node is Ready (the test plays
its kubelet).

What the bridge can't offer is checked the other way round, naming why: Karpenter must say
no instance type fits and launch nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.karpenter import kwok_node_pool
from tests.controlplane.karpenter_run import (
    POOL_LABEL,
    claims_of,
    karpenter_events,
    resources,
    running_karpenter,
    wait,
)
from tests.controlplane.report import count
from tests.controlplane.test_karpenter_kwok import apply_ready, check_node, launch_and_bind
from tests.test_karpenter_upstream import EXAMPLES, emit_example
from tests.test_karpenter_upstream import _documents as documents  # pyright: ignore[reportPrivateUsage]

NAMESPACE = "karpenter-upstream"

# Examples whose NodePools ask what the KWOK bridge's instance types can't have: our
# catalog's types are offered for Linux only (the AWS provider also offers Windows AMIs on
# them), so Karpenter finds no type for their `kubernetes.io/os In [windows]`.
NOT_OFFERED = (
    "windows-2019.yaml",
    "windows-2022.yaml",
    "windows-2025.yaml",
    "windows-custom-userdata.yaml",
)
REFUSAL = "nodepool requirements filtered out all available instance types"
# Requirement keys the bridge's instance types don't carry (our catalog knows no local NVMe
# sizes). Karpenter does not filter on a key an instance type lacks, so the pool launches on
# any type the rest of its requirements allow: the node is checked without them.
UNLABELED = ("karpenter.k8s.aws/instance-local-nvme",)


@pytest.fixture(scope="module")
def karpenter(
    control_plane: ControlPlane,
    api_client: Any,
    dynamic_client: Any,
    installed_crds: list[str],
    scheduler: Any,
) -> Iterator[ControlPlane]:
    with running_karpenter(control_plane, api_client, dynamic_client, NAMESPACE) as plane:
        yield plane


def _node_pools(example: str) -> list[dict[str, Any]]:
    rendered, _ = emit_example(example, documents(example))
    return [m for manifests in rendered for m in manifests.values() if m["kind"] == "NodePool"]


def _pod(name: str, pool: str, manifest: dict[str, Any]) -> dict[str, Any]:
    tolerations = [
        {"key": t["key"], "operator": "Exists", "effect": t["effect"]}
        for t in manifest["spec"]["template"]["spec"].get("taints", [])
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "nodeSelector": {POOL_LABEL: pool},
            "tolerations": tolerations,
            "containers": [{"name": "probe", "image": "registry.example/probe:1"}],
        },
    }


def _without_unlabeled(manifest: dict[str, Any]) -> dict[str, Any]:
    template = manifest["spec"]["template"]
    requirements = [r for r in template["spec"]["requirements"] if r["key"] not in UNLABELED]
    spec = {**template["spec"], "requirements": requirements}
    return {**manifest, "spec": {**manifest["spec"], "template": {**template, "spec": spec}}}


@pytest.mark.parametrize("example", EXAMPLES)
def test_karpenter_launches_nodes_from_its_own_examples(
    example: str, karpenter: ControlPlane, api_client: Any, dynamic_client: Any
) -> None:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    stem = example.removesuffix(".yaml")
    names = []
    try:
        for rendered in _node_pools(example):
            name = f"{stem}-{rendered['metadata']['name']}"[:63]
            names.append(name)
            bridged = kwok_node_pool(rendered)
            manifest = {**bridged, "metadata": {**bridged["metadata"], "name": name}}
            apply_ready(dynamic_client, karpenter, manifest, f"{example}: {name} (KWOK)")
            pod = _pod(name, name, manifest)
            if example in NOT_OFFERED:
                core.create_namespaced_pod(NAMESPACE, pod)
                messages = wait(
                    f"Karpenter's FailedScheduling event on pod {name}",
                    lambda name=name: karpenter_events(core, NAMESPACE, name),
                    karpenter,
                )
                assert any(REFUSAL in m for m in messages), messages
                assert claims_of(dynamic_client, name) == [], example
                count("Karpenter (KWOK): upstream example NodePools refused (not offered)")
                continue
            claim = launch_and_bind(core, dynamic_client, karpenter, pod, name, NAMESPACE)
            node = core.read_node(claim["status"]["nodeName"])
            check_node(example, _without_unlabeled(manifest), node)
            count("Karpenter (KWOK): upstream example NodePools launched")
    finally:
        # Each example alone: Karpenter's events list every NodePool a pod doesn't fit, and
        # the examples' pods select only their own.
        for name in names:
            _delete(core, dynamic_client, name)


def _delete(core: Any, dynamic: Any, name: str) -> None:
    from kubernetes.client.exceptions import ApiException

    for call in (
        lambda: core.delete_namespaced_pod(name, NAMESPACE, grace_period_seconds=0),
        lambda: resources(dynamic, "NodePool").delete(name=name),
    ):
        try:
            call()
        except ApiException as error:
            if error.status != 404:
                raise
