"""`instance_types`: one EKS node group over a mix of types (issue 14)."""

from __future__ import annotations

import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS, OKE

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291", "multi_az": False}
MIX = ["g6e.2xlarge", "g6.12xlarge", "g6.xlarge"]


def _capture(args: dict):
    return run(lambda: GpuSpotPool("pool", {"cluster": EKS, **args}))


def test_the_node_group_gets_every_type_in_the_given_order():
    capture = _capture({"instance_types": MIX})
    assert capture.get(NODE_GROUP, "pool-node-group").inputs["instanceTypes"] == MIX


def test_a_single_type_still_goes_as_a_list_of_one():
    capture = _capture({"instance_type": "g6.xlarge"})
    assert capture.get(NODE_GROUP, "pool-node-group").inputs["instanceTypes"] == ["g6.xlarge"]


def test_scheduling_info_and_autoscaler_tags_promise_what_every_type_has():
    # g6.12xlarge has 4 GPUs, the others 1: a pod may ask for 1; the models differ (L40S, L4),
    # so no node-group label names one.
    pool = GpuSpotPool.resolve("pool", {"cluster": EKS, "instance_types": MIX})
    assert pool.accelerator is not None
    assert pool.accelerator.count == 1
    assert pool.accelerator.model == ""
    assert pool.instance_type == "g6.xlarge"  # fewest GPUs, then least memory
    capture = _capture({"instance_types": MIX})
    tags = {
        r.inputs["tag"]["key"]: r.inputs["tag"]["value"]
        for r in capture.by_type("aws:autoscaling/tag:Tag")
    }
    assert tags["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == "1"
    labels = capture.get(NODE_GROUP, "pool-node-group").inputs["labels"]
    assert labels["k8s.amazonaws.com/accelerator"] == "nvidia"


def test_a_shared_model_is_kept():
    pool = GpuSpotPool.resolve(
        "pool", {"cluster": EKS, "instance_types": ["g6.xlarge", "g6.2xlarge"]}
    )
    assert pool.accelerator is not None and pool.accelerator.model == "L4"


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        ({"instance_type": "g6.xlarge", "instance_types": ["g6.2xlarge"]}, "instance_types", "exactly one of"),
        ({}, "instance_type", "one of `instance_type` or `instance_types` is required"),
        ({"instance_types": ["g6.xlarge", "m5.large"]}, "instance_types", "one accelerator resource"),
        ({"instance_types": ["g6.xlarge", "g5g.xlarge"]}, "instance_types", "one CPU architecture"),
        ({"instance_types": ["g6.xlarge", "inf2.xlarge"]}, "instance_types", "one accelerator resource"),
        ({"instance_types": ["g6.xlarge", "g6.xlarge"]}, "instance_types", "twice"),
        ({"instance_types": []}, "instance_types", "at least 1"),
        ({"instance_types": ["g6.xlarge", "VM.GPU.A10.1"]}, "instance_types[1]", "VM.GPU.A10.1"),
        ({"instance_types": ["g6.xlarge", "g6.99xlarge"]}, "instance_types[1]", "not in the instance catalog"),
        ({"instance_types": ["g6.xlarge"], "cluster": OKE}, "instance_types", "can't be used on OKE node pools: they run one instance type"),
        ({"instance_types": ["m5.xlarge"], "cluster": ROSA}, "instance_types", "can't be used on ROSA Classic machine pools: they run one instance type"),
    ],
)  # fmt: skip
def test_bad_mixes_are_refused_with_their_path_before_anything_is_registered(args, path, fragment):
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight("pool", {"cluster": EKS, "replicas": 1, **args})
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    assert fragment in found[path], found[path]
