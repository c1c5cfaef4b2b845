"""The round trip the importers promise, done as a user does it: `nodepools import ...`
prints a stack file, the stack is planned with the project's planning API (`plan_stack`, the
stack program of `stacks/`), and the objects the plan registered are held against the input."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from nodepools.cli import main
from nodepools.offline import Capture
from nodepools.planning import plan_stack

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "stacks" / "__main__.py"


def run_import(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, list[str]]:
    """(exit status, standard output, standard error lines) of `nodepools import ARGV`."""
    status = main(["import", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.splitlines()


def plan_imported(stack_file: str, folder: Path, stack: str = "imported") -> Capture:
    """The offline plan of a printed stack file, beside a copy of the stack program."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(PROGRAM, folder / "__main__.py")
    (folder / f"Pulumi.{stack}.yaml").write_text(stack_file)
    result = plan_stack(stack, stacks_dir=folder)
    assert result.error is None, result.error
    assert result.capture is not None
    return result.capture


def plain(value: Any) -> Any:
    """Numbers as their author wrote them (the plan captures every number as a float)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [plain(item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def manifests(capture: Capture, api_prefix: str) -> dict[tuple[str, str | None, str], Any]:
    """Every Kubernetes object of the plan whose apiVersion starts with `api_prefix`."""
    found: dict[tuple[str, str | None, str], Any] = {}
    for resource in capture.custom_resources():
        api = resource.inputs.get("apiVersion")
        if isinstance(api, str) and api.startswith(api_prefix):
            metadata = resource.inputs["metadata"]
            key = (resource.inputs["kind"], metadata.get("namespace"), metadata["name"])
            found[key] = plain(resource.inputs)
    return found


def by_key(documents: list[dict[str, Any]]) -> dict[tuple[str, str | None, str], Any]:
    return {
        (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d for d in documents
    }
