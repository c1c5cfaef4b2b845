"""Karpenter's own controller (KWOK cloud provider) launches nodes from our NodePools.

For every KarpenterNodePool of every example stack: its rendered NodePool, bridged to the KWOK
node class (tests/controlplane/karpenter.py: only `nodeClassRef` changes; the instance types
the provider offers are our catalog's AWS types with the AWS provider's instance labels), is
applied; a pod made from the pool's `scheduling_info` is left pending by kube-scheduler (no
node fits); Karpenter must then create a NodeClaim of that NodePool, and the KWOK provider a
Node, with an instance type the NodePool's requirements allow, our template labels and taints.

Optional: runs when `make karpenter-kwok` has built `kwok` (sigs.k8s.io/karpenter/kwok, the
pinned KARPENTER= release, from the Go module proxy); skipped otherwise, even in CI.
The module installs Karpenter's CRDs from the same module (its NodePool CRD replaces the
vendored one for the module's duration and is put back after), cordons the nodes other tests
made so none of them takes the pending pods, and stops Karpenter at its end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from tests.controlplane.cluster import ControlPlane, wait_established, wait_for
from tests.controlplane.crds import crd_manifest
from tests.controlplane.karpenter import (
    NODE_CLASS,
    karpenter_binary,
    karpenter_crd_paths,
    kwok_node_pool,
    start_karpenter,
)
from tests.controlplane.objects import KubeObject, apply, kube_objects
from tests.controlplane.report import count
from tests.controlplane.test_scheduling import pool_node, probe_pod
from tests.engines.mocks import STACKS, example_stacks, run_on, stack_config

pytestmark = pytest.mark.skipif(
    karpenter_binary() is None, reason="Karpenter (KWOK provider) not built (`make karpenter-kwok`)"
)

NAMESPACE = "karpenter-probes"
POOL_LABEL = "karpenter.sh/nodepool"
KARPENTER_POOL = "nodepools:index:KarpenterNodePool"


def _api(dynamic: Any, api_version: str, kind: str) -> Any:
    return dynamic.resources.get(api_version=api_version, kind=kind)


@pytest.fixture(scope="module")
def karpenter(
    control_plane: ControlPlane,
    api_client: Any,
    dynamic_client: Any,
    installed_crds: list[str],
    scheduler: Any,
) -> Iterator[ControlPlane]:
    from kubernetes import client

    extensions = client.ApiextensionsV1Api(api_client)
    vendored = crd_manifest("karpenter.sh/v1", "NodePool")
    names = []
    for path in karpenter_crd_paths():
        crd = yaml.safe_load(path.read_text())
        names.append(crd["metadata"]["name"])
        _replace_crd(extensions, crd)
    wait_established(extensions, names, "Karpenter CRDs")
    nodeclasses = _api(dynamic_client, "karpenter.kwok.sh/v1alpha1", "KWOKNodeClass")
    nodeclasses.create(
        body={
            "apiVersion": "karpenter.kwok.sh/v1alpha1",
            "kind": "KWOKNodeClass",
            "metadata": {"name": NODE_CLASS["name"]},
            "spec": {},
        }
    )
    # The KWOK binary runs no node class status controller (the AWS provider's would say
    # Ready once its subnets and AMIs resolve): the class is declared Ready, as its e2e does.
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    nodeclasses.status.patch(
        name=NODE_CLASS["name"],
        body={
            "status": {
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "Ready",
                        "message": "",
                        "lastTransitionTime": now,
                        "observedGeneration": 1,
                    }
                ]
            }
        },
        content_type="application/merge-patch+json",
    )
    core = client.CoreV1Api(api_client)
    cordoned = [n.metadata.name for n in core.list_node().items if not n.spec.unschedulable]
    for name in cordoned:
        core.patch_node(name, {"spec": {"unschedulable": True}})
    core.create_namespace({"metadata": {"name": NAMESPACE}})
    core.create_namespaced_service_account(NAMESPACE, {"metadata": {"name": "default"}})
    proc = start_karpenter(control_plane)
    try:
        yield control_plane
    finally:
        _clean_up(dynamic_client, core)
        control_plane.stop_one(proc)
        _strip_leftovers(dynamic_client, core)
        _replace_crd(extensions, vendored)
        for name in cordoned:
            core.patch_node(name, {"spec": {"unschedulable": False}})


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


def _wait(what: str, check: Callable[[], Any], plane: ControlPlane, timeout: float = 90) -> Any:
    return wait_for(what, check, plane, "karpenter", timeout)


def _clean_up(dynamic: Any, core: Any) -> None:
    """Probe pods, the bridged NodePools and what Karpenter launched, deleted while it runs
    (it finalizes its NodeClaims and Nodes); bounded wait."""
    for pod in core.list_namespaced_pod(NAMESPACE).items:
        core.delete_namespaced_pod(pod.metadata.name, NAMESPACE, grace_period_seconds=0)
    pools = _api(dynamic, "karpenter.sh/v1", "NodePool")
    claims = _api(dynamic, "karpenter.sh/v1", "NodeClaim")
    for item in pools.get().to_dict()["items"]:
        if item["spec"]["template"]["spec"]["nodeClassRef"]["group"] == NODE_CLASS["group"]:
            pools.delete(name=item["metadata"]["name"])
    for item in claims.get().to_dict()["items"]:
        claims.delete(name=item["metadata"]["name"])
    deadline = time.monotonic() + 30
    while claims.get().to_dict()["items"] and time.monotonic() < deadline:
        time.sleep(0.5)


def _strip_leftovers(dynamic: Any, core: Any) -> None:
    """Whatever Karpenter did not finalize in time: finalizers removed, deleted."""
    claims = _api(dynamic, "karpenter.sh/v1", "NodeClaim")
    for item in claims.get().to_dict()["items"]:
        claims.patch(
            name=item["metadata"]["name"],
            body={"metadata": {"finalizers": None}},
            content_type="application/merge-patch+json",
        )
    for node in core.list_node(label_selector=POOL_LABEL).items:
        core.patch_node(node.metadata.name, {"metadata": {"finalizers": None}})
        core.delete_node(node.metadata.name)


def _karpenter_stacks() -> list[str]:
    return [
        s
        for s in example_stacks()
        if "KarpenterNodePool" in (STACKS / f"Pulumi.{s}.yaml").read_text()
    ]


def _allowed(requirements: list[dict[str, Any]], labels: dict[str, str]) -> list[str]:
    """The requirements a node's labels break (In / NotIn / Exists / DoesNotExist / Gt / Lt)."""
    broken = []
    for r in requirements:
        value = labels.get(r["key"])
        op, values = r["operator"], r.get("values", [])
        if op in ("In", "NotIn"):
            ok = (value in values) == (op == "In")
        elif op in ("Exists", "DoesNotExist"):
            ok = (value is not None) == (op == "Exists")
        else:
            bound = int(values[0])
            number = int(value) if value is not None else None
            ok = (
                number is not None
                and {
                    "Gt": number > bound,
                    "Lt": number < bound,
                    "Gte": number >= bound,
                    "Lte": number <= bound,
                }[op]
            )
        if not ok:
            broken.append(f"{r} (node has {value!r})")
    return broken


