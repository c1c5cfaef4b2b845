"""Karpenter (KWOK provider) running for a test module, and what the tests ask of it.

`running_karpenter` installs Karpenter's CRDs from its Go module (its NodePool CRD replaces
the vendored one for the module's duration and is put back after), declares the KWOK node
class Ready, cordons the nodes other tests made (so none of them takes the pending pods),
starts the controller and, at the end, deletes what it launched and stops it.

The Nodes the KWOK provider creates have no kubelet: `play_kubelet` posts the Ready status a
kubelet would and lifts the `node.kubernetes.io/not-ready` taint as the node lifecycle
controller would, once Karpenter has registered the node (it lifts its own
`karpenter.sh/unregistered` taint), so kube-scheduler binds the pods Karpenter launched it for.

Required like the cluster tools: without the built binary the tests skip, unless
NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1 (set by .ci/run), which makes the absence a failure.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import yaml
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic.exceptions import DynamicApiError

from tests.controlplane.cluster import REQUIRE_VARIABLE, ControlPlane, wait_established, wait_for
from tests.controlplane.crds import crd_manifest
from tests.controlplane.karpenter import (
    NODE_CLASS,
    karpenter_binary,
    karpenter_crd_paths,
    start_karpenter,
)

POOL_LABEL = "karpenter.sh/nodepool"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
# Karpenter's own FailedScheduling events on pods start so (kube-scheduler's do not).
KARPENTER_EVENT = "Failed to schedule pod, "


def require_karpenter() -> None:
    """Skip when the binary is not built; fail instead under NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1."""
    if karpenter_binary() is not None:
        return
    message = "Karpenter (KWOK provider) not built (`make karpenter-kwok`)"
    if os.environ.get(REQUIRE_VARIABLE) == "1":
        pytest.fail(f"{message}; {REQUIRE_VARIABLE}=1 requires it", pytrace=False)
    pytest.skip(message)


def resources(dynamic: Any, kind: str) -> Any:
    """The dynamic client's karpenter.sh/v1 resource of KIND (NodePool, NodeClaim)."""
    return dynamic.resources.get(api_version="karpenter.sh/v1", kind=kind)


@contextmanager
def running_karpenter(
    plane: ControlPlane, api_client: Any, dynamic: Any, namespace: str
) -> Iterator[ControlPlane]:
    """Karpenter running against PLANE, with NAMESPACE (for the tests' pods) created."""
    from kubernetes import client

    require_karpenter()
    extensions = client.ApiextensionsV1Api(api_client)
    vendored = crd_manifest("karpenter.sh/v1", "NodePool")
    names = []
    for path in karpenter_crd_paths():
        crd = yaml.safe_load(path.read_text())
        names.append(crd["metadata"]["name"])
        _replace_crd(extensions, crd)
    wait_established(extensions, names, "Karpenter CRDs")
    _ready_node_class(dynamic)
    core = client.CoreV1Api(api_client)
    cordoned = [n.metadata.name for n in core.list_node().items if not n.spec.unschedulable]
    for name in cordoned:
        core.patch_node(name, {"spec": {"unschedulable": True}})
    if namespace not in {n.metadata.name for n in core.list_namespace().items}:
        core.create_namespace({"metadata": {"name": namespace}})
        core.create_namespaced_service_account(namespace, {"metadata": {"name": "default"}})
    proc = start_karpenter(plane)
    try:
        yield plane
    finally:
        _clean_up(dynamic, core, namespace)
        plane.stop_one(proc)
        _strip_leftovers(dynamic, core)
        _replace_crd(extensions, vendored)
        for name in cordoned:
            core.patch_node(name, {"spec": {"unschedulable": False}})


def _ready_node_class(dynamic: Any) -> None:
    """The KWOKNodeClass, declared Ready: the KWOK binary runs no node class status controller
    (the AWS provider's would say Ready once its subnets and AMIs resolve), as its e2e does."""
    nodeclasses = dynamic.resources.get(
        api_version="karpenter.kwok.sh/v1alpha1", kind="KWOKNodeClass"
    )
    from kubernetes.client.exceptions import ApiException

    body = {
        "apiVersion": "karpenter.kwok.sh/v1alpha1",
        "kind": "KWOKNodeClass",
        "metadata": {"name": NODE_CLASS["name"]},
        "spec": {},
    }
    try:
        nodeclasses.create(body=body)
    except ApiException as error:
        if error.status != 409:  # made by an earlier module of the session
            raise
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ready = {
        "type": "Ready",
        "status": "True",
        "reason": "Ready",
        "message": "",
        "lastTransitionTime": now,
        "observedGeneration": 1,
    }
    nodeclasses.status.patch(
        name=NODE_CLASS["name"],
        body={"status": {"conditions": [ready]}},
        content_type="application/merge-patch+json",
    )


def _replace_crd(extensions: Any, crd: dict[str, Any]) -> None:
    """Create the CRD, or replace an existing one whole (an apply would merge schemas)."""
    from kubernetes.client.exceptions import ApiException

    name = crd["metadata"]["name"]
    try:
        current = extensions.read_custom_resource_definition(name)
    except ApiException as error:
        if error.status != 404:
            raise
        extensions.create_custom_resource_definition(crd)
        return
    body = {
        **crd,
        "metadata": {**crd["metadata"], "resourceVersion": current.metadata.resource_version},
    }
    extensions.replace_custom_resource_definition(name, body)


