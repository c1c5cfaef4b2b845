"""`nodepools doctor` against the real loopback control plane (kube-apiserver, kube-scheduler).

The stack is tests/controlplane/doctor_project (a managed GPU pool `doc-gpu`, a Karpenter
GPU pool `doc-karp`, the GPU Operator serving both, a Kueue project quota). Each test
applies the stack's own Kubernetes objects (NodePool, queues), stages a healthy cluster
(a Ready node of `doc-gpu` as the plan describes it, the GPU Operator's device-plugin
DaemonSet with a Ready pod there), then breaks one thing and checks that doctor names it,
with exit status 1; the healthy cluster reports nothing, with exit status 0.

What a staged cluster can't prove: there is no kubelet, device plugin or Karpenter/Kueue
controller here, so node status, DaemonSet pods, NodeClaims and Workload conditions are
written by the test as those controllers would write them (through the API server, against
the upstream CRDs' schemas: scripts/extract_test_crd_facts.py); the FailedScheduling
message is the real scheduler's.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout, suppress
from pathlib import Path
from typing import Any

import pytest
from nodepools.cli import main
from nodepools.planning import plan_stack

from tests.controlplane.cluster import ControlPlane, kubeconfig, wait_for
from tests.controlplane.crds import extra_crd_manifests
from tests.controlplane.objects import apply, kube_objects

PROJECT = Path(__file__).parent / "doctor_project"
STACK = "doc"
GPU = "nvidia.com/gpu"
OPERATOR_NAMESPACE = "gpu-operator"
RELEASE = "doc-software-nvidia"
TAINT = {"key": GPU, "value": "true", "effect": "NoSchedule"}
TOLERATION = {"key": GPU, "operator": "Exists", "effect": "NoSchedule"}
WORKLOADS = "doctor-workloads"


def doctor(plane: ControlPlane, *extra: str) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "doctor",
        "--stack",
        STACK,
        "-C",
        str(PROJECT),
        "--kubeconfig",
        str(kubeconfig(plane)),
        *extra,
    ]
    with redirect_stdout(out), redirect_stderr(err):
        status = main([*argv, "--format", "json"] if "--format" not in extra else argv)
    text = out.getvalue()
    return status, (json.loads(text) if text.startswith("{") else {}), err.getvalue() + text


def kinds(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["kind"], f["subject"]) for f in report["findings"]}


class Cluster:
    """Stages objects and removes them after the test."""

    def __init__(self, api_client: Any) -> None:
        from kubernetes import client

        self.core = client.CoreV1Api(api_client)
        self.apps = client.AppsV1Api(api_client)
        self.custom = client.CustomObjectsApi(api_client)
        self.cleanup: list[Any] = []

    def node(
        self,
        name: str,
        labels: dict[str, str],
        taints: list[dict[str, str]],
        gpus: int,
        *,
        ready: bool = True,
    ) -> dict[str, Any]:
        body = {
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
            "spec": {"taints": taints},
        }
        self.core.create_node(body)
        self.cleanup.append(lambda: self.core.delete_node(name))
        capacity = {"cpu": "48", "memory": "192Gi", "pods": "110", GPU: str(gpus)}
        status = {
            "capacity": capacity,
            "allocatable": capacity,
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if ready else "False",
                    "reason": "KubeletReady" if ready else "KubeletNotReady",
                    "message": "kubelet is posting ready status"
                    if ready
                    else "container runtime network not ready",
                }
            ],
        }
        self.core.patch_node_status(name, {"status": status})
        # The API server taints a new node not-ready; the node lifecycle controller (not run
        # here) lifts it once the kubelet reports Ready.
        return self.core.patch_node(name, {"spec": {"taints": taints or None}}).to_dict()

    def daemonset(
        self, name: str, tolerations: list[dict[str, str]], node_selector: dict[str, str]
    ) -> Any:
        labels = {"app": name}
        body = {
            "metadata": {
                "name": name,
                "namespace": OPERATOR_NAMESPACE,
                "labels": {"app.kubernetes.io/managed-by": "Helm"},
                "annotations": {
                    "meta.helm.sh/release-name": RELEASE,
                    "meta.helm.sh/release-namespace": OPERATOR_NAMESPACE,
                },
            },
            "spec": {
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "tolerations": tolerations,
                        "nodeSelector": node_selector,
                        "containers": [
                            {"name": "plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}
                        ],
                    },
                },
            },
        }
        ds = self.apps.create_namespaced_daemon_set(OPERATOR_NAMESPACE, body)
        self.cleanup.append(
            lambda: self.apps.delete_namespaced_daemon_set(name, OPERATOR_NAMESPACE)
        )
        return ds

    def pod(
        self,
        namespace: str,
        name: str,
        spec: dict[str, Any],
        *,
        owner: Any = None,
        ready: bool | None = None,
    ) -> None:
        meta: dict[str, Any] = {"name": name, "namespace": namespace}
        if owner is not None:
            meta["ownerReferences"] = [
                {
                    "apiVersion": "apps/v1",
                    "kind": "DaemonSet",
                    "name": owner.metadata.name,
                    "uid": owner.metadata.uid,
                }
            ]
        self.core.create_namespaced_pod(namespace, {"metadata": meta, "spec": spec})
        self.cleanup.append(
            lambda: self.core.delete_namespaced_pod(name, namespace, grace_period_seconds=0)
        )
        if ready is not None:
            condition = {"type": "Ready", "status": "True" if ready else "False"}
            waiting = (
                []
                if ready
                else [
                    {
                        "name": "plugin",
                        "ready": False,
                        "restartCount": 3,
                        "image": "x",
                        "imageID": "",
                        "state": {
                            "waiting": {
                                "reason": "CrashLoopBackOff",
                                "message": "back-off restarting",
                            }
                        },
                    }
                ]
            )
            self.core.patch_namespaced_pod_status(
                name,
                namespace,
                {
                    "status": {
                        "phase": "Running",
                        "conditions": [condition],
                        "containerStatuses": waiting,
                    }
                },
            )

    def custom_object(
        self,
        group: str,
        version: str,
        plural: str,
        body: dict[str, Any],
        status: dict[str, Any] | None = None,
    ) -> None:
        namespace = body["metadata"].get("namespace")
        name = body["metadata"]["name"]
        if namespace:
            self.custom.create_namespaced_custom_object(group, version, namespace, plural, body)
            self.cleanup.append(
                lambda: self.custom.delete_namespaced_custom_object(
                    group, version, namespace, plural, name
                )
            )
            if status is not None:
                self.custom.patch_namespaced_custom_object_status(
                    group, version, namespace, plural, name, {"status": status}
                )
        else:
            self.custom.create_cluster_custom_object(group, version, plural, body)
            self.cleanup.append(
                lambda: self.custom.delete_cluster_custom_object(group, version, plural, name)
            )
            if status is not None:
                self.custom.patch_cluster_custom_object_status(
                    group, version, plural, name, {"status": status}
                )

    def remove(self) -> None:
        for undo in reversed(self.cleanup):
            with suppress(Exception):
                undo()


@pytest.fixture(scope="module")
def stack_objects(
    api_client: Any, installed_crds: list[str], dynamic_client: Any, scheduler: ControlPlane
) -> ControlPlane:
    """The stack's own objects applied (NodePool, EC2NodeClass, Kueue queues), the test-only
    CRDs (NodeClaim, Workload) installed, the namespaces the tests use created."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    extensions = client.ApiextensionsV1Api(api_client)
    for manifest in extra_crd_manifests():
        try:
            extensions.create_custom_resource_definition(manifest)
        except ApiException as exc:
            if exc.status != 409:
                raise
    from tests.controlplane.cluster import wait_established

    wait_established(extensions, [m["metadata"]["name"] for m in extra_crd_manifests()])
    result = plan_stack(STACK, project_dir=PROJECT)
    assert result.ok and result.capture is not None, result.render()
    objects, _ = kube_objects(result.capture, STACK)
    for obj in objects:
        apply(dynamic_client, obj, dry_run=False)
    core = client.CoreV1Api(api_client)
    for namespace in (OPERATOR_NAMESPACE, WORKLOADS):
        # No controller-manager here: its service-account controller would make `default`.
        with suppress(client.exceptions.ApiException):
            core.create_namespace({"metadata": {"name": namespace}})
        with suppress(client.exceptions.ApiException):
            core.create_namespaced_service_account(namespace, {"metadata": {"name": "default"}})
    return scheduler


