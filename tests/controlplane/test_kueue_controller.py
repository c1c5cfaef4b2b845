"""Kueue's own controller manager against the test API server, with the org-quotas stack's
queues (two department cohorts under one organisation cohort, every project over-quota):

- all of the stack's ClusterQueues become Active;
- a Job within its project's nominal quota is admitted (unsuspended) without borrowing;
- a second one, over the project's nominal quota, is admitted by borrowing the cohort's idle
  quota (the ClusterQueue's status shows the borrowed GPUs), which includes the root Cohort's
  own quota: the GPUs no project is guaranteed;
- more Jobs fill the cohort until its quota is exhausted: the next Job over quota waits
  (QuotaReserved False) although a ClusterQueue outside the cohort has idle GPUs of the same
  flavor, the project has then borrowed exactly the rest of the cohort's nominal quota and
  nothing more (borrowing stays inside the cohort), and the waiting Job is admitted as soon
  as one of the fillers is deleted (it waited for quota, it was not impossible);
- a Job bigger than the whole cohort stays pending.

Runs when `make kueue-controller` (part of `make test` when Go is there) has built `kueue`
(the pinned release, from the Go module proxy); skipped otherwise, and a failure in CI
(NODEPOOLS_REQUIRE_CONTROLLERS=1, tests/controlplane/kueue.py). Kueue's CRDs are installed
from the same module, so the CRDs match the controller. The manager runs with its internal
certificate management on, as installed: it makes its serving certificate, keeps it in its
Secret (which the test "mounts", as a kubelet would) and injects its CA into its webhook
configurations, created here empty. Its webhooks are not registered with the API server (their
Service is in-cluster, unreachable from loopback; our own validator and the vendored-CRD tests
cover what they check), and the converted CRDs serve only their storage version, so the API
server never calls the conversion webhook either.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane, wait_for
from tests.controlplane.kueue import running_kueue
from tests.controlplane.kueue_jobs import Kueue


@pytest.fixture(scope="module")
def kueue(
    control_plane: ControlPlane,
    api_client: Any,
    dynamic_client: Any,
    installed_crds: list[str],
    controller_manager: ControlPlane,
) -> Iterator[ControlPlane]:
    """The manager running for this module (tests/controlplane/kueue.py); what the test made
    is deleted before it stops, so a later module's Kueue starts from empty queues."""
    with running_kueue(control_plane, api_client, dynamic_client):
        yield control_plane
        jobs = Kueue(control_plane, api_client, dynamic_client)
        jobs.clear([PROJECT])
        with suppress(Exception):
            jobs.cluster_queues.delete(name="outside-the-cohort")


def _wait(what: str, check: Callable[[], Any], plane: ControlPlane, timeout: float = 60) -> Any:
    return wait_for(what, check, plane, "kueue", timeout)


def _job(
    name: str,
    namespace: str,
    queue: str,
    gpus: int,
    cpu: str = "1",
    memory: str = "1Gi",
) -> dict[str, Any]:
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


def _apply_org_quotas(dynamic_client: Any) -> list[dict[str, Any]]:
    """The stack's objects applied; returns its ClusterQueues' manifests."""
    from tests.controlplane.test_stack_objects import apply_all, stack_objects

    objects, _ = stack_objects("org-quotas")
    apply_all(dynamic_client, objects)
    return [o.manifest for o in objects if o.manifest["kind"] == "ClusterQueue"]


def _cluster_queue(dynamic_client: Any, name: str) -> dict[str, Any]:
    api = dynamic_client.resources.get(api_version="kueue.x-k8s.io/v1beta2", kind="ClusterQueue")
    return api.get(name=name).to_dict()


def _active(queue: dict[str, Any]) -> bool:
    return any(
        c["type"] == "Active" and c["status"] == "True"
        for c in queue.get("status", {}).get("conditions", [])
    )


