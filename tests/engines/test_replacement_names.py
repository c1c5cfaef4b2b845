"""Every resource we register survives a replacement: its physical name can't collide.

Pulumi replaces create-before-delete, so a resource with a fixed physical name that the
cloud requires to be unique fails its own replacement ("already exists"). Each resource
type we register is reviewed here, with the reason it is safe; a new type fails this test
until someone reviews it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from nodepools.offline import CapturedResource

from tests.engines.components import COMPONENTS
from tests.engines.mocks import STACKS, example_stacks, run_on, stack_config


def _eks_node_group(r: CapturedResource) -> str | None:
    # Named by prefix, the provider adds a unique suffix (see eks.build_pool's docstring).
    if r.inputs.get("nodeGroupName"):
        return "a fixed `nodeGroupName`: a replacement would collide on it"
    if not r.inputs.get("nodeGroupNamePrefix"):
        return "no `nodeGroupNamePrefix`"
    return None


def _kubernetes(r: CapturedResource) -> str | None:
    # pulumi-kubernetes replaces an object whose metadata.name stays the same
    # delete-before-replace itself (its Diff: not autonamed, same name and namespace).
    if not (r.inputs.get("metadata") or {}).get("name"):
        return "a Kubernetes object without `metadata.name`"
    return None


REVIEWED: dict[str, Callable[[CapturedResource], str | None]] = {
    "aws:eks/nodeGroup:NodeGroup": _eks_node_group,
    # No physical name: a tag is (Auto Scaling group, key); a new group gets new tags.
    "aws:autoscaling/tag:Tag": lambda r: None,
    # Auto-named by Pulumi (random suffix) unless a fixed `name` were given: none is.
    "aws:ec2/launchTemplate:LaunchTemplate": lambda r: (
        "a fixed `name`: a replacement would collide on it" if r.inputs.get("name") else None
    ),
    # The EFA security group and a created placement group: auto-named by Pulumi too.
    "aws:ec2/securityGroup:SecurityGroup": lambda r: (
        "a fixed `name`: a replacement would collide on it" if r.inputs.get("name") else None
    ),
    "aws:ec2/placementGroup:PlacementGroup": lambda r: (
        "a fixed `name`: a replacement would collide on it" if r.inputs.get("name") else None
    ),
    # A rule has no name; it is replaced only with its group or its protocol, so the new
    # rule is never a duplicate of the old one on the same group.
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": lambda r: None,
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": lambda r: None,
    # OCI node pool names are display names (OCIDs identify pools; OCI does not require
    # unique names), so for a moment two pools may share one.
    "oci:ContainerEngine/nodePool:NodePool": lambda r: None,
    # The dynamic providers choose delete-before-replace themselves when the new object
    # keeps its name (backends/rosa/machine_pool.py and backends/governance/osmo.py `diff`, tested there).
    # One add-on of a name per cluster (`ClusterAutoscaler`, an AcceleratorStack's
    # `NvidiaGpuPlugin` / `AmdGpuPlugin`); only a new cluster (or add-on name) replaces
    # it, and then the old one is on another cluster.
    "oci:ContainerEngine/addon:Addon": lambda r: None,
    "pulumi-python:dynamic/ocm:MachinePool": lambda r: None,
    # A Helm release is named (`name`) per AcceleratorStack and vendor; pulumi-kubernetes replaces a Release only when its name or namespace changes,
    # so the new release never shares (name, namespace) with the old one.
    "kubernetes:helm.sh/v3:Release": lambda r: None if r.inputs.get("name") else "no `name`",
    "pulumi-python:dynamic/osmo:Config": lambda r: None,
    # A NodeRole's role is named by prefix (the provider adds a unique suffix), so the new
    # role of a replacement never collides with the old one.
    "aws:iam/role:Role": lambda r: (
        "a fixed `name`: a replacement would collide on it"
        if r.inputs.get("name")
        else None
        if r.inputs.get("namePrefix")
        else "no `namePrefix`"
    ),
    # No physical name: an attachment is (role, policy ARN); a new role gets new ones.
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": lambda r: None,
    # A recipe's budget is named after the recipe, in its namespace, like its Deployment:
    # pulumi-kubernetes replaces a same-named object delete-before-replace.
    "kubernetes:policy/v1:PodDisruptionBudget": _kubernetes,
}


def _review(resources: list[CapturedResource]) -> list[str]:
    problems = []
    ours = {r.urn for r in resources if r.type.startswith("nodepools:")}
    for resource in resources:
        # What the library registers: children of its components (not a test's fixtures).
        if not resource.custom or resource.parent not in ours:
            continue
        check = REVIEWED.get(resource.type) or (
            _kubernetes if resource.type.startswith("kubernetes:") else None
        )
        if check is None:
            problems.append(f"{resource.type} ({resource.name}): not reviewed for replacement")
        elif problem := check(resource):
            problems.append(f"{resource.type} ({resource.name}): {problem}")
    return problems


@pytest.mark.parametrize("component", COMPONENTS)
def test_every_components_resources_are_replaceable(component):
    capture = run_on("offline", COMPONENTS[component])
    assert _review(capture.resources) == []


@pytest.mark.parametrize("stack", example_stacks())
def test_every_example_stacks_resources_are_replaceable(stack):
    capture = run_on("offline", STACKS / "__main__.py", stack=stack, config=stack_config(stack))
    assert _review(capture.resources) == []


def test_an_unreviewed_or_fixed_name_fails():
    fixed = CapturedResource(
        urn="u", type="aws:eks/nodeGroup:NodeGroup", name="g", inputs={"nodeGroupName": "g"},
        parent="p", custom=True,
    )  # fmt: skip
    other = CapturedResource(
        urn="v", type="aws:ec2/launchTemplate:LaunchTemplate", name="lt", inputs={"name": "lt"},
        parent="p", custom=True,
    )  # fmt: skip
    pool = CapturedResource(urn="p", type="nodepools:index:MachinePool", name="p", inputs={}, parent=None, custom=False)  # fmt: skip
    assert len(_review([pool, fixed, other])) == 2
