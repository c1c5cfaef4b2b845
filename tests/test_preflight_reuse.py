"""A fleet checks each entry once: its constructors reuse the checks made before building."""

from __future__ import annotations

import collections

import pytest
from nodepools import preflight
from nodepools.fleet.deploy import SECTIONS, deploy_fleet
from nodepools.offline import run
from nodepools.pools.machine_pool import MachinePool

from benchmarks.fleet_generator import availability, generate_fleet
from tests.conftest import EKS


@pytest.fixture
def preflight_calls(monkeypatch):
    """Calls of every fleet component's `preflight`, by (class name, entry name)."""
    calls: collections.Counter = collections.Counter()
    for kinds in SECTIONS.values():
        for kind in kinds.values():
            component, _ = kind.load()
            original = getattr(component, "preflight", None)
            if original is None:
                continue

            def counted(cls, name, args, _original=original.__func__):
                calls[(cls.__name__, name)] += 1
                return _original(cls, name, args)

            monkeypatch.setattr(component, "preflight", classmethod(counted))
    return calls


def test_every_entry_of_a_fleet_is_checked_exactly_once(preflight_calls):
    config, _ = generate_fleet(2 * len(availability().included))
    built = run(lambda: deploy_fleet(config))
    assert built.resources
    checked = {name for _, name in preflight_calls}
    # Every entry with a preflight was checked, and none twice (before: once in the
    # fleet's check, once more in its constructor).
    assert len(checked) >= len(config["pools"])
    assert set(preflight_calls.values()) == {1}


def test_a_component_built_alone_checks_its_args(preflight_calls):
    args = {"cluster": EKS, "instance_type": "m5.large", "replicas": 1}
    run(lambda: MachinePool("alone", args))
    run(lambda: MachinePool("alone", args))
    # Nothing is remembered between programs: each construction checked again.
    assert preflight_calls[("MachinePool", "alone")] == 2


def test_nothing_is_offered_outside_the_fleet_build():
    config, _ = generate_fleet(len(availability().included))
    run(lambda: deploy_fleet(config))
    assert preflight._OFFERED.get() is None


def test_other_args_of_the_same_name_are_checked_again(preflight_calls):
    args = {"cluster": EKS, "instance_type": "m5.large", "replicas": 1}
    other = dict(args)
    offered = {(MachinePool, "a"): (other, object())}

    def program():
        with preflight.offer_preflights(offered):
            MachinePool("a", args)  # not the offered object: its own check runs

    run(program)
    assert preflight_calls[("MachinePool", "a")] == 1
