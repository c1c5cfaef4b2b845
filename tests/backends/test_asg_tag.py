"""The autoscaler tag resource registers exactly what pulumi_aws.autoscaling.Tag does."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pytest
from google.protobuf import json_format
from nodepools.backends.eks.asg_tag import AutoscalingGroupTag
from nodepools.offline import run
from nodepools.offline.engine import CapturingMonitor

# Where the request was made from: the two programs differ there by construction.
CALL_SITE = ("sourcePosition", "stackTrace", "parentStackTraceHandle")


@pytest.fixture
def requests(monkeypatch):
    """Every RegisterResource request the engine receives, as dicts by resource type."""
    seen: list[dict] = []
    original = CapturingMonitor.RegisterResource

    def record(self, request):
        message = json_format.MessageToDict(request)
        seen.append({k: v for k, v in message.items() if k not in CALL_SITE})
        return original(self, request)

    monkeypatch.setattr(CapturingMonitor, "RegisterResource", record)
    return seen


def _program(make_tag):
    def program():
        provider = aws.Provider("east", region="us-east-1")
        parent = pulumi.ComponentResource(
            "test:index:Pool", "pool", None, pulumi.ResourceOptions(providers=[provider])
        )
        group = aws.eks.NodeGroup(
            "group",
            cluster_name="ml",
            node_role_arn="arn:aws:iam::123456789012:role/nodes",
            subnet_ids=["subnet-a"],
            scaling_config={"min_size": 0, "max_size": 2, "desired_size": 0},
            opts=pulumi.ResourceOptions(parent=parent),
        )
        asg_name = group.node_group_name.apply(lambda name: f"eks-{name}")
        make_tag(
            asg_name,
            pulumi.ResourceOptions(parent=parent, aliases=[pulumi.Alias(name="old/name")]),
        )

    return program


def _typed(asg_name, opts):
    aws.autoscaling.Tag(
        "tag",
        aws.autoscaling.TagArgs(
            autoscaling_group_name=asg_name,
            tag=aws.autoscaling.TagTagArgs(
                key="k8s.io/cluster-autoscaler/node-template/label/team",
                value="ml",
                propagate_at_launch=False,
            ),
        ),
        opts=opts,
    )


def _ours(asg_name, opts):
    AutoscalingGroupTag(
        "tag",
        AutoscalingGroupTag.inputs(
            asg_name, "k8s.io/cluster-autoscaler/node-template/label/team", "ml"
        ),
        opts=opts,
    )


@pytest.mark.parametrize("preview", [False, True])
def test_the_registration_is_the_typed_classes_field_for_field(requests, preview):
    run(_program(_typed), preview=preview)
    typed = [r for r in requests if r["type"] == "aws:autoscaling/tag:Tag"]
    requests.clear()
    run(_program(_ours), preview=preview)
    ours = [r for r in requests if r["type"] == "aws:autoscaling/tag:Tag"]
    assert len(typed) == len(ours) == 1
    # Type, name, parent, inputs, dependencies by property, provider reference (the
    # parent's explicit provider), version, aliases: all of it.
    assert ours[0] == typed[0]
    assert ours[0]["version"] == aws._utilities.get_version()
    assert ours[0]["provider"].startswith("urn:pulumi:")