@pytest.fixture
def cluster(api_client: Any, stack_objects: ControlPlane) -> Iterator[Cluster]:
    staged = Cluster(api_client)
    try:
        yield staged
    finally:
        staged.remove()


def healthy(cluster: Cluster, *, gpus: int = 4, taints: list[dict[str, str]] | None = None) -> Any:
    """A Ready node of doc-gpu as planned, and the operator's device plugin Ready on it."""
    cluster.node(
        "doc-gpu-1",
        {"nodepools.dev/pool": "doc-gpu", "team": "vision"},
        [TAINT] if taints is None else taints,
        gpus,
    )
    ds = cluster.daemonset("nvidia-device-plugin-daemonset", [TOLERATION], {})
    cluster.pod(
        OPERATOR_NAMESPACE,
        "nvidia-device-plugin-doc-gpu-1",
        {
            "nodeName": "doc-gpu-1",
            "tolerations": [TOLERATION],
            "containers": [{"name": "plugin", "image": "x"}],
        },
        owner=ds,
        ready=True,
    )
    return ds


def test_a_healthy_cluster_reports_nothing(stack_objects: ControlPlane, cluster: Cluster) -> None:
    healthy(cluster)
    status, report, output = doctor(stack_objects)
    assert report["findings"] == [], output
    assert status == 0
    pools = {p["name"]: p for p in report["pools"]}
    assert pools["doc-gpu"]["nodes"] == ["doc-gpu-1"]
    assert pools["doc-gpu"]["advertised"] == {GPU: 4}
    assert pools["doc-karp"]["nodeclaims"] == 0
    status, _, text = doctor(stack_objects, "--format", "text")
    assert status == 0 and "healthy" in text


