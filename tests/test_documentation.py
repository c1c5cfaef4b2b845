"""What a user reads: help(), the generated reference, one error type, the typed forms."""

from __future__ import annotations

import pydoc

import nodepools
import pytest
from nodepools import MachinePoolArgs, SchedulingInfo, SpecError
from nodepools.documentation import output_annotations
from nodepools.fleet.deploy import SECTIONS
from nodepools.provider import reference

COMPONENTS = sorted(
    (kind.load() for section in SECTIONS.values() for kind in section.values()),
    key=lambda pair: pair[0].__name__,
)


@pytest.mark.parametrize("component,args_model", COMPONENTS, ids=lambda c: c.__name__)
def test_help_lists_every_arg_with_its_default_and_every_output(component, args_model):
    text = pydoc.render_doc(component, renderer=pydoc.plaintext)
    assert f"Args ({args_model.__name__} or a dict):" in text
    for name, info in args_model.model_fields.items():
        line = next(
            (line for line in text.splitlines() if line.lstrip(" |").startswith(f"{name} (")), None
        )
        assert line is not None, f"{component.__name__}: {name} missing from help()"
        default = line.split("):", 1)[0].rsplit("; ", 1)[-1]
        assert (default == "required") == info.is_required(), line
    outputs = output_annotations(component)
    assert outputs, component.__name__
    for name in outputs:
        assert f"{name} (Output[" in text, f"{component.__name__}: output {name} not in help()"


def test_reference_is_up_to_date():
    path = reference.DEFAULT_PATH
    assert path.read_text() == reference.render(), (
        "docs/reference.md is stale: run "
        "`python -m nodepools.provider.reference -o docs/reference.md`"
    )


def test_reference_covers_every_component_and_field():
    text = reference.render()
    for component, args_model in COMPONENTS:
        assert f"## {component.__name__}\n" in text
        for name in args_model.model_fields:
            assert f"| `{name}` |" in text, f"{component.__name__}.{name}"


def test_a_model_and_a_dict_with_the_same_mistake_raise_the_same_error():
    bad = {
        "cluster": {
            "kind": "eks",
            "cluster_name": "ml",
            "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
            "subnet_ids": ["subnet-a"],
        },
        "instance_type": "m5.xlarge",
        "replicas": -1,
    }
    with pytest.raises(SpecError) as from_dict:
        nodepools.MachinePool.resolve("pool", bad)
    with pytest.raises(SpecError) as from_model:
        MachinePoolArgs(**bad)
    assert from_model.value.paths() == from_dict.value.paths() == ["replicas"]
    assert "-1" in str(from_model.value)
    assert isinstance(from_model.value, ValueError)  # what code catching pydantic's errors caught


def test_scheduling_info_round_trips_through_its_plain_form():
    info = SchedulingInfo(
        {"nodepools.dev/pool": "gpu"},
        ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},),
        {"nvidia.com/gpu": 4},
    )
    assert SchedulingInfo.from_dict(info.to_dict()) == info
    # engine outputs carry numbers as floats
    as_output = {**info.to_dict(), "resources": {"limits": {"nvidia.com/gpu": 4.0}}}
    assert SchedulingInfo.from_dict(as_output) == info
    with pytest.raises(ValueError, match="nodeSelectors"):
        SchedulingInfo.from_dict({"nodeSelectors": {}})
