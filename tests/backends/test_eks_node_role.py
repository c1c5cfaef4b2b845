"""NodeRole: the IAM role EKS nodes assume, created by a pool whose cluster names none, or
once and shared (issue 14)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from nodepools import GpuSpotPool, MachinePool, NodeRole
from nodepools.offline import run
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.node_role import NodeRoleArgs

from tests.conftest import EKS

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ROLE = "aws:iam/role:Role"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
NO_ROLE = {k: v for k, v in EKS.items() if k != "node_role_arn"}
POLICIES = {
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryReadOnly",
    "AmazonSSMManagedInstanceCore",
}


def test_a_pool_without_a_role_creates_one_named_after_it():
    capture = run(lambda: GpuSpotPool("gpu", {"cluster": NO_ROLE, "instance_type": "g5.12xlarge"}))
    [component] = capture.by_type(NodeRole.TYPE)
    assert component.name == "gpu-node-role"
    assert component.parent == capture.get(GpuSpotPool.TYPE, "gpu").urn
    [role] = capture.by_type(ROLE)
    assert role.name == "gpu-node-role-role" and role.parent == component.urn
    assert role.inputs["namePrefix"] == "gpu-" and "name" not in role.inputs
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert trust["Statement"] == [
        {
            "Sid": "EKSNodeAssumeRole",
            "Effect": "Allow",
            "Principal": {"Service": "ec2.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
    ]
    attachments = capture.by_type(ATTACHMENT)
    assert {a.inputs["policyArn"] for a in attachments} == {
        f"arn:aws:iam::aws:policy/{name}" for name in POLICIES
    }
    role_name = capture.outputs_of(component)["role_name"]
    assert {a.inputs["role"] for a in attachments} == {role_name}

    group = capture.get(NODE_GROUP, "gpu-node-group")
    arn = capture.outputs_of(component)["role_arn"]
    assert group.inputs["nodeRoleArn"] == arn
    assert arn.startswith("arn:aws:iam::123456789012:role/gpu-")
    # Nodes join only once every policy is attached.
    assert {a.urn for a in attachments} <= set(group.dependencies)
    assert capture.outputs_of(capture.get(GpuSpotPool.TYPE, "gpu"))["node_role_arn"] == arn


def test_a_long_pool_name_is_cut_to_fit_the_role_name():
    name = "a" * 50 + "-pool"
    capture = run(
        lambda: MachinePool(name, {"cluster": NO_ROLE, "instance_type": "m5.large", "replicas": 1})
    )
    prefix = capture.by_type(ROLE)[0].inputs["namePrefix"]
    assert prefix == "a" * 37 + "-" and len(prefix) + 26 <= 64


@pytest.mark.parametrize(
    ("partition", "principal"),
    [("aws-cn", "ec2.amazonaws.com.cn"), ("aws-us-gov", "ec2.amazonaws.com")],
)
def test_other_partitions(partition: str, principal: str):
    cluster = {**NO_ROLE, "partition": partition}
    capture = run(
        lambda: MachinePool("cpu", {"cluster": cluster, "instance_type": "m5.large", "replicas": 1})
    )
    [role] = capture.by_type(ROLE)
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]["Principal"] == {
        "Service": principal
    }
    arns = {a.inputs["policyArn"] for a in capture.by_type(ATTACHMENT)}
    assert arns == {f"arn:{partition}:iam::aws:policy/{name}" for name in POLICIES}


def test_one_role_shared_by_pools():
    def program() -> None:
        role = NodeRole("ml-nodes", {"name_prefix": "ml-nodes", "tags": {"team": "ml"}})
        cluster = {**EKS, "node_role_arn": role.role_arn}
        GpuSpotPool("gpu", {"cluster": cluster, "instance_type": "g5.12xlarge"})
        MachinePool("cpu", {"cluster": cluster, "instance_type": "m5.large", "replicas": 1})

    capture = run(program)
    assert [r.name for r in capture.by_type(NodeRole.TYPE)] == ["ml-nodes"]
    [role] = capture.by_type(ROLE)
    assert role.inputs["tags"] == {"team": "ml"}
    arn = capture.outputs_of(capture.by_type(NodeRole.TYPE)[0])["role_arn"]
    assert {g.inputs["nodeRoleArn"] for g in capture.by_type(NODE_GROUP)} == {arn}


def test_a_given_role_creates_nothing():
    capture = run(
        lambda: MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})
    )
    assert capture.by_type(ROLE) == [] and capture.by_type(NodeRole.TYPE) == []


@pytest.mark.parametrize(
    ("args", "path"),
    [
        ({"name_prefix": ""}, "name_prefix"),
        ({"name_prefix": "a b"}, "name_prefix"),
        ({"name_prefix": "x", "partition": "aws-eu"}, "partition"),
    ],
)
def test_bad_args_are_refused_with_their_path(args: dict[str, Any], path: str):
    with pytest.raises(SpecError) as raised:
        parse_spec(NodeRoleArgs, args, "NodeRole 'r'")
    assert path in raised.value.paths()