def _suspended(batch: Any, namespace: str, name: str) -> bool:
    return bool(batch.read_namespaced_job(name, namespace).spec.suspend)


def _gpus(queue: dict[str, Any], field: str) -> int:
    """Sum over flavors of the queue's GPU `total` or `borrowed` (status.flavorsUsage)."""
    return sum(
        int(r.get(field, 0) or 0)
        for flavor in queue.get("status", {}).get("flavorsUsage", [])
        for r in flavor["resources"]
        if r["name"] == GPU
    )


def _nominal_gpus(queue: dict[str, Any]) -> int:
    """The GPUs a ClusterQueue's (or Cohort's) resource groups hold as nominal quota."""
    return sum(
        int(r["nominalQuota"])
        for group in queue.get("spec", {}).get("resourceGroups", [])
        for flavor in group["flavors"]
        for r in flavor["resources"]
        if r["name"] == GPU
    )


def _cohort_tree(queues: list[dict[str, Any]], cohorts: dict[str, str | None], name: str) -> str:
    """The root of the cohort tree a queue is in (its quota is lent only inside that tree)."""
    cohort = next(q["spec"]["cohortName"] for q in queues if q["metadata"]["name"] == name)
    while cohorts.get(cohort):
        cohort = cohorts[cohort] or cohort
    return cohort


GPU = "nvidia.com/gpu"
PROJECT = "research"
JOB_GPUS = 4  # every flavor's quota in the cohort is a multiple of 4: fillers fill it exactly


