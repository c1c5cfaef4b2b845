"""Offline planning of a stack: run it under the offline engine, then report on what it
registered (text, JSON, Markdown, artifacts, diffs, pull-request comments) with the
validation and policy results.

May import: everything below it (`offline`, `backends`, `specs`, `validation`, the
component packages' pure renderers) and the policy pack; it runs the stack program in
the offline engine rather than importing the fleet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nodepools.offline import Capture, ProgramError, run
from nodepools.planning.devices_section import devices_section
from nodepools.planning.governance_section import platforms_section, quotas_section
from nodepools.planning.outputs_section import outputs_section
from nodepools.planning.placement_section import placement_section
from nodepools.planning.policy_section import policy_section
from nodepools.planning.project import (
    DEFAULT_PROJECT,
    Project,
    load_project,
    stack_config,
    stack_names,
)
from nodepools.planning.report import Section
from nodepools.planning.sections import (
    capacity_section,
    scheduling_section,
    tree_section,
    unknowns_section,
)
from nodepools.planning.validation_section import validation_section
from nodepools.specs.core.base import SpecError

SectionBuilder = Callable[[Capture], Section | None]

# Printed in this order; components add theirs before the policy pack, which runs last.
SECTIONS: list[SectionBuilder] = [
    tree_section,
    scheduling_section,
    capacity_section,
    devices_section,
    placement_section,
    quotas_section,
    platforms_section,
    validation_section,
    unknowns_section,
    outputs_section,
    policy_section,
]


@dataclass
class PlanResult:
    stack: str
    capture: Capture | None
    sections: list[Section] = field(default_factory=list)
    error: str | None = None
    artifacts: list[Path] = field(default_factory=list)
    # What the reader should know about how the stack was read (e.g. it has no stack file).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and not any(s.failures for s in self.sections)

    @property
    def unknowns(self) -> list[tuple[str, str]]:
        """(resource, input path) of every input known only after apply."""
        if self.capture is None:
            return []
        return [
            (f"{r.type.rsplit(':', 1)[-1]} {r.name}", path)
            for r in self.capture.resources
            for path in r.unknown_paths
        ]

    def render(self) -> str:
        head = f"Plan of stack {self.stack!r} (offline)\n"
        head += "".join(f"Note: {note}\n" for note in self.notes)
        if self.error:
            return f"{head}\n{self.error}\n"
        body = "\n".join(section.render() for section in self.sections)
        status = "OK" if self.ok else f"FAILED ({sum(s.failures for s in self.sections)} problems)"
        unknown = self.unknowns
        if unknown:
            # Checked as far as known: what an unknown value will be can't be, so "OK"
            # says how many values were not checked, and the section above lists them.
            status += (
                f", but {len(unknown)} input{'s are' if len(unknown) > 1 else ' is'} known "
                'only after apply and not checked here (see "Known after apply")'
            )
        return f"{head}\n{body}\nPlan {status}\n"


def load_stack_config(stacks_dir: Path, stack: str) -> dict[str, Any]:
    """The `config:` of `stacks_dir/Pulumi.<stack>.yaml`, as written."""
    project = Project(DEFAULT_PROJECT, stacks_dir, stacks_dir)
    return stack_config(project, stack).values


def plan_stack(
    stack: str,
    *,
    stacks_dir: Path | None = None,
    project_dir: Path = Path("."),
    config: list[str] | None = None,
    secrets: list[str] | None = None,
    out_dir: Path | None = None,
    context: dict[str, Any] | None = None,
) -> PlanResult:
    """Plan a stack offline as `pulumi preview` would run it: the project of
    `project_dir` (its Pulumi.yaml: name, program, stack config folder, config defaults),
    `Pulumi.<stack>.yaml`, then `config` / `secrets` overrides (`key=value`). Without a
    Pulumi.yaml, or with `stacks_dir`, the program and stack files are in the stacks
    folder. `context` carries options for sections (e.g. a policy config)."""
    project = load_project(project_dir, stacks_dir)
    settings = stack_config(project, stack, config, secrets)
    notes: list[str] = []
    if settings.stack_file is None:
        others = stack_names(project.stack_config_dir)
        notes.append(
            f"{project.stack_config_dir / f'Pulumi.{stack}.yaml'} does not exist: the stack "
            "is planned with the project's config defaults and the overrides given (stacks "
            f"with a file: {', '.join(others) or 'none'})"
        )
    try:
        capture = run(
            project.program,
            project=project.name,
            stack=stack,
            config=settings.values,
            secret_keys=settings.secret_keys,
        )
    except ProgramError as exc:
        cause = exc.cause
        message = (
            str(cause)
            if isinstance(cause, SpecError)
            else f"{_program_line(cause, project.program)}{type(cause).__name__}: {cause}"
        )
        registered = len(exc.capture.resources)
        # Say what a real run would leave behind: components validate before registering,
        # but a program's own code may fail after some resources exist.
        outcome = (
            "nothing would be created"
            if registered == 0
            else f"{registered} resources were registered before it failed"
        )
        return PlanResult(
            stack,
            exc.capture,
            error=f"{project.program}: the program failed; {outcome}\n{message}",
            notes=notes,
        )
    capture.plan_context = dict(context or {})
    result = PlanResult(stack, capture, notes=notes)
    for build in SECTIONS:
        section = build(capture)
        if section is not None:
            result.sections.append(section)
    if out_dir is not None:
        from nodepools.planning.artifacts import write_artifacts

        result.artifacts = write_artifacts(capture, out_dir) + write_plan_files(result, out_dir)
    return result


def _program_line(cause: BaseException, program: Path) -> str:
    """`file:line: ` of the program's own line the error came from (its innermost frame in
    the program's folder), or nothing when it came from elsewhere."""
    import traceback

    folder = program.resolve() if program.is_dir() else program.resolve().parent
    found = ""
    for frame in traceback.extract_tb(cause.__traceback__):
        path = Path(frame.filename)
        # A project's own virtualenv (`.venv` beside Pulumi.yaml) is not its program.
        if "site-packages" in path.parts:
            continue
        if path.is_absolute() and path.resolve().is_relative_to(folder):
            found = f"{path}:{frame.lineno}: "
    return found


def write_plan_files(result: PlanResult, out_dir: Path) -> list[Path]:
    """`plan.json` (the JSON plan) and `capacity.svg` (accelerators per pool) under `out_dir`."""
    from nodepools.planning.capacity_svg import capacity_svg
    from nodepools.planning.plan_document import dumps, plan_document

    document = plan_document(result)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"plan.json": dumps(document), "capacity.svg": capacity_svg(document)}
    for name, text in files.items():
        (out_dir / name).write_text(text)
    return [out_dir / name for name in sorted(files)]
