"""Every argument we send exists in the pinned cloud SDK, with the kind of value it takes.

The backends make their resources through the SDK's typed classes, which refuse an
argument name they lack but not a value of the wrong kind (`encrypted=True` where the
provider takes "true"), and pass plain dicts (node metadata, tags) through unchecked. So
the captured inputs of every AWS and OCI resource the library registers, in every example
stack and in pools with every option set, are walked against the SDK's own input types
(`pulumi_aws.eks.NodeGroupArgs`, `pulumi_aws.ec2.LaunchTemplateArgs` and the nested `*Args`
classes, whose camelCase wire names come from the SDK's `pulumi.input_type` metadata).
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi._types as pulumi_types
import pytest
from nodepools.offline import Capture, CapturedResource

from tests.engines.components import COMPONENTS
from tests.engines.mocks import STACKS, example_stacks, run_on, stack_config

PACKAGES = {"aws": "pulumi_aws", "oci": "pulumi_oci"}
# What the checked programs must register at least once between them.
MUST_SEE = {
    "aws:eks/nodeGroup:NodeGroup",
    "aws:ec2/launchTemplate:LaunchTemplate",
    "aws:ec2/securityGroup:SecurityGroup",
    "aws:ec2/placementGroup:PlacementGroup",
    "oci:ContainerEngine/nodePool:NodePool",
}


def args_class(type_token: str) -> type:
    """`aws:ec2/launchTemplate:LaunchTemplate` -> `pulumi_aws.ec2.LaunchTemplateArgs`."""
    package, module_path, name = type_token.split(":")
    module = importlib.import_module(f"{PACKAGES[package]}.{module_path.split('/')[0].lower()}")
    return getattr(module, f"{name}Args")


def _scalar_problem(expected: Any, value: Any) -> str | None:
    if expected is str and not isinstance(value, str):
        return f"the SDK takes a string, got {value!r}"
    if expected in (int, float) and (isinstance(value, bool) or not isinstance(value, int | float)):
        return f"the SDK takes a number, got {value!r}"
    if expected is bool and not isinstance(value, bool):
        return f"the SDK takes a boolean, got {value!r}"
    return None


def walk(value: Any, expected: Any, path: str) -> list[str]:
    """Problems of `value` against the SDK type `expected` (an `*Args` class, a sequence or
    mapping of one, or a scalar); None (unknown in preview) is never one."""
    if value is None:
        return []
    expected = pulumi_types.unwrap_type(expected)
    if isinstance(expected, type) and pulumi_types.is_input_type(expected):
        if not isinstance(value, Mapping):
            return [f"{path}: {expected.__name__} takes an object, got {value!r}"]
        types = pulumi_types.input_type_types(expected)
        problems: list[str] = []
        for key, item in typing.cast("Mapping[str, Any]", value).items():
            if key not in types:
                problems.append(f"{path}.{key}: no such argument in {expected.__name__}")
            else:
                problems += walk(item, types[key], f"{path}.{key}")
        return problems
    origin = typing.get_origin(expected)
    if origin in (Sequence, list, typing.Sequence):
        if not isinstance(value, list):
            return [f"{path}: the SDK takes a list, got {value!r}"]
        [item_type] = typing.get_args(expected)
        return [p for i, item in enumerate(value) for p in walk(item, item_type, f"{path}[{i}]")]
    if origin in (Mapping, dict, typing.Mapping):
        if not isinstance(value, Mapping):
            return [f"{path}: the SDK takes a map, got {value!r}"]
        _, value_type = typing.get_args(expected)
        mapping = typing.cast("Mapping[str, Any]", value)
        return [p for k, item in mapping.items() for p in walk(item, value_type, f"{path}[{k!r}]")]
    problem = _scalar_problem(expected, value)
    return [f"{path}: {problem}"] if problem else []


def unfaithful(capture: Capture) -> tuple[list[str], set[str]]:
    """Problems of every AWS/OCI resource the library's components registered, and the
    types seen."""
    ours = {r.urn for r in capture.resources if r.type.startswith("nodepools:")}
    problems: list[str] = []
    seen: set[str] = set()
    for resource in capture.resources:
        if resource.parent not in ours or resource.type.split(":")[0] not in PACKAGES:
            continue
        seen.add(resource.type)
        problems += walk(resource.inputs, args_class(resource.type), resource.name)
    return problems, seen


def _programs() -> list[tuple[str, Any]]:
    stacks = [(f"stack {s}", s) for s in example_stacks()]
    return [*stacks, *((f"component {c}", c) for c in COMPONENTS)]


def _capture(program: str) -> Capture:
    if program in COMPONENTS:
        return run_on("offline", COMPONENTS[program])
    return run_on("offline", STACKS / "__main__.py", stack=program, config=stack_config(program))


@pytest.mark.parametrize(("label", "program"), _programs(), ids=[p[0] for p in _programs()])
def test_every_argument_we_send_is_one_the_sdk_has(label, program):
    problems, _ = unfaithful(_capture(program))
    assert problems == []


def test_the_walk_covers_node_groups_launch_templates_groups_and_oke_pools():
    seen: set[str] = set()
    for program in ("MachinePool/eks-every-option", "MachinePool/oke-every-option"):
        seen |= unfaithful(_capture(program))[1]
    assert seen >= MUST_SEE


def test_an_argument_the_sdk_lacks_or_a_wrong_kind_of_value_fails():
    template = CapturedResource(
        urn="t",
        type="aws:ec2/launchTemplate:LaunchTemplate",
        name="lt",
        inputs={
            "instanceType": "p5.48xlarge",
            "networkInterfaces": [{"interfaceType": "efa", "efaOnly": True}],
            "capacityReservationSpecification": {"capacityReservationTarget": {"id": "cr-1"}},
            "blockDeviceMappings": [{"ebs": {"encrypted": True}}],  # the SDK takes "true"
            "tags": {"team": "ml"},
        },
        parent="p",
        custom=True,
    )
    group = CapturedResource(
        urn="g",
        type="aws:eks/nodeGroup:NodeGroup",
        name="ng",
        inputs={"scalingConfig": {"minSize": 0.0, "desired": 1.0}, "launchTemplate": "lt"},
        parent="p",
        custom=True,
    )
    pool = CapturedResource(
        urn="p", type="nodepools:index:MachinePool", name="p", inputs={}, parent=None, custom=False
    )
    capture = Capture(project="nodepools", stack="dev", resources=[pool, template, group])
    problems, seen = unfaithful(capture)
    assert problems == [
        "lt.networkInterfaces[0].efaOnly: no such argument in LaunchTemplateNetworkInterfaceArgs",
        "lt.capacityReservationSpecification.capacityReservationTarget.id: no such argument in "
        "LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs",
        "lt.blockDeviceMappings[0].ebs.encrypted: the SDK takes a string, got True",
        "ng.scalingConfig.desired: no such argument in NodeGroupScalingConfigArgs",
        "ng.launchTemplate: NodeGroupLaunchTemplateArgs takes an object, got 'lt'",
    ]
    assert seen == {"aws:ec2/launchTemplate:LaunchTemplate", "aws:eks/nodeGroup:NodeGroup"}
