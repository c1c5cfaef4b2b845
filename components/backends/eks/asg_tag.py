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

    @staticmethod
    def inputs(autoscaling_group_name: pulumi.Input[str], key: str, value: str) -> dict[str, Any]:
        """The tag's inputs. Built before the constructor is called, not inside an
        `__init__` of this class: the SDK takes a resource's source position from the
        frame above the third `__init__` on the stack (Resource, CustomResource and the
        concrete class), and walks every frame above it on each registration."""
        return {
            "autoscalingGroupName": autoscaling_group_name,
            "tag": {"key": key, "value": value, "propagateAtLaunch": False},
        }
