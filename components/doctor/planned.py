"""The stack's offline plan, as doctor needs it: refused when the stack doesn't plan."""

from __future__ import annotations

from pathlib import Path

from nodepools.doctor.expected import Expectations, expectations


class PlanError(Exception):
    """The stack doesn't plan: doctor has nothing to hold the cluster against."""


def planned(
    stack: str,
    *,
    project_dir: Path,
    stacks_dir: Path | None = None,
    config: list[str] | None = None,
) -> Expectations:
    from nodepools.planning import plan_stack
    from nodepools.planning.plan_document import plan_document

    result = plan_stack(stack, project_dir=project_dir, stacks_dir=stacks_dir, config=config)
    if result.error:
        raise PlanError(f"stack {stack!r} doesn't plan: {result.error}")
    if not result.ok or result.capture is None:
        raise PlanError(
            f"stack {stack!r} doesn't plan cleanly (`python -m nodepools plan --stack {stack}` says why)"
        )
    return expectations(plan_document(result), result.capture)