# Pools of tests/controlplane/test_component_objects.py that Karpenter's examples do not show.
PROGRAMS = ("gpu-by-requirements", "static")


def _capture(source: str) -> Any:
    if source in PROGRAMS:
        from functools import partial

        from nodepools.offline import run

        from tests.controlplane.test_component_objects import KARPENTER_MORE, karpenter_program

        return run(partial(karpenter_program, source, KARPENTER_MORE[source]))
    return run_on("offline", STACKS, stack=source, config=stack_config(source))


@pytest.mark.parametrize("stack", [*_karpenter_stacks(), *PROGRAMS])
def test_karpenter_launches_nodes_from_our_node_pools(
    stack: str, karpenter: ControlPlane, api_client: Any, dynamic_client: Any
) -> None:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    capture = _capture(stack)
    objects, _ = kube_objects(capture, stack)
    node_pools = {
        o.manifest["metadata"]["name"]: o.manifest
        for o in objects
        if o.manifest["kind"] == "NodePool"
    }
    pools = [pool_node(stack, capture, c) for c in capture.components(KARPENTER_POOL)]
    assert pools and {p.name for p in pools} <= set(node_pools), (
        sorted(node_pools),
        [p.name for p in pools],
    )
    claims = _api(dynamic_client, "karpenter.sh/v1", "NodeClaim")
    for pool in pools:
        manifest = kwok_node_pool(node_pools[pool.name])
        apply(dynamic_client, KubeObject(f"{stack}: {pool.name} (KWOK)", manifest), dry_run=False)
        replicas = manifest["spec"].get("replicas")
        if replicas is None:  # a static NodePool keeps `replicas` nodes without pending pods
            probe = f"{stack}-{pool.name}"[:63]
            pod = probe_pod(probe, pool.scheduling_info)
            pod["metadata"]["namespace"] = NAMESPACE
            core.create_namespaced_pod(NAMESPACE, pod)

        def launched(name: str = pool.name, want: int = replicas or 1) -> list[dict[str, Any]]:
            items = claims.get(label_selector=f"{POOL_LABEL}={name}").to_dict()["items"]
            with_nodes = [i for i in items if i.get("status", {}).get("nodeName")]
            return with_nodes if len(with_nodes) >= want else []

        found = _wait(
            f"{stack}: {replicas or 1} NodeClaim(s) of NodePool {pool.name} with their Nodes",
            launched,
            karpenter,
        )
        assert len(found) == (replicas or 1), [c["metadata"]["name"] for c in found]
        claim = found[0]
        node = core.read_node(claim["status"]["nodeName"])
        labels = node.metadata.labels or {}
        template = manifest["spec"]["template"]
        assert labels.get(POOL_LABEL) == pool.name
        for key, value in template.get("metadata", {}).get("labels", {}).items():
            assert labels.get(key) == value, (key, value, labels.get(key))
        broken = _allowed(template["spec"].get("requirements", []), labels)
        assert not broken, (
            f"{stack}: Karpenter launched {labels.get('node.kubernetes.io/instance-type')} against {broken}"
        )
        taints = {(t.key, t.value, t.effect) for t in node.spec.taints or []}
        for taint in template["spec"].get("taints", []):
            assert (taint["key"], taint.get("value"), taint["effect"]) in taints, (taint, taints)
        # The pending pod selects the node Karpenter made for it (its scheduling info matches
        # the node's labels); only the not-ready taint, which no kubelet lifts here, keeps it pending.
        selector = pool.scheduling_info["nodeSelector"]
        assert all(labels.get(k) == v for k, v in selector.items()), (selector, labels)
        count("Karpenter (KWOK): NodeClaims launched from our NodePools", len(found))
