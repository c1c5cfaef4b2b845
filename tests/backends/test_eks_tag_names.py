"""Autoscaler tag resources: readable child names without `/`, aliased to the old ones."""

from __future__ import annotations

from nodepools import GpuSpotPool
from nodepools.backends.eks.node_group import CA_TEMPLATE, asg_tag_names
from nodepools.offline import run

from tests.conftest import EKS

ASG_TAG = "aws:autoscaling/tag:Tag"


def test_tag_children_have_no_slash_and_alias_their_old_names():
    capture = run(lambda: GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g4dn.xlarge"}))
    tags = capture.by_type(ASG_TAG)
    assert tags and all("/" not in tag.name for tag in tags)
    by_key = {tag.inputs["tag"]["key"]: tag for tag in tags}
    resource = by_key[f"{CA_TEMPLATE}/resources/nvidia.com/gpu"]
    assert resource.name == "gpu-asg-tag-resources-nvidia.com-gpu"
    # The alias keeps the parent (an empty parentUrn means "the resource's own parent"), so
    # existing stacks adopt the renamed tags instead of deleting and re-creating them.
    assert resource.options["aliases"] == [
        {"spec": {"name": "gpu-asg-tag-resources/nvidia.com/gpu", "parentUrn": ""}}
    ]
    assert resource.parent == capture.get(GpuSpotPool.TYPE, "gpu").urn


def test_keys_that_read_alike_without_slashes_stay_distinct():
    tags = {f"{CA_TEMPLATE}/label/a/b": "1", f"{CA_TEMPLATE}/label/a-b": "2"}
    names = asg_tag_names("p", tags)
    assert len(set(names.values())) == 2
    assert all(
        name.startswith("p-asg-tag-label-a-b-") and "/" not in name for name in names.values()
    )
    assert names == asg_tag_names("p", dict(reversed(tags.items())))
