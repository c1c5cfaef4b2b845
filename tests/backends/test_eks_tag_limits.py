"""AWS's tag limits on what an EKS pool registers (issue 29 item 6): an autoscaled pool's
Auto Scaling group holds at most 50 tags (ours for scale from zero, and the 5 EKS puts there);
every resource a pool tags holds the cluster's tags and the pool's own, 50 at most."""

from __future__ import annotations

import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.offline import ProgramError, run
from nodepools.specs import SpecError

from tests.conftest import EKS

ASG_TAG = "aws:autoscaling/tag:Tag"
AUTOSCALED = {"min_replicas": 0, "max_replicas": 2}


def _labels(count: int) -> dict[str, str]:
    return {f"team.example.com/l{i}": "v" for i in range(count)}


def test_sixty_labels_on_an_autoscaled_pool_are_refused_with_the_count():
    args = {"cluster": EKS, "instance_type": "g5.xlarge", "labels": _labels(60)}
    with pytest.raises(ProgramError) as raised:
        run(lambda: GpuSpotPool("gpu", args))
    assert raised.value.capture.resources == []
    [issue] = raised.value.__cause__.issues  # type: ignore[union-attr]
    assert issue.path == "labels"
    # 60 + the pool's own and node-type labels + the GPU label; GPU and spot taints; the GPU.
    assert "would put 71 tags on its Auto Scaling group, and AWS allows 50" in issue.message
    assert "63 label(s)" in issue.message and "2 taint(s)" in issue.message
    assert "1 resource(s)" in issue.message and "the 5 tags EKS puts there itself" in issue.message


def test_the_most_that_fits_is_registered():
    # 45 of ours and EKS's 5: 50. A CPU pool: its own label and these 44.
    args = {"cluster": EKS, "instance_type": "m5.large", "autoscaling": AUTOSCALED}
    capture = run(lambda: MachinePool("cpu", {**args, "labels": _labels(44)}))
    assert len(capture.by_type(ASG_TAG)) == 45
    with pytest.raises(SpecError, match="would put 51 tags"):
        MachinePool.preflight("cpu", {**args, "labels": _labels(45)})


def test_a_fixed_size_pool_tags_no_auto_scaling_group():
    args = {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, "labels": _labels(60)}
    capture = run(lambda: MachinePool("cpu", args))
    assert capture.by_type(ASG_TAG) == []


@pytest.mark.parametrize(
    ("tags", "path", "fragment"),
    [
        ({f"k{i}": "v" for i in range(50)}, "cluster.tags", "give at most 49"),
        ({"nodepools.dev/pool": "x"}, 'cluster.tags["nodepools.dev/pool"]', "every pool sets"),
        ({"aws:owner": "x"}, 'cluster.tags["aws:owner"]', "reserves"),
        ({"k" * 129: "x"}, f'cluster.tags["{"k" * 129}"]', "1 to 128"),
        ({"k": "v" * 257}, 'cluster.tags["k"]', "at most 256"),
    ],
)
def test_cluster_tags_leave_room_for_the_pools_own(tags, path, fragment):
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight(
            "cpu", {"cluster": {**EKS, "tags": tags}, "instance_type": "m5.large", "replicas": 1}
        )
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    assert fragment in found[path]
