"""One engine step for one program, through the Automation API, in its own process.

`python -m tests.engine.runner REQUEST.json RESULT.json`: REQUEST names the program (see
tests/engine/programs.py), whether its changed form runs, the stack config, the step
(`preview`, `up`, `refresh`, `destroy`, `export`) and the work folder; RESULT gets the step's
resource changes, every resource operation the engine announced, the policy violations it
reported, and for `export` the stack's resources as the engine recorded them.

Its own process: the inline program runs in this interpreter (the CLI calls back into the
Automation API's language server here), and the offline engine the tests compare it with
installs process-global mocks.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

from pulumi import automation as auto

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
        program=inline_program(request["key"], request.get("changed", False)),
        opts=auto.LocalWorkspaceOptions(
            work_dir=request["work_dir"],
            project_settings=settings,
            secrets_provider="passphrase",
            pulumi_command=auto.PulumiCommand(root=str(tools.parent), skip_version_check=True),
        ),
    )
    config = request.get("config") or {}
    if config:
        stack.set_all_config(
            {key: auto.ConfigValue(value=json.dumps(value)) for key, value in config.items()}
        )
    return stack


def _run(request: dict[str, Any]) -> dict[str, Any]:
    stack = _stack(request)
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

    step = request["step"]
    result: dict[str, Any] = {"ok": True}
    packs = request.get("policy_packs") or None
    pack_configs = request.get("policy_pack_configs") or None
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
    return result


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text())
    Path(argv[1]).write_text(json.dumps(_run(request), default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