def test_a_gpu_node_advertising_no_gpu_is_the_headline(
    stack_objects: ControlPlane, cluster: Cluster
) -> None:
    healthy(cluster, gpus=0)
    status, report, output = doctor(stack_objects)
    assert status == 1
    assert kinds(report) == {("accelerators-zero", "node/doc-gpu-1")}, output
    assert (
        "advertises 0 nvidia.com/gpu (the plan says 4 per node)" in report["findings"][0]["message"]
    )


def test_a_node_missing_its_taint_and_label(stack_objects: ControlPlane, cluster: Cluster) -> None:
    cluster.node("doc-gpu-1", {"nodepools.dev/pool": "doc-gpu", "nodepools.dev/old": "x"}, [], 4)
    ds = cluster.daemonset("nvidia-device-plugin-daemonset", [TOLERATION], {})
    cluster.pod(
        OPERATOR_NAMESPACE,
        "nvidia-device-plugin-doc-gpu-1",
        {"nodeName": "doc-gpu-1", "containers": [{"name": "plugin", "image": "x"}]},
        owner=ds,
        ready=True,
    )
    status, report, output = doctor(stack_objects)
    assert status == 1
    assert kinds(report) == {
        ("taint-missing", "node/doc-gpu-1"),
        ("label-missing", "node/doc-gpu-1"),
        ("label-extra", "node/doc-gpu-1"),
    }, output


def test_a_device_daemonset_that_cant_tolerate_the_pools_taint(
    stack_objects: ControlPlane, cluster: Cluster
) -> None:
    cluster.node("doc-gpu-1", {"nodepools.dev/pool": "doc-gpu", "team": "vision"}, [TAINT], 0)
    cluster.daemonset("nvidia-device-plugin-daemonset", [], {})
    status, report, output = doctor(stack_objects)
    assert status == 1
    messages = {f["kind"]: f["message"] for f in report["findings"]}
    assert set(messages) == {"daemonset-no-pod", "accelerators-zero"}, output
    assert (
        "don't tolerate the node's taint nvidia.com/gpu=true:NoSchedule"
        in messages["daemonset-no-pod"]
    )


def test_a_device_daemonset_whose_selector_the_node_lacks_and_a_crashing_pod(
    stack_objects: ControlPlane, cluster: Cluster
) -> None:
    cluster.node("doc-gpu-1", {"nodepools.dev/pool": "doc-gpu", "team": "vision"}, [TAINT], 4)
    cluster.node("doc-gpu-2", {"nodepools.dev/pool": "doc-gpu", "team": "vision"}, [TAINT], 4)
    cluster.daemonset(
        "gpu-feature-discovery",
        [TOLERATION],
        {"nvidia.com/gpu.deploy.gpu-feature-discovery": "true"},
    )
    ds = cluster.daemonset("nvidia-device-plugin-daemonset", [TOLERATION], {})
    cluster.pod(
        OPERATOR_NAMESPACE,
        "plugin-1",
        {"nodeName": "doc-gpu-1", "containers": [{"name": "plugin", "image": "x"}]},
        owner=ds,
        ready=True,
    )
    cluster.pod(
        OPERATOR_NAMESPACE,
        "plugin-2",
        {"nodeName": "doc-gpu-2", "containers": [{"name": "plugin", "image": "x"}]},
        owner=ds,
        ready=False,
    )
    status, report, output = doctor(stack_objects)
    assert status == 1
    found = {(f["kind"], f["message"].split(":")[0]) for f in report["findings"]}
    assert ("daemonset-pod-not-ready", "pod plugin-2 on node doc-gpu-2") in found, output
    no_pod = [f["message"] for f in report["findings"] if f["kind"] == "daemonset-no-pod"]
    assert len(no_pod) == 2 and all(
        "nvidia.com/gpu.deploy.gpu-feature-discovery=true, which the node lacks" in m
        for m in no_pod
    ), output
    assert "CrashLoopBackOff" in next(
        f["message"] for f in report["findings"] if f["kind"] == "daemonset-pod-not-ready"
    )


