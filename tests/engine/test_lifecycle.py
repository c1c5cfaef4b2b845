"""The real engine's lifecycle of every program it can run, against the loopback control plane.

For each component program of the engine matrix and each example stack's part whose resources
are Kubernetes objects or our dynamic providers (ROSA against the fake OCM, OSMO against the
fake OSMO; tests/engine/programs.py finds them, and says why the others are skipped):
`preview` (everything a create), `up` (the objects are on the API server), the inputs the engine
recorded equal the offline plan's, `refresh` (no drift), a second `up` (no changes), a changed
input (each resource updated or replaced as expected, nothing else touched), `destroy` (nothing
left on the API server, in the fake OCM or the fake OSMO).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.lifecycle import (
    changed_only,
    differences,
    engine_inputs,
    live_objects,
    offline_inputs,
    only_same,
    operations,
    read_object,
    steps,
)
from tests.engine.programs import (
    EngineProgram,
    component_programs,
    stack_part,
    stack_sections,
    why_not,
)
from tests.engine.tools import EngineEnv
from tests.fake_ocm import FakeOcm
from tests.fake_osmo import BUILTIN_TEMPLATES, FakeOsmo

pytestmark = pytest.mark.xdist_group("engine")


def lifecycle(
    engine: EngineEnv,
    program: EngineProgram,
    kube: Any,
    fake_ocm: FakeOcm,
    fake_osmo: FakeOsmo,
    record_property: Any,
) -> None:
    capture = program.offline()
    names = ["preview", "up", "export", "refresh", "up"]
    if program.expected_change:
        names += ["preview changed", "up changed"]
    # One runner process: the steps, then `destroy` and `remove` whatever happened.
    results = steps(engine, program, *names, cleanup=("destroy", "remove"))
    preview, up, exported, refresh, again = results[:5]
    planned = operations(preview)
    assert set(planned.values()) == {"create"}, planned
    expected = {f"{r.type} {r.name}" for r in capture.resources if r.type != "pulumi:pulumi:Stack"}
    assert set(planned) == expected, (
        f"the engine previews {sorted(set(planned) - expected)} the offline plan has not, "
        f"and not {sorted(expected - set(planned))}"
    )
    assert set(operations(up).values()) == {"create"}, operations(up)
    resources = exported["resources"]
    offline = offline_inputs(capture)
    mismatches = {
        key: differences(inputs, offline.get(key))
        for key, inputs in engine_inputs(resources).items()
    }
    mismatches = {k: v for k, v in mismatches.items() if v}
    assert not mismatches, f"engine and offline plan disagree: {mismatches}"
    objects = live_objects(resources)
    assert not exported["absent"], f"after `up`, not on the API server: {exported['absent']}"
    assert only_same(refresh["changes"]), f"refresh found drift: {refresh['changes']}"
    assert only_same(again["changes"]), f"a second up changed {changed_only(again)}"
    if program.expected_change:
        changed_preview, changed_up = results[5:7]
        assert changed_only(changed_preview) == program.expected_change
        assert changed_only(changed_up) == program.expected_change
    destroy = results[len(names)]
    assert set(operations(destroy).values()) <= {"delete"}, operations(destroy)
    left = [o for o in objects if read_object(kube, o) is not None]
    assert not left, f"after `destroy`, still on the API server: {left}"
    assert not any(fake_ocm.pools(c) for c in fake_ocm._clusters), "fake OCM pools left"  # pyright: ignore[reportPrivateUsage]
    assert not fake_osmo.configs["pool"] and not fake_osmo.configs["role"], fake_osmo.configs
    assert fake_osmo.configs["pod_template"] == BUILTIN_TEMPLATES
    record_property("resources", len(capture.resources))
    record_property(
        "seconds",
        dict(zip([*names, "destroy", "remove"], [r["seconds"] for r in results], strict=True)),
    )
    record_property("changed input", program.expected_change)


@pytest.mark.parametrize("key", sorted(component_programs()))
def test_component_program_lifecycle(
    key: str,
    engine: EngineEnv,
    dynamic_client: Any,
    fake_ocm: FakeOcm,
    fake_osmo: FakeOsmo,
    record_property: Any,
) -> None:
    program = component_programs()[key]
    reason = why_not(program.offline())
    if reason:
        pytest.skip(reason)
    lifecycle(engine, program, dynamic_client, fake_ocm, fake_osmo, record_property)


@pytest.mark.parametrize(("stack", "section"), stack_sections())
def test_stack_part_lifecycle(
    stack: str,
    section: str,
    engine: EngineEnv,
    dynamic_client: Any,
    fake_ocm: FakeOcm,
    fake_osmo: FakeOsmo,
    record_property: Any,
) -> None:
    program, skipped = stack_part(stack, section)
    record_property("skipped", skipped)
    if program is None:
        pytest.skip("; ".join(f"{k}: {v}" for k, v in skipped.items()))
    lifecycle(engine, program, dynamic_client, fake_ocm, fake_osmo, record_property)
