"""Every component and example stack builds under a plain Mocks, in preview and offline."""

from __future__ import annotations

import pytest
from nodepools.offline import ProgramError

from tests.engines.components import COMPONENTS
from tests.engines.mocks import ENGINES, STACKS, example_stacks, run_on, stack_config


def _built(capture) -> None:
    components = capture.components()
    assert components, "nothing was built"
    # Every component finished: it registered its outputs (known or not).
    unfinished = [c.name for c in components if c.urn not in capture.component_outputs]
    assert not unfinished, f"components without registered outputs: {unfinished}"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("component", COMPONENTS)
def test_every_component_builds(component, engine):
    try:
        capture = run_on(engine, COMPONENTS[component])
    except ProgramError as exc:
        pytest.fail(f"{component} under {engine}: {type(exc.cause).__name__}: {exc.cause}")
    _built(capture)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("stack", example_stacks())
def test_every_example_stack_builds(stack, engine):
    try:
        capture = run_on(engine, STACKS / "__main__.py", stack=stack, config=stack_config(stack))
    except ProgramError as exc:
        pytest.fail(f"stack {stack} under {engine}: {type(exc.cause).__name__}: {exc.cause}")
    _built(capture)
