"""Offline planning of a stack: run it under the offline engine and report on it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from nodepools.offline import Capture, ProgramError, run
from nodepools.planning.governance_section import platforms_section, quotas_section
from nodepools.planning.placement_section import placement_section
from nodepools.planning.policy_section import policy_section
from nodepools.planning.report import Section
from nodepools.planning.sections import capacity_section, scheduling_section, tree_section
from nodepools.planning.validation_section import validation_section
from nodepools.specs.base import SpecError

SectionBuilder = Callable[[Capture], Section | None]

# Printed in this order; components add theirs before the policy pack, which runs last.
SECTIONS: list[SectionBuilder] = [
    tree_section,
    scheduling_section,
    capacity_section,
    placement_section,
    quotas_section,
    platforms_section,
    validation_section,
    policy_section,
]


@dataclass
class PlanResult:
    stack: str
    capture: Capture | None
    sections: list[Section] = field(default_factory=list)
    error: str | None = None
    artifacts: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and not any(s.failures for s in self.sections)

    def render(self) -> str:
        head = f"Plan of stack {self.stack!r} (offline)\n"
        if self.error:
            return f"{head}\n{self.error}\n"
        body = "\n".join(section.render() for section in self.sections)
        status = "OK" if self.ok else f"FAILED ({sum(s.failures for s in self.sections)} problems)"
        return f"{head}\n{body}\nPlan {status}\n"


def load_stack_config(stacks_dir: Path, stack: str) -> dict[str, Any]:
    path = stacks_dir / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        available = sorted(
            p.name[len("Pulumi.") : -len(".yaml")] for p in stacks_dir.glob("Pulumi.*.yaml")
        )
        raise FileNotFoundError(f"no stack file {path} (stacks: {', '.join(available) or 'none'})")
    document = yaml.safe_load(path.read_text()) or {}
    return document.get("config") or {}


def plan_stack(
    stack: str,
    *,
    stacks_dir: Path = Path("stacks"),
    out_dir: Path | None = None,
    context: dict[str, Any] | None = None,
) -> PlanResult:
    """Plan `stacks/Pulumi.<stack>.yaml` offline. `context` carries options for sections
    (e.g. a policy config)."""
    config = load_stack_config(stacks_dir, stack)
    try:
        capture = run(stacks_dir / "__main__.py", stack=stack, config=config)
    except ProgramError as exc:
        cause = exc.cause
        message = str(cause) if isinstance(cause, SpecError) else f"{type(cause).__name__}: {cause}"
        registered = len(exc.capture.resources)
        # Say what a real run would leave behind: components validate before registering,
        # but a program's own code may fail after some resources exist.
        outcome = (
            "nothing would be created"
            if registered == 0
            else f"{registered} resources were registered before it failed"
        )
        return PlanResult(stack, exc.capture, error=f"The program failed; {outcome}.\n{message}")
    capture.plan_context = dict(context or {})  # type: ignore[attr-defined]
    result = PlanResult(stack, capture)
    for build in SECTIONS:
        section = build(capture)
        if section is not None:
            result.sections.append(section)
    if out_dir is not None:
        from nodepools.planning.artifacts import write_artifacts

        result.artifacts = write_artifacts(capture, out_dir)
    return result