def test_pending_pods_get_their_first_reason(stack_objects: ControlPlane, cluster: Cluster) -> None:
    healthy(cluster)
    selector = {"nodepools.dev/pool": "doc-gpu"}
    container = {"name": "train", "image": "x", "resources": {"limits": {GPU: "1"}}}
    # the pool's 4 GPUs taken by a running pod: the scheduler can't fit another
    cluster.pod(
        WORKLOADS,
        "occupant",
        {
            "nodeName": "doc-gpu-1",
            "nodeSelector": selector,
            "tolerations": [TOLERATION],
            "containers": [{**container, "resources": {"limits": {GPU: "4"}}}],
        },
    )
    cluster.pod(WORKLOADS, "no-toleration", {"nodeSelector": selector, "containers": [container]})
    cluster.pod(
        WORKLOADS,
        "too-big",
        {
            "nodeSelector": selector,
            "tolerations": [TOLERATION],
            "containers": [{**container, "resources": {"limits": {GPU: "8"}}}],
        },
    )
    cluster.pod(
        WORKLOADS,
        "wrong-team",
        {
            "nodeSelector": {**selector, "team": "nlp"},
            "tolerations": [TOLERATION],
            "containers": [container],
        },
    )
    cluster.pod(
        WORKLOADS,
        "no-room",
        {"nodeSelector": selector, "tolerations": [TOLERATION], "containers": [container]},
    )
    cluster.pod(
        WORKLOADS,
        "unknown-pool",
        {
            "nodeSelector": {"nodepools.dev/pool": "gone"},
            "tolerations": [TOLERATION],
            "containers": [container],
        },
    )
    cluster.pod(
        WORKLOADS,
        "gated",
        {
            "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
            "nodeSelector": selector,
            "tolerations": [TOLERATION],
            "containers": [container],
        },
    )
    cluster.pod(
        WORKLOADS,
        "cpu-only",
        {"containers": [{"name": "web", "image": "x", "resources": {"requests": {"cpu": "500"}}}]},
    )

    def scheduler_spoke() -> bool:
        events = cluster.core.list_namespaced_event(
            WORKLOADS, field_selector="reason=FailedScheduling"
        ).items
        return any(e.involved_object.name == "no-room" for e in events)

    wait_for(
        "the FailedScheduling event of pod no-room",
        scheduler_spoke,
        stack_objects,
        "kube-scheduler",
        60,
    )
    status, report, output = doctor(stack_objects, "--namespace", WORKLOADS)
    assert status == 1
    by_pod = {f["subject"].rsplit("/", 1)[-1]: f for f in report["findings"]}
    assert by_pod["no-toleration"]["kind"] == "taint-not-tolerated", output
    assert by_pod["too-big"]["kind"] == "resource-over-node"
    assert by_pod["wrong-team"]["kind"] == "selector-mismatch"
    assert "team=nlp: the pool's nodes have team=vision" in by_pod["wrong-team"]["message"]
    assert by_pod["no-room"]["kind"] == "scheduler"
    assert "Insufficient nvidia.com/gpu" in by_pod["no-room"]["message"]
    assert by_pod["unknown-pool"]["kind"] == "pod-matches-no-pool"
    assert by_pod["gated"]["kind"] == "held-by-queue"
    assert "cpu-only" not in by_pod and "occupant" not in by_pod
    assert all(f["pool"] in ("doc-gpu", None) for f in report["findings"])


