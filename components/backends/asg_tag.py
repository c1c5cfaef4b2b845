"""The cluster autoscaler's node-template tags on an EKS node group's Auto Scaling group.

Each tag is registered as an `aws:autoscaling/tag:Tag`, exactly as
`pulumi_aws.autoscaling.Tag` registers it: same type token, inputs, provider version,
download URL and options (tests/backends/test_asg_tag.py compares the two registrations
field by field against the pinned SDK). The typed class is not used because a pool has one
tag per label, taint and accelerator, about half the registrations of an EKS fleet, and
nothing ever reads a tag's outputs, while the typed class makes an Output for each of its
declared properties and converts its typed args on every registration: 12% of a mixed
120-pool plan (benchmarks/README.md). Every other AWS resource goes through pulumi_aws.
"""

from __future__ import annotations

from typing import Any

import pulumi

TYPE = "aws:autoscaling/tag:Tag"


class AutoscalingGroupTag(pulumi.CustomResource):
    """One tag on an existing Auto Scaling group, `propagateAtLaunch` false (a template hint
    for the autoscaler, not a tag for the instances)."""

    def __init__(
        self,
        name: str,
        autoscaling_group_name: pulumi.Input[str],
        key: str,
        value: str,
        opts: pulumi.ResourceOptions | None = None,
    ):
        props: dict[str, Any] = {
            "autoscalingGroupName": autoscaling_group_name,
            "tag": {"key": key, "value": value, "propagateAtLaunch": False},
        }
        options = pulumi.ResourceOptions.merge(_sdk_defaults(), opts)
        super().__init__(TYPE, name, props, options)


_DEFAULTS: list[pulumi.ResourceOptions] = []


def _sdk_defaults() -> pulumi.ResourceOptions:
    """What the typed class merges in: the pinned pulumi_aws's version and download URL, so
    the engine loads the same provider plugin for these as for the node group. Both are
    constants of the installed package (read from its metadata), so they are read once per
    process; `merge` copies them and never changes this object."""
    if not _DEFAULTS:
        from pulumi_aws import _utilities

        _DEFAULTS.append(_utilities.get_resource_opts_defaults())
    return _DEFAULTS[0]
