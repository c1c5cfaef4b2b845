"""Jobs submitted to Kueue's queues and what the real controller says about them: admitted
(unsuspended), held (QuotaReserved False, with Kueue's message), preempted (Evicted by
Kueue, the Job suspended again), and the ClusterQueues' usage. No kubelet or job controller
runs, so an admitted Job creates no pods: Kueue's part is all there is to see."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tests.controlplane.cluster import ControlPlane, wait_for

KUEUE_API = "kueue.x-k8s.io/v1beta2"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PLAIN = ("cpu", "memory")


def job(
    name: str,
    namespace: str,
    queue: str,
    requests: dict[str, str],
    node_selector: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A suspended Job in QUEUE (Kueue's Job webhook would suspend it; it is not registered
    here), one pod asking for REQUESTS, pinned by NODE_SELECTOR (Kueue then only considers
    the flavors whose node labels match it)."""
    container = {
        "name": "train",
        "image": "example.invalid/train:1",
        "resources": {
            "requests": dict(requests),
            "limits": {k: v for k, v in requests.items() if k not in PLAIN},
        },
    }
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [container]}
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": {QUEUE_LABEL: queue}},
        "spec": {"suspend": True, "template": {"spec": spec}},
    }


class Kueue:
    """Clients and waits against the running controller."""

    def __init__(self, plane: ControlPlane, api_client: Any, dynamic_client: Any) -> None:
        from kubernetes import client

        self.plane = plane
        self.batch = client.BatchV1Api(api_client)
        self.dynamic = dynamic_client
        self.workloads = dynamic_client.resources.get(api_version=KUEUE_API, kind="Workload")
        self.cluster_queues = dynamic_client.resources.get(
            api_version=KUEUE_API, kind="ClusterQueue"
        )

    def wait(self, what: str, check: Callable[[], Any], timeout: float = 120) -> Any:
        return wait_for(what, check, self.plane, "kueue", timeout)

    def submit(self, manifest: dict[str, Any]) -> str:
        namespace = manifest["metadata"]["namespace"]
        self.batch.create_namespaced_job(namespace, manifest)
        return f"{namespace}/{manifest['metadata']['name']}"

    def admitted(self, job_ref: str) -> bool:
        namespace, name = job_ref.split("/")
        return not self.batch.read_namespaced_job(name, namespace).spec.suspend

    def workload(self, job_ref: str) -> dict[str, Any] | None:
        namespace, name = job_ref.split("/")
        for item in self.workloads.get(namespace=namespace).to_dict()["items"]:
            if name in [o["name"] for o in item["metadata"].get("ownerReferences", [])]:
                return item
        return None

    def condition(self, job_ref: str, kind: str, status: str = "True") -> dict[str, Any] | None:
        """The Workload's condition of type KIND when it has STATUS."""
        workload = self.workload(job_ref) or {}
        for condition in workload.get("status", {}).get("conditions", []):
            if condition["type"] == kind and condition["status"] == status:
                return condition
        return None

    def held(self, job_ref: str) -> str | None:
        """Kueue's reason for not admitting the Job (QuotaReserved False), once it tried."""
        condition = self.condition(job_ref, "QuotaReserved", "False")
        return None if condition is None else condition.get("message") or condition["reason"]

    def flavor(self, job_ref: str) -> str | None:
        """The flavor the admitted Workload was given for its first accelerator resource."""
        workload = self.workload(job_ref) or {}
        admission = workload.get("status", {}).get("admission") or {}
        for pod_set in admission.get("podSetAssignments", []):
            for resource, flavor in (pod_set.get("flavors") or {}).items():
                if resource not in PLAIN:
                    return str(flavor)
        return None

    def cluster_queue(self, name: str) -> dict[str, Any]:
        return self.cluster_queues.get(name=name).to_dict()

    def usage(self, name: str, resource: str, field: str = "total") -> int:
        """Sum over flavors of the ClusterQueue's `total` or `borrowed` use of RESOURCE."""
        queue = self.cluster_queue(name)
        return sum(
            int(r.get(field, 0) or 0)
            for flavor in queue.get("status", {}).get("flavorsUsage", [])
            for r in flavor["resources"]
            if r["name"] == resource
        )

    def active(self, name: str) -> bool:
        return any(
            c["type"] == "Active" and c["status"] == "True"
            for c in self.cluster_queue(name).get("status", {}).get("conditions", [])
        )

    def clear(self, namespaces: Iterable[str]) -> None:
        """Delete every Job in NAMESPACES and wait until their Workloads are gone (the garbage
        collector deletes them, Kueue releases their quota and its finalizer)."""
        spaces = sorted(set(namespaces))
        for namespace in spaces:
            self.batch.delete_collection_namespaced_job(namespace, propagation_policy="Background")

        def gone() -> bool:
            return not any(self.workloads.get(namespace=n).to_dict()["items"] for n in spaces)

        self.wait(f"the Workloads in {spaces} deleted", gone, timeout=90)