def test_karpenter_pool_at_its_limits_and_a_nodeclaim_that_failed(
    stack_objects: ControlPlane, cluster: Cluster
) -> None:
    healthy(cluster)
    cluster.custom.patch_cluster_custom_object_status(
        "karpenter.sh",
        "v1",
        "nodepools",
        "doc-karp",
        {
            "status": {
                "resources": {GPU: "2", "cpu": "16", "memory": "64Gi", "nodes": "2", "pods": "0"}
            }
        },
    )
    cluster.cleanup.append(
        lambda: cluster.custom.patch_cluster_custom_object_status(
            "karpenter.sh", "v1", "nodepools", "doc-karp", {"status": {"resources": {GPU: "0"}}}
        )
    )
    claim = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {"name": "doc-karp-x7k2p", "labels": {"karpenter.sh/nodepool": "doc-karp"}},
        "spec": {
            "nodeClassRef": {
                "group": "karpenter.k8s.aws",
                "kind": "EC2NodeClass",
                "name": "doc-karp",
            },
            "requirements": [
                {
                    "key": "node.kubernetes.io/instance-type",
                    "operator": "In",
                    "values": ["g5.2xlarge"],
                }
            ],
        },
    }
    condition = {
        "type": "Launched",
        "status": "False",
        "reason": "InsufficientCapacity",
        "message": "all requested instance types were unavailable during launch",
        "lastTransitionTime": "2026-11-27T20:00:00Z",
    }
    cluster.custom_object(
        "karpenter.sh", "v1", "nodeclaims", claim, status={"conditions": [condition]}
    )
    selector = {"karpenter.sh/nodepool": "doc-karp", "nodepools.dev/pool": "doc-karp"}
    cluster.pod(
        WORKLOADS,
        "karp-job",
        {
            "nodeSelector": selector,
            "tolerations": [TOLERATION],
            "containers": [{"name": "t", "image": "x", "resources": {"limits": {GPU: "1"}}}],
        },
    )
    status, report, output = doctor(stack_objects, "--namespace", WORKLOADS)
    assert status == 1
    assert kinds(report) == {
        ("limits-reached", "nodepool/doc-karp"),
        ("nodeclaim-not-launched", "nodeclaim/doc-karp-x7k2p"),
        ("limits-reached", f"pod/{WORKLOADS}/karp-job"),
    }, output
    assert "all requested instance types were unavailable" in output
    karpenter = next(p for p in report["pools"] if p["name"] == "doc-karp")
    assert karpenter["nodeclaims"] == 1 and karpenter["limits"] == {GPU: "2/2"}


def test_a_workload_over_its_project_quota(stack_objects: ControlPlane, cluster: Cluster) -> None:
    healthy(cluster)
    workload = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "job-train-big", "namespace": "detect"},
        "spec": {
            "queueName": "detect",
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "t", "image": "x", "resources": {"requests": {GPU: "9"}}}
                            ]
                        }
                    },
                }
            ],
        },
    }
    message = "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor doc-gpu, previously considered podsets requests (0) + current podset request (9) > maximum capacity (8)"
    cluster.custom_object(
        "kueue.x-k8s.io",
        "v1beta2",
        "workloads",
        workload,
        status={
            "conditions": [
                {
                    "type": "QuotaReserved",
                    "status": "False",
                    "reason": "Pending",
                    "message": message,
                    "lastTransitionTime": "2026-11-27T20:00:00Z",
                }
            ]
        },
    )
    status, report, output = doctor(stack_objects)
    assert status == 1
    assert kinds(report) == {("workload-not-admitted", "workload/detect/job-train-big")}, output
    assert (
        "queue detect/detect (ClusterQueue detect)" in output and "maximum capacity (8)" in output
    )


def test_an_unreachable_cluster_or_wrong_context_is_one_line_and_status_2(tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:9"}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "ctx",
            }
        )
    )
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["doctor", "--stack", STACK, "-C", str(PROJECT), "--kubeconfig", str(config)])
    assert status == 2 and out.getvalue() == ""
    assert err.getvalue().count("\n") == 1 and f"kubeconfig {config}" in err.getvalue()
    assert "cannot reach https://127.0.0.1:9" in err.getvalue()
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        status = main(
            [
                "doctor",
                "--stack",
                STACK,
                "-C",
                str(PROJECT),
                "--kubeconfig",
                str(config),
                "--context",
                "nope",
            ]
        )
    assert status == 2 and err.getvalue().count("\n") == 1
    assert "context 'nope'" in err.getvalue()


def test_doctor_refuses_to_write(tmp_path: Path, stack_objects: ControlPlane) -> None:
    from kubernetes import client
    from nodepools.doctor.live import _read_only_client  # pyright: ignore[reportPrivateUsage]

    _, api, _ = _read_only_client(kubeconfig(stack_objects), None)
    with pytest.raises(PermissionError, match="read-only: refused POST"):
        client.CoreV1Api(api).create_namespace({"metadata": {"name": "doctor-must-not"}})


def test_a_stack_that_does_not_plan_is_status_2(tmp_path: Path) -> None:
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        status = main(["doctor", "--stack", "missing", "-C", str(PROJECT)])
    assert status == 2 and err.getvalue().startswith("error: ")
