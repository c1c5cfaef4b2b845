"""`nodepools doctor` reading the state Karpenter's own controller (KWOK provider) wrote.

test_doctor.py writes NodePool and NodeClaim status by hand, as we read Karpenter's API;
here the controller writes it. The stack is test_doctor.py's (tests/controlplane/doctor_project):
its Karpenter pool `doc-karp` (g5.2xlarge, 1 GPU each, limits nvidia.com/gpu: 2) is applied
bridged to the KWOK node class (tests/controlplane/karpenter.py), and Karpenter runs for the
module. What it showed that the hand-written status did not: a launch Karpenter could not
make is `Launched=Unknown` (reason LaunchFailed, retried, deleted after 5 minutes), never
`False`; and when the cloud has no capacity the NodeClaim is deleted at once, leaving only a
Warning event `InsufficientCapacityError` on it.

Staged by hand, as in test_doctor.py: the `doc-gpu` node and the device plugin's DaemonSet
pods (no kubelet or device plugin runs here), and the Ready status of the KWOK nodes
(karpenter_run.play_kubelet).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from nodepools.planning import plan_stack

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.karpenter import NODE_CLASS, instance_types, kwok_node_pool
from tests.controlplane.karpenter_run import (
    bound_node,
    claims_of,
    conditions,
    karpenter_events,
    play_kubelet,
    registered,
    resources,
    running_karpenter,
    wait,
    wait_nodepool_ready,
)
from tests.controlplane.objects import KubeObject, apply, kube_objects
from tests.controlplane.test_doctor import (
    GPU,
    OPERATOR_NAMESPACE,
    PROJECT,
    STACK,
    WORKLOADS,
    Cluster,
    doctor,
    healthy,
)
from tests.controlplane.test_doctor import cluster as cluster  # the fixture, re-exported
from tests.controlplane.test_doctor import stack_objects as stack_objects
from tests.controlplane.test_scheduling import pool_node, probe_pod

POOL = "doc-karp"
UNOFFERED = "p9x.96xlarge"  # an instance type the KWOK provider does not offer


@pytest.fixture(scope="module")
def karpenter(
    stack_objects: ControlPlane,
    api_client: Any,
    dynamic_client: Any,
) -> Iterator[dict[str, Any]]:
    """Karpenter running, `doc-karp` bridged to the KWOK node class and Ready; yields the
    pool's scheduling info. The stack's own NodePool is put back at the end."""
    result = plan_stack(STACK, project_dir=PROJECT)
    assert result.capture is not None
    objects, _ = kube_objects(result.capture, STACK)
    ours = next(o for o in objects if o.manifest["kind"] == "NodePool")
    component = next(
        c for c in result.capture.components("nodepools:index:KarpenterNodePool") if c.name == POOL
    )
    info = pool_node(STACK, result.capture, component).scheduling_info
    # nodeClassRef's group and kind are immutable: the stack's NodePool makes way.
    _delete_nodepool(dynamic_client, stack_objects)
    with running_karpenter(stack_objects, api_client, dynamic_client, WORKLOADS):
        bridged = kwok_node_pool(ours.manifest)
        apply(dynamic_client, KubeObject(f"{POOL} (KWOK)", bridged), dry_run=False)
        wait_nodepool_ready(dynamic_client, POOL, stack_objects)
        yield info
    _delete_nodepool(dynamic_client, stack_objects)
    apply(dynamic_client, ours, dry_run=False)


def _delete_nodepool(dynamic: Any, plane: ControlPlane) -> None:
    from kubernetes.client.exceptions import ApiException

    pools = resources(dynamic, "NodePool")

    def gone() -> bool:
        try:
            pools.delete(name=POOL)
        except ApiException as error:
            if error.status != 404:
                raise
            return True
        return False

    wait(f"NodePool {POOL} deleted", gone, plane, timeout=30)


def _findings(report: dict[str, Any], pool: str = POOL) -> set[tuple[str, str]]:
    return {(f["kind"], f["subject"]) for f in report["findings"] if f["pool"] == pool}


def _claim(name: str, class_name: str, instance: str) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {"name": name, "labels": {"karpenter.sh/nodepool": POOL}},
        "spec": {
            "nodeClassRef": {**NODE_CLASS, "name": class_name},
            "requirements": [
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [instance]}
            ],
            "resources": {"requests": {GPU: "1"}},
        },
    }


def _remove_claim(dynamic: Any, name: str) -> None:
    from kubernetes.client.exceptions import ApiException

    claims = resources(dynamic, "NodeClaim")
    for undo in (
        lambda: claims.patch(
            name=name,
            body={"metadata": {"finalizers": None}},
            content_type="application/merge-patch+json",
        ),
        lambda: claims.delete(name=name),
    ):
        try:
            undo()
        except ApiException as error:
            if error.status != 404:
                raise


def _events(core: Any, name: str) -> list[Any]:
    return core.list_event_for_all_namespaces(field_selector=f"involvedObject.name={name}").items


def _delete_events(core: Any, name: str) -> None:
    for event in _events(core, name):
        core.delete_namespaced_event(event.metadata.name, event.metadata.namespace)


def test_doctor_reads_a_nodeclaim_karpenter_could_not_launch(
    karpenter: dict[str, Any],
    stack_objects: ControlPlane,
    cluster: Cluster,
    dynamic_client: Any,
) -> None:
    # A NodeClaim of an instance type the provider doesn't offer (as one the cloud retired):
    # Karpenter's launch fails and it says why on the NodeClaim.
    assert UNOFFERED not in {t["name"] for t in instance_types()}
    name = f"{POOL}-unoff"
    resources(dynamic_client, "NodeClaim").create(body=_claim(name, NODE_CLASS["name"], UNOFFERED))
    cluster.cleanup.append(lambda: _remove_claim(dynamic_client, name))
    healthy(cluster)

    def failed() -> dict[str, Any] | None:
        claim = next(
            (c for c in claims_of(dynamic_client, POOL) if c["metadata"]["name"] == name), None
        )
        launched = conditions(claim or {}).get("Launched", {})
        return launched if launched.get("reason") == "LaunchFailed" else None

    launched = wait(f"Karpenter's LaunchFailed on NodeClaim {name}", failed, stack_objects)
    assert launched["status"] == "Unknown", launched  # not False: what doctor must read
    status, report, output = doctor(stack_objects)
    assert status == 1
    assert _findings(report) == {("nodeclaim-not-launched", f"nodeclaim/{name}")}, output
    message = next(f["message"] for f in report["findings"] if f["subject"] == f"nodeclaim/{name}")
    assert "instance type not found" in message and UNOFFERED in message, message
    assert "Karpenter retries" in message


def test_doctor_reads_a_nodeclaim_karpenter_deleted_for_insufficient_capacity(
    karpenter: dict[str, Any],
    stack_objects: ControlPlane,
    cluster: Cluster,
    api_client: Any,
    dynamic_client: Any,
) -> None:
    # The KWOK provider answers a node class it can't find with an insufficient-capacity
    # error, the error the AWS provider gives when EC2 has none of the types: Karpenter
    # deletes the NodeClaim and leaves a Warning event on it.
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    name = f"{POOL}-nocap"
    resources(dynamic_client, "NodeClaim").create(body=_claim(name, "no-such-class", "g5.2xlarge"))
    cluster.cleanup.append(lambda: _remove_claim(dynamic_client, name))
    # Its event would outlive the test (an hour): later doctor tests must not read it.
    cluster.cleanup.append(lambda: _delete_events(core, name))
    healthy(cluster)

    def gone_with_event() -> bool:
        present = any(c["metadata"]["name"] == name for c in claims_of(dynamic_client, POOL))
        events = core.list_event_for_all_namespaces(
            field_selector=f"involvedObject.name={name},reason=InsufficientCapacityError"
        ).items
        return bool(events) and not present

    wait(
        f"NodeClaim {name} deleted with an InsufficientCapacityError event",
        gone_with_event,
        stack_objects,
    )
    status, report, output = doctor(stack_objects)
    assert status == 1
    assert _findings(report) == {("nodeclaim-insufficient-capacity", f"nodeclaim/{name}")}, output
    message = next(f["message"] for f in report["findings"] if f["subject"] == f"nodeclaim/{name}")
    assert "no-such-class" in message, message
    _delete_events(core, name)  # here, not only at cleanup: an error must show
    wait(
        f"the events of NodeClaim {name} deleted",
        lambda: not _events(core, name),
        stack_objects,
        timeout=30,
    )


def test_doctor_reads_a_karpenter_pool_the_controller_filled_to_its_limits(
    karpenter: dict[str, Any],
    stack_objects: ControlPlane,
    cluster: Cluster,
    api_client: Any,
    dynamic_client: Any,
) -> None:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    plugin = healthy(cluster)
    names = []
    for i in range(3):  # 1 GPU each, one g5.2xlarge each: the third is over the limit of 2
        pod = probe_pod(f"karp-job-{i}", karpenter)
        pod["metadata"]["namespace"] = WORKLOADS
        cluster.core.create_namespaced_pod(WORKLOADS, pod)
        names.append(pod["metadata"]["name"])

    def two_registered() -> list[dict[str, Any]] | None:
        done = [c for c in claims_of(dynamic_client, POOL) if registered(c)]
        return done if len(done) >= 2 else None

    claims = wait(f"two NodeClaims of {POOL} registered", two_registered, stack_objects)
    nodes = sorted(c["status"]["nodeName"] for c in claims)
    for i, node in enumerate(nodes):
        play_kubelet(core, node)
        # the device plugin's pod on the new node, Ready (as its kubelet would report it)
        cluster.pod(
            OPERATOR_NAMESPACE,
            f"nvidia-device-plugin-karp-{i}",
            {
                "nodeName": node,
                "tolerations": [{"operator": "Exists"}],
                "containers": [{"name": "plugin", "image": "x"}],
            },
            owner=plugin,
            ready=True,
        )

    def settled() -> str | None:
        # two pods bound, the third refused by Karpenter, the NodePool's usage counted
        pending = [n for n in names if not bound_node(core, WORKLOADS, n)]
        refused = [n for n in pending if karpenter_events(core, WORKLOADS, n)]
        pool = resources(dynamic_client, "NodePool").get(name=POOL).to_dict()
        used = (pool.get("status") or {}).get("resources", {}).get(GPU)
        return refused[0] if len(pending) == 1 and refused and used == "2" else None

    refused = wait(
        "2 pods bound, 1 refused, the NodePool's status counting 2 GPUs", settled, stack_objects
    )
    assert any("exceed limits" in m for m in karpenter_events(core, WORKLOADS, refused))
    status, report, output = doctor(stack_objects, "--namespace", WORKLOADS)
    assert status == 1
    assert _findings(report) == {
        ("limits-reached", f"nodepool/{POOL}"),
        ("limits-reached", f"pod/{WORKLOADS}/{refused}"),
    }, output
    pool = next(p for p in report["pools"] if p["name"] == POOL)
    assert pool["nodeclaims"] == 2 and pool["limits"] == {GPU: "2/2"}, pool
    assert sorted(pool["nodes"]) == nodes, pool
