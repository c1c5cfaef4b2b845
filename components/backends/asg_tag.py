"""The cluster autoscaler's node-template tags on an EKS node group's Auto Scaling group.

Each tag is an `aws:autoscaling/tag:Tag`, registered as `pulumi_aws.autoscaling.Tag`
registers it (provider_resource; tests/backends/test_asg_tag.py and
test_provider_resource.py compare the requests field for field). A pool has one tag per
label, taint and accelerator: about half the registrations of an EKS fleet.
"""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.backends.provider_resource import ProviderResource


class AutoscalingGroupTag(ProviderResource):
    """One tag on an existing Auto Scaling group, `propagateAtLaunch` false (a template hint
    for the autoscaler, not a tag for the instances)."""

    TYPE = "aws:autoscaling/tag:Tag"
    PACKAGE = "pulumi_aws"

    def __init__(
        self,
        name: str,
        autoscaling_group_name: pulumi.Input[str],
        key: str,
        value: str,
        opts: pulumi.ResourceOptions | None = None,
    ):
        inputs: dict[str, Any] = {
            "autoscalingGroupName": autoscaling_group_name,
            "tag": {"key": key, "value": value, "propagateAtLaunch": False},
        }
        super().__init__(name, inputs, opts)
