"""`nodepools doctor` on Workloads whose status Kueue's own controller wrote (issue 35).

tests/controlplane/test_doctor.py stages a Workload with conditions written by hand, as Kueue
would write them; here the real controller (tests/controlplane/kueue.py) runs against the
doctor stack's queues (tests/controlplane/doctor_project: project `detect`, 4 of the pool's 8
GPUs guaranteed, the other 4 lent to it by the root Cohort, nobody else to borrow from). A
Job over what it can get is held by Kueue, and doctor names its Workload, the queue and ClusterQueue that hold it and Kueue's own message, exit
status 1; a Job within the quota is admitted and doctor reports nothing, exit status 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.kueue import running_kueue
from tests.controlplane.kueue_jobs import Kueue, job

# The doctor tests' staging (a healthy doc-gpu node and its device plugin) and the stack's
# objects applied, as test_doctor.py's fixtures do.
from tests.controlplane.test_doctor import (
    GPU,
    Cluster,
    cluster,  # noqa: F401  # pyright: ignore[reportUnusedImport]  (a fixture)
    doctor,
    healthy,
    kinds,
    stack_objects,  # noqa: F401  # pyright: ignore[reportUnusedImport]  (a fixture)
)

PROJECT = "detect"  # the doc stack's project: its namespace and LocalQueue


@pytest.fixture(scope="module")
def kueue(
    stack_objects: ControlPlane,  # noqa: F811
    api_client: Any,
    dynamic_client: Any,
    controller_manager: ControlPlane,
) -> Iterator[Kueue]:
    with running_kueue(stack_objects, api_client, dynamic_client):
        jobs = Kueue(stack_objects, api_client, dynamic_client)
        jobs.wait("ClusterQueue detect Active", lambda: jobs.active(PROJECT))
        yield jobs
        jobs.clear([PROJECT])


def _requests(gpus: int) -> dict[str, str]:
    return {GPU: str(gpus), "cpu": "1", "memory": "1Gi"}


def test_a_job_over_its_project_quota_held_by_kueue_is_reported(
    kueue: Kueue,
    cluster: Cluster,  # noqa: F811
    stack_objects: ControlPlane,  # noqa: F811
) -> None:
    healthy(cluster)
    kueue.clear([PROJECT])
    # 4 GPUs its own, 4 more the root Cohort lends (the pool's 8 no project is promised): 9 is
    # more than it can get.
    ref = kueue.submit(job("train-big", PROJECT, PROJECT, _requests(9)))
    message = kueue.wait(f"{ref} held by Kueue", lambda: kueue.held(ref))
    workload = kueue.workload(ref)
    assert workload is not None
    status, report, output = doctor(stack_objects)
    assert status == 1, output
    subject = f"workload/{PROJECT}/{workload['metadata']['name']}"
    assert kinds(report) == {("workload-not-admitted", subject)}, output
    (finding,) = report["findings"]
    assert f"queue {PROJECT}/{PROJECT} (ClusterQueue {PROJECT})" in finding["message"], output
    assert message in finding["message"], (message, output)
    print(f"doctor, on Kueue's own status: {finding['message']}")


def test_a_job_within_its_quota_admitted_by_kueue_reports_nothing(
    kueue: Kueue,
    cluster: Cluster,  # noqa: F811
    stack_objects: ControlPlane,  # noqa: F811
) -> None:
    healthy(cluster)
    kueue.clear([PROJECT])
    ref = kueue.submit(job("train", PROJECT, PROJECT, _requests(4)))
    kueue.wait(f"{ref} admitted by Kueue", lambda: kueue.admitted(ref))
    status, report, output = doctor(stack_objects)
    assert report["findings"] == [], output
    assert status == 0
