"""Doctor's reading of Karpenter's NodeClaim state, as Karpenter v1.14.1 writes it (seen live
in tests/controlplane/test_doctor_karpenter.py; here as plain snapshots, no cluster):
a launch that failed is `Launched=Unknown` with a reason, not `False`; a NodeClaim deleted
for insufficient capacity leaves only its Warning event."""

from __future__ import annotations

from typing import Any

from nodepools.doctor.expected import PoolPlan
from nodepools.doctor.live import LiveCluster
from nodepools.doctor.pool_checks import check_pool

POOL = PoolPlan(
    name="gpu",
    component="KarpenterNodePool",
    backend="karpenter",
    identity=("nodepools.dev/pool", "gpu"),
    labels={"nodepools.dev/pool": "gpu"},
    taints=(),
    min_nodes=None,
    max_nodes=None,
    autoscaled=True,
    advertised={},
    scheduling={},
    limits={},
    nodepool="gpu",
)


def _claim(name: str, *conditions: dict[str, str]) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"karpenter.sh/nodepool": "gpu"}},
        "status": {"conditions": list(conditions)},
    }


def _kinds(live: LiveCluster) -> set[tuple[str, str]]:
    _, found = check_pool(POOL, live)
    return {(f.kind, f.subject) for f in found}


def _live(**kwargs: Any) -> LiveCluster:
    return LiveCluster(has_karpenter=True, nodepools=[{"metadata": {"name": "gpu"}}], **kwargs)


def test_a_launch_karpenter_retries_is_a_finding_and_one_in_progress_is_not() -> None:
    failed = _claim(
        "gpu-aaaaa",
        {"type": "Launched", "status": "Unknown", "reason": "LaunchFailed", "message": "boom"},
    )
    waiting = _claim(
        "gpu-bbbbb",
        {"type": "Launched", "status": "Unknown", "reason": "AwaitingReconciliation"},
    )
    joining = _claim(
        "gpu-ccccc",
        {"type": "Launched", "status": "True", "reason": "Launched"},
        {"type": "Registered", "status": "Unknown", "reason": "NodeNotFound"},
    )
    live = _live(nodeclaims=[failed, waiting, joining])
    assert _kinds(live) == {("nodeclaim-not-launched", "nodeclaim/gpu-aaaaa")}
    _, found = check_pool(POOL, live)
    assert found[0].message == "not Launched (Karpenter retries, then deletes the NodeClaim): boom"


def test_an_insufficient_capacity_event_of_a_deleted_nodeclaim_is_a_finding() -> None:
    def event(claim: str) -> dict[str, Any]:
        return {
            "involvedObject": {"kind": "NodeClaim", "name": claim},
            "reason": "InsufficientCapacityError",
            "message": f"NodeClaim {claim} event: insufficient capacity",
        }

    live = _live(
        # its pool's (deleted), another pool's whose name starts like it, and one that still exists
        capacity_events=[event("gpu-ddddd"), event("gpu-large-eeeee"), event("gpu-fffff")],
        nodeclaims=[_claim("gpu-fffff", {"type": "Launched", "status": "True"})],
    )
    assert _kinds(live) == {("nodeclaim-insufficient-capacity", "nodeclaim/gpu-ddddd")}
