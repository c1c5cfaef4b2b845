"""known_output: the value `Output.from_input` would give, without its walk for plain data."""

from __future__ import annotations

import pulumi
from nodepools.offline import run
from nodepools.outputs import _is_plain, known_output


def _resolved(make):
    """Register a component whose only output is `make()`, and read it back."""

    def program():
        component = pulumi.ComponentResource("test:index:Holder", "holder")
        component.register_outputs({"value": make()})

    (outputs,) = run(program).component_outputs.values()
    return outputs["value"]


def test_plain_data_resolves_to_the_same_value_as_from_input():
    value = {
        "nodeSelector": {"nodepools.dev/pool": "gpu"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "empty": {},
        "none": None,
    }
    assert _resolved(lambda: known_output(value)) == _resolved(
        lambda: pulumi.Output.from_input(value)
    )


def test_a_value_with_an_output_inside_is_still_unwrapped():
    def make():
        return known_output({"name": pulumi.Output.from_input("late"), "items": [1, 2]})

    assert _resolved(make) == {"name": "late", "items": [1, 2]}


def test_only_json_like_values_are_plain():
    assert _is_plain({"a": [1, 2.5, True, None, ("x",)]})
    assert not _is_plain({"a": object()})