def test_org_quotas_queues_admit_borrow_inside_the_cohort_and_make_the_rest_wait(
    kueue: ControlPlane, api_client: Any, dynamic_client: Any
) -> None:
    from kubernetes import client

    from tests.controlplane.report import count
    from tests.controlplane.test_stack_objects import stack_objects

    queues = _apply_org_quotas(dynamic_client)
    names = sorted(q["metadata"]["name"] for q in queues)
    cohort_objects = [
        o.manifest for o in stack_objects("org-quotas")[0] if o.manifest["kind"] == "Cohort"
    ]
    cohorts = {c["metadata"]["name"]: c.get("spec", {}).get("parentName") for c in cohort_objects}
    _wait(
        f"the stack's {len(names)} ClusterQueues Active",
        lambda: all(_active(_cluster_queue(dynamic_client, n)) for n in names),
        kueue,
    )
    # Everything the project can use: its own nominal quota and what the rest of its cohort
    # tree lends (no borrowingLimit: over-quota is unlimited inside the tree): the other
    # queues' quotas and the root Cohort's own, the GPUs no project is guaranteed.
    tree = _cohort_tree(queues, cohorts, PROJECT)
    in_tree = [q for q in queues if _cohort_tree(queues, cohorts, q["metadata"]["name"]) == tree]
    own = _nominal_gpus(next(q for q in queues if q["metadata"]["name"] == PROJECT))
    root = next(c for c in cohort_objects if c["metadata"]["name"] == tree)
    unassigned = _nominal_gpus(root)
    assert unassigned == 40, root  # the stack's 40 idle V100s
    cohort_total = sum(_nominal_gpus(q) for q in in_tree) + unassigned
    assert own < cohort_total and cohort_total % JOB_GPUS == 0, (own, cohort_total)

    # A ClusterQueue outside the cohort, with idle GPUs of the same flavors: never lent.
    outsider = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "outside-the-cohort"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", GPU],
                    "flavors": [
                        {
                            "name": flavor,
                            "resources": [
                                {"name": "cpu", "nominalQuota": 1000},
                                {"name": "memory", "nominalQuota": "10Ti"},
                                {"name": GPU, "nominalQuota": 100},
                            ],
                        }
                        for flavor in ("default", "a100-80gb", "a100-40gb")
                    ],
                }
            ],
        },
    }
    from tests.controlplane.objects import KubeObject, apply

    apply(dynamic_client, KubeObject("outsider", outsider), dry_run=False)
    _wait(
        "the outsider ClusterQueue Active",
        lambda: _active(_cluster_queue(dynamic_client, "outside-the-cohort")),
        kueue,
    )

    batch = client.BatchV1Api(api_client)

    def admitted(name: str) -> bool:
        return not _suspended(batch, PROJECT, name)

    batch.create_namespaced_job(PROJECT, _job("within", PROJECT, PROJECT, JOB_GPUS, "32", "244Gi"))
    _wait("Job within quota admitted", lambda: admitted("within"), kueue)
    assert _gpus(_cluster_queue(dynamic_client, PROJECT), "borrowed") == 0

    batch.create_namespaced_job(PROJECT, _job("borrows", PROJECT, PROJECT, JOB_GPUS, "32", "244Gi"))
    _wait("Job above nominal admitted by borrowing", lambda: admitted("borrows"), kueue)
    borrowed = _wait(
        "GPUs borrowed in the ClusterQueue status",
        lambda: _gpus(_cluster_queue(dynamic_client, PROJECT), "borrowed"),
        kueue,
    )
    assert borrowed >= 1

    # Fill the rest of the cohort tree's quota, one Job at a time.
    fillers = [f"filler-{i}" for i in range((cohort_total - 2 * JOB_GPUS) // JOB_GPUS)]
    for name in fillers:
        batch.create_namespaced_job(PROJECT, _job(name, PROJECT, PROJECT, JOB_GPUS))
        _wait(f"{name} admitted while the cohort has quota", lambda n=name: admitted(n), kueue)

    def quota_usage() -> tuple[int, int]:
        queue = _cluster_queue(dynamic_client, PROJECT)
        return _gpus(queue, "total"), _gpus(queue, "borrowed")

    _wait(
        "the project using the whole cohort's GPUs",
        lambda: quota_usage()[0] == cohort_total,
        kueue,
    )
    total, borrowed = quota_usage()
    # Borrowing stays inside the cohort: exactly the other queues' nominal quota, none of the
    # outsider's.
    assert borrowed == cohort_total - own, (total, borrowed, cohort_total, own)

    batch.create_namespaced_job(PROJECT, _job("waits", PROJECT, PROJECT, JOB_GPUS))
    message = _wait(
        "the Job over quota pending", lambda: _pending_message("waits", dynamic_client), kueue
    )
    print(f"the Job over quota waits: {message}")
    time.sleep(2)  # a few more scheduling cycles: it still waits
    assert not admitted("waits"), message
    outsider_usage = _gpus(_cluster_queue(dynamic_client, "outside-the-cohort"), "total")
    assert outsider_usage == 0

    batch.delete_namespaced_job(fillers[-1], PROJECT, propagation_policy="Background")
    _wait("the waiting Job admitted once quota is freed", lambda: admitted("waits"), kueue)

    batch.create_namespaced_job(PROJECT, _job("too-big", PROJECT, PROJECT, 500))
    too_big = _wait(
        "the oversized Job's Workload pending",
        lambda: _pending_message("too-big", dynamic_client),
        kueue,
    )
    assert _suspended(batch, PROJECT, "too-big"), too_big
    print(f"the Job bigger than the cohort waits: {too_big}")
    count("Kueue controller: Jobs admitted / borrowing / held", 3 + len(fillers) + 2)


def _pending_message(job: str, dynamic_client: Any) -> str | None:
    """The QuotaReserved=False message of the Job's Workload, once Kueue has tried it."""
    workloads = dynamic_client.resources.get(api_version="kueue.x-k8s.io/v1beta2", kind="Workload")
    for item in workloads.get(namespace=PROJECT).to_dict()["items"]:
        owners = [o["name"] for o in item["metadata"].get("ownerReferences", [])]
        if job in owners:
            for condition in item.get("status", {}).get("conditions", []):
                if condition["type"] == "QuotaReserved" and condition["status"] == "False":
                    return condition.get("message") or condition.get("reason")
    return None
