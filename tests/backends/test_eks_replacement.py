"""EKS node groups that the cloud can replace and update."""

from __future__ import annotations

from nodepools import MachinePool
from nodepools.backends.eks.node_group import node_group_name_prefix
from nodepools.offline import run

from tests.conftest import EKS

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def test_node_groups_are_named_by_prefix_so_replacement_can_create_first():
    capture = run(
        lambda: MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})
    )
    group = capture.get(NODE_GROUP, "cpu-node-group")
    # A fixed nodeGroupName makes every replacement fail (create-before-delete collides).
    assert "nodeGroupName" not in group.inputs
    assert group.inputs["nodeGroupNamePrefix"] == "cpu-"
    assert group.options["deleteBeforeReplace"] is False
    # The pool's identity lives in its label and tag, not in the group's name.
    assert group.inputs["labels"]["nodepools.dev/pool"] == "cpu"
    assert group.inputs["tags"]["nodepools.dev/pool"] == "cpu"
    assert group.outputs["nodeGroupName"].startswith("cpu-")


def test_a_long_pool_name_leaves_room_for_the_unique_suffix():
    pool = "a" * 40 + "-" + "b" * 22  # 63 characters, the longest pool name
    prefix = node_group_name_prefix(pool)
    assert len(prefix) + 26 <= 63
    assert prefix == "a" * 36 + "-"
    assert node_group_name_prefix("x" * 35 + "-y") == "x" * 35 + "-"
