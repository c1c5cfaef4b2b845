"""AWS tag rules on the tags an EKS cluster target puts on every node group, and on a
Karpenter node class's instance tags: what AWS accepts (spaces, `_.:/=+-@`) is accepted,
what it refuses (the `aws:` prefix, more than 50 tags) is refused at the tag's path."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import MachinePool
from nodepools.offline import ProgramError, run
from nodepools.pools.karpenter_node_pool import prepare_pool
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def _pool(tags: dict[str, str]) -> dict[str, Any]:
    return {"cluster": {**EKS, "tags": tags}, "instance_type": "m5.large", "replicas": 1}


def _eks_problems(tags: dict[str, str]) -> dict[str, str]:
    with pytest.raises(ProgramError) as raised:
        run(lambda: MachinePool("cpu", _pool(tags)))
    assert isinstance(raised.value.cause, SpecError)
    assert raised.value.capture.resources == []  # refused before anything registered
    return {issue.path: issue.message for issue in raised.value.cause.issues}


def test_tags_with_spaces_and_aws_punctuation_reach_the_node_group():
    tags = {"Cost Center": "ML Research", "team:owner": "a.b@example.com", "k+=/-_": ""}
    group = run(lambda: MachinePool("cpu", _pool(tags))).get(NODE_GROUP, "cpu-node-group")
    assert group.inputs["tags"] == {**tags, "nodepools.dev/pool": "cpu"}


@pytest.mark.parametrize(
    ("tags", "path", "message"),
    [
        (
            {"aws:cloudformation:stack-name": "x"},
            'cluster.tags["aws:cloudformation:stack-name"]',
            "'aws:cloudformation:stack-name' uses the 'aws:' prefix",
        ),
        ({"AWS:Owner": "x"}, 'cluster.tags["AWS:Owner"]', "'AWS:Owner' uses the 'aws:' prefix"),
        ({"team#1": "x"}, 'cluster.tags["team#1"]', "tag key 'team#1' must be 1 to 128"),
        ({"k" * 129: "x"}, f'cluster.tags["{"k" * 129}"]', "must be 1 to 128"),
        ({"team": "v" * 257}, 'cluster.tags["team"]', "must be at most 256"),
        (
            {f"tag-{i}": "x" for i in range(51)},
            "cluster.tags",
            "at most 50 tags are allowed (got 51)",
        ),
    ],
)
def test_tags_aws_refuses_are_refused_at_their_path(tags, path, message):
    found = _eks_problems(tags)
    assert path in found, found
    assert message in found[path], found[path]


def test_karpenter_instance_tags_follow_the_same_rules():
    tags = {"Cost Center": "ML Research", "team": "ml"}
    _, manifests = prepare_pool(
        {"node_class": {**NODE_CLASS, "tags": tags}, "instance_families": ["m5"]}, "p", "t"
    )
    assert manifests["node_class"]["spec"]["tags"] == dict(sorted(tags.items()))
    with pytest.raises(SpecError) as raised:
        prepare_pool({"node_class": {**NODE_CLASS, "tags": {"aws:x": "y"}}}, "p", "t")
    assert "uses the 'aws:' prefix" in str(raised.value)


def test_karpenter_instance_tags_leave_room_for_karpenters_own():
    # Karpenter adds 6 tags to every instance (5 when the class sets `Name`); EC2 allows 50.
    def tags(count: int, name: bool = False) -> dict[str, str]:
        found = {f"tag-{i}": "x" for i in range(count - name)}
        return {**found, "Name": "gpu"} if name else found

    for accepted in (tags(44), tags(45, name=True)):
        prepare_pool({"node_class": {**NODE_CLASS, "tags": accepted}}, "p", "t")
    for refused, added in ((tags(45), 6), (tags(46, name=True), 5)):
        with pytest.raises(SpecError) as raised:
            prepare_pool({"node_class": {**NODE_CLASS, "tags": refused}}, "p", "t")
        [issue] = raised.value.issues
        assert issue.path == "node_class.tags"
        assert issue.message.startswith(f"{len(refused)} tags are too many: Karpenter adds {added}")
