"""Engine steps for one program, through the Automation API, in their own process.

`python -m tests.engine.runner REQUEST.json RESULT.json`: REQUEST names the program (see
tests/engine/programs.py), the work folder and the steps, each `preview`, `up`, `refresh`,
`destroy`, `export` (with the deployment's Kubernetes objects not on the API server) or `remove`, with whether the program's changed form (and config) runs;
The `cleanup` steps run after them whatever happened. RESULT gets, per step, its resource changes, every resource operation the engine announced,
the policy violations it reported, and for `export` the stack's resources as the engine
recorded them. The steps stop at the first that fails. One process for several steps: each
process start (this interpreter, the SDK) costs seconds.

Its own process: the inline program runs in this interpreter (the CLI calls back into the
Automation API's language server here), and the offline engine the tests compare it with
installs process-global mocks.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from pulumi import automation as auto

from tests.engine.lifecycle import absent_objects
from tests.engine.programs import inline_program

PROJECT = "nodepools"


def _stack(request: dict[str, Any]) -> auto.Stack:
    tools = Path(request["tools"])
    settings = auto.ProjectSettings(
        name=PROJECT,
        runtime="python",
        backend=auto.ProjectBackend(url=request["backend"]),
    )
    stack = auto.create_or_select_stack(
        stack_name=request["stack"],
        project_name=PROJECT,
        program=inline_program(request["key"], False),
        opts=auto.LocalWorkspaceOptions(
            work_dir=request["work_dir"],
            project_settings=settings,
            secrets_provider="passphrase",
            pulumi_command=auto.PulumiCommand(root=str(tools.parent), skip_version_check=True),
        ),
    )
    return stack


def _configure(stack: auto.Stack, request: dict[str, Any], step: dict[str, Any]) -> None:
    """The program and config of STEP (the changed form when it says so)."""
    changed = step.get("changed", False)
    stack.workspace.program = inline_program(request["key"], changed)
    config = request["changed_config" if changed else "config"] or {}
    if config:
        stack.set_all_config(
            {key: auto.ConfigValue(value=json.dumps(value)) for key, value in config.items()}
        )


def _run(stack: auto.Stack, request: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    _configure(stack, request, step)
    operations: list[list[str]] = []
    violations: list[dict[str, Any]] = []

    def on_event(event: auto.EngineEvent) -> None:
        pre = event.resource_pre_event
        if pre is not None:
            metadata = pre.metadata
            operations.append([metadata.op.value, metadata.type, metadata.urn.split("::")[-1]])
        policy = event.policy_event
        if policy is not None:
            violations.append(
                {
                    "policy": policy.policy_name,
                    "level": policy.enforcement_level,
                    "message": policy.message,
                    "urn": policy.resource_urn or "",
                }
            )

    result: dict[str, Any] = {"ok": True}
    packs = step.get("policy_packs") or None
    pack_configs = step.get("policy_pack_configs") or None
    step = step["step"]
    try:
        if step == "preview":
            answer = stack.preview(
                on_event=on_event, policy_packs=packs, policy_pack_configs=pack_configs
            )
            result["changes"] = {str(k): v for k, v in answer.change_summary.items()}
        elif step == "up":
            answer = stack.up(on_event=on_event)
            result["changes"] = answer.summary.resource_changes or {}
        elif step == "refresh":
            answer = stack.refresh(on_event=on_event)
            result["changes"] = answer.summary.resource_changes or {}
        elif step == "destroy":
            answer = stack.destroy(on_event=on_event)
            result["changes"] = answer.summary.resource_changes or {}
        elif step == "export":
            deployment = stack.export_stack().deployment or {}
            result["resources"] = deployment.get("resources") or []
            result["absent"] = absent_objects(result["resources"])
        elif step == "remove":
            stack.workspace.remove_stack(stack.name)
        else:
            raise ValueError(f"step {step!r} is not one of preview, up, refresh, destroy, export")
    except auto.CommandError as error:
        result = {"ok": False, "error": str(error)[-6000:]}
    except Exception:  # reported to the test, which fails quoting it
        result = {"ok": False, "error": traceback.format_exc()[-6000:]}
    result["operations"] = operations
    result["violations"] = violations
    result["seconds"] = round(time.monotonic() - started, 2)
    return result


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text())
    stack = _stack(request)
    results: list[dict[str, Any]] = []
    for step in request["steps"]:
        results.append(_run(stack, request, step))
        if not results[-1]["ok"]:
            break
    # The clean-up steps (`destroy`, `remove`) run whatever happened before, in this process:
    # a second runner process for them cost a few seconds per program.
    cleanup = [_run(stack, request, step) for step in request.get("cleanup", [])]
    Path(argv[1]).write_text(json.dumps({"steps": results, "cleanup": cleanup}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
