"""Kueue's own controller manager against the test API server: the org-quotas stack's
ClusterQueues become Active, a Job within a project's quota is admitted (unsuspended), one
above it waits, and a Job that needs more than its own quota borrows idle quota of its
cohort.

Optional: runs when `make kueue-controller` has built `kueue` (the pinned release, from the
Go module proxy) into the cluster-tools cache; skipped otherwise, even in CI (building it
cold takes minutes the CI budget keeps for the required tools). Kueue's CRDs are installed
from the same module, so the CRDs match the controller; its webhooks are not registered with
the API server (our own validator and the vendored-CRD tests cover what they check), so the
manager runs with internal certificate management off and a self-signed serving cert.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import yaml

from tests.controlplane.cluster import ControlPlane, free_port
from tests.controlplane.kueue import (
    KUEUE_NAMESPACE,
    SECRET,
    WEBHOOK_CONFIGURATIONS,
    kueue_binary,
    kueue_crd_dir,
    start_kueue,
    with_conversion,
)

pytestmark = pytest.mark.skipif(
    kueue_binary() is None, reason="kueue controller not built (`make kueue-controller`)"
)


@pytest.fixture(scope="module")
def kueue(
    control_plane: ControlPlane, api_client: Any, dynamic_client: Any, installed_crds: list[str]
) -> ControlPlane:
    """Kueue's full CRD set from its module (replacing the vendored subset: same release),
    its namespace, and the manager running."""
    from kubernetes import client

    from tests.controlplane.objects import KubeObject, apply

    extensions = client.ApiextensionsV1Api(api_client)
    webhook_port = free_port()
    names = []
    for path in sorted(kueue_crd_dir().glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        names.append(crd["metadata"]["name"])
        crd = with_conversion(crd, webhook_port)
        apply(dynamic_client, KubeObject(f"kueue CRD {path.name}", crd), dry_run=False)
    _wait_established(extensions, names)
    core = client.CoreV1Api(api_client)
    core.create_namespace({"metadata": {"name": KUEUE_NAMESPACE}})
    # As Kueue's install manifests do: the rotator fills the Secret, it does not create it.
    core.create_namespaced_secret(KUEUE_NAMESPACE, {"metadata": {"name": SECRET}})
    admission = client.AdmissionregistrationV1Api(api_client)
    for kind, name in WEBHOOK_CONFIGURATIONS:
        create = getattr(admission, f"create_{_snake(kind)}")
        create({"metadata": {"name": name}, "webhooks": []})
    start_kueue(control_plane, webhook_port, api_client)
    return control_plane


def _snake(kind: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in kind).lstrip("_")


def _wait_established(api: Any, names: list[str]) -> None:
    deadline = time.monotonic() + 60
    pending = set(names)
    while pending and time.monotonic() < deadline:
        for name in sorted(pending):
            status = api.read_custom_resource_definition(name).status
            conditions = {c.type: c.status for c in (status.conditions or [])} if status else {}
            if conditions.get("Established") == "True":
                pending.discard(name)
        time.sleep(0.2)
    assert not pending, f"Kueue CRDs not Established after 60 s: {sorted(pending)}"


def _wait(what: str, check: Any, plane: ControlPlane, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    pytest.fail(f"{what} not seen after {timeout:.0f} s; kueue log:\n{plane.log_tail('kueue', 40)}")


def _job(name: str, namespace: str, queue: str, gpus: int, cpu: str, memory: str) -> dict[str, Any]:
    container = {
        "name": "train",
        "image": "example.invalid/train:1",
        "resources": {
            "requests": {"nvidia.com/gpu": str(gpus), "cpu": cpu, "memory": memory},
            "limits": {"nvidia.com/gpu": str(gpus)},
        },
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"kueue.x-k8s.io/queue-name": queue},
        },
        "spec": {
            "suspend": True,  # Kueue's Job webhook would set it; it is not registered here
            "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
        },
    }


def _apply_org_quotas(dynamic_client: Any) -> None:
    from tests.controlplane.test_stack_objects import apply_all, stack_objects

    objects, _ = stack_objects("org-quotas")
    apply_all(dynamic_client, objects)


def _cluster_queue(dynamic_client: Any, name: str) -> dict[str, Any]:
    api = dynamic_client.resources.get(api_version="kueue.x-k8s.io/v1beta2", kind="ClusterQueue")
    return api.get(name=name).to_dict()


def _suspended(batch: Any, namespace: str, name: str) -> bool:
    return bool(batch.read_namespaced_job(name, namespace).spec.suspend)


def test_org_quotas_queues_become_active_and_admit_borrow_and_hold(
    kueue: ControlPlane, api_client: Any, dynamic_client: Any
) -> None:
    from kubernetes import client

    _apply_org_quotas(dynamic_client)

    def all_active() -> bool:
        api = dynamic_client.resources.get(
            api_version="kueue.x-k8s.io/v1beta2", kind="ClusterQueue"
        )
        queues = api.get().to_dict()["items"]
        active = [
            q["metadata"]["name"]
            for q in queues
            if any(
                c["type"] == "Active" and c["status"] == "True"
                for c in q.get("status", {}).get("conditions", [])
            )
        ]
        return len(queues) == 8 and len(active) == 8

    _wait("all 8 ClusterQueues Active", all_active, kueue)

    batch = client.BatchV1Api(api_client)
    # research: nominal 5 GPUs per flavor it may use (default, a100-80gb); its cohort `rnd`
    # (under `org`) holds the other projects' idle quota.
    batch.create_namespaced_job(
        "research", _job("within", "research", "research", 4, "32", "244Gi")
    )
    _wait("Job within quota admitted", lambda: not _suspended(batch, "research", "within"), kueue)

    batch.create_namespaced_job(
        "research", _job("borrows", "research", "research", 4, "32", "244Gi")
    )
    _wait(
        "Job above nominal admitted by borrowing",
        lambda: not _suspended(batch, "research", "borrows"),
        kueue,
    )

    def borrowed_gpus() -> int:
        usage = _cluster_queue(dynamic_client, "research").get("status", {}).get("flavorsUsage", [])
        return sum(
            int(r.get("borrowed", 0) or 0)
            for flavor in usage
            for r in flavor["resources"]
            if r["name"] == "nvidia.com/gpu"
        )

    # The queue's status says it borrows GPUs from its cohort.
    assert _wait("GPUs borrowed in the ClusterQueue status", borrowed_gpus, kueue) >= 1

    batch.create_namespaced_job(
        "research", _job("too-big", "research", "research", 500, "32", "244Gi")
    )
    workloads = dynamic_client.resources.get(api_version="kueue.x-k8s.io/v1beta2", kind="Workload")

    def pending_reason() -> str | None:
        for item in workloads.get(namespace="research").to_dict()["items"]:
            owners = [o["name"] for o in item["metadata"].get("ownerReferences", [])]
            if "too-big" in owners:
                for condition in item.get("status", {}).get("conditions", []):
                    if condition["type"] == "QuotaReserved" and condition["status"] == "False":
                        return condition.get("message") or condition.get("reason")
        return None

    message = _wait("the oversized Job's Workload pending", pending_reason, kueue)
    assert _suspended(batch, "research", "too-big"), message