def _unless_gone(call: Callable[[], Any]) -> None:
    """CALL, a delete or patch of an object Karpenter may have removed since it was listed
    (it deletes NodeClaims it can't launch, and a NodePool's deletion takes its claims and
    nodes): a 404 is what the clean-up wanted."""
    try:
        call()
    except (ApiException, DynamicApiError) as error:
        if error.status != 404:
            raise


def _clean_up(dynamic: Any, core: Any, namespace: str) -> None:
    """The tests' pods, the bridged NodePools and what Karpenter launched, deleted while it
    runs (it finalizes its NodeClaims and Nodes); bounded wait."""
    for pod in core.list_namespaced_pod(namespace).items:
        _unless_gone(
            lambda pod=pod: core.delete_namespaced_pod(
                pod.metadata.name, namespace, grace_period_seconds=0
            )
        )
    pools, claims = resources(dynamic, "NodePool"), resources(dynamic, "NodeClaim")
    for item in pools.get().to_dict()["items"]:
        if item["spec"]["template"]["spec"]["nodeClassRef"]["group"] == NODE_CLASS["group"]:
            _unless_gone(lambda item=item: pools.delete(name=item["metadata"]["name"]))
    for item in claims.get().to_dict()["items"]:
        _unless_gone(lambda item=item: claims.delete(name=item["metadata"]["name"]))
    deadline = time.monotonic() + 30
    while claims.get().to_dict()["items"] and time.monotonic() < deadline:
        time.sleep(0.5)


def _strip_leftovers(dynamic: Any, core: Any) -> None:
    """Whatever Karpenter did not finalize in time: finalizers removed, deleted."""
    claims = resources(dynamic, "NodeClaim")
    for item in claims.get().to_dict()["items"]:
        _unless_gone(
            lambda item=item: claims.patch(
                name=item["metadata"]["name"],
                body={"metadata": {"finalizers": None}},
                content_type="application/merge-patch+json",
            )
        )
    for node in core.list_node(label_selector=POOL_LABEL).items:
        name = node.metadata.name
        _unless_gone(lambda name=name: core.patch_node(name, {"metadata": {"finalizers": None}}))
        _unless_gone(lambda name=name: core.delete_node(name))


def wait(what: str, check: Callable[[], Any], plane: ControlPlane, timeout: float = 90) -> Any:
    """CHECK's first truthy answer; after TIMEOUT fail quoting Karpenter's log."""
    return wait_for(what, check, plane, "karpenter", timeout)


def conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}


def wait_nodepool_ready(dynamic: Any, name: str, plane: ControlPlane) -> dict[str, Any]:
    """The NodePool once Karpenter's controllers say ValidationSucceeded and Ready (its
    runtime validation of the template, disruption and limits, and the node class ready)."""
    pools = resources(dynamic, "NodePool")

    def ready() -> dict[str, Any] | None:
        pool = pools.get(name=name).to_dict()
        found = conditions(pool)
        ok = all(found.get(c, {}).get("status") == "True" for c in ("ValidationSucceeded", "Ready"))
        return pool if ok else None

    return wait(f"NodePool {name} Ready (ValidationSucceeded)", ready, plane)


def claims_of(dynamic: Any, pool: str) -> list[dict[str, Any]]:
    """The NodeClaims of NodePool POOL."""
    items = resources(dynamic, "NodeClaim").get(label_selector=f"{POOL_LABEL}={pool}")
    return items.to_dict()["items"]


def registered(claim: dict[str, Any]) -> bool:
    return conditions(claim).get("Registered", {}).get("status") == "True"


def karpenter_events(core: Any, namespace: str, pod: str) -> list[str]:
    """The messages of Karpenter's FailedScheduling events on POD."""
    events = core.list_namespaced_event(
        namespace, field_selector=f"involvedObject.name={pod},reason=FailedScheduling"
    ).items
    return [e.message for e in events if (e.message or "").startswith(KARPENTER_EVENT)]


def play_kubelet(core: Any, node: str) -> None:
    """NODE reported Ready, as its kubelet would, and its not-ready taint lifted, as the node
    lifecycle controller would (neither runs here)."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ready = {
        "type": "Ready",
        "status": "True",
        "reason": "KubeletReady",
        "message": "kubelet is posting ready status (played by the test)",
        "lastHeartbeatTime": now,
        "lastTransitionTime": now,
    }
    core.patch_node_status(node, {"status": {"conditions": [ready]}})
    taints = core.read_node(node).spec.taints or []
    kept = [
        {"key": t.key, "effect": t.effect, **({"value": t.value} if t.value else {})}
        for t in taints
        if t.key != NOT_READY_TAINT
    ]
    core.patch_node(node, {"spec": {"taints": kept or None}})


def bound_node(core: Any, namespace: str, pod: str) -> str | None:
    return core.read_namespaced_pod(pod, namespace).spec.node_name
