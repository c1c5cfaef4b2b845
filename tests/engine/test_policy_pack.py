"""Our CrossGuard pack as the engine runs it: `pulumi preview --policy-pack` on the programs the
real engine runs, the pack started by the CLI as its analyzer plugin.

The CLI starts a pack folder through the Python language host, which no registry serves, or an
executable given as `--policy-pack` directly: ours (tests/engine/tools.py) runs
`python -m pulumi.policy ENGINE policies`, what the language host would run. Every program's
violations must be the ones the offline plan reports (`nodepools.planning.policy_section`, the
same rules in-process), with the same levels; a mandatory one fails the preview, an advisory one
is reported; `--policy-pack-config` changes levels in both alike.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from nodepools.planning.policy_section import policy_findings
from nodepools.policies.pack import POLICIES

from tests.engine.lifecycle import steps
from tests.engine.programs import EngineProgram, component_programs, stack_part, why_not
from tests.engine.tools import EngineEnv

pytestmark = pytest.mark.xdist_group("engine")

# The CLI shows each violation after its policy's description.
DESCRIPTIONS = {policy.name: policy.description for policy in POLICIES}

# Programs with findings: KarpenterNodePool's `existing` pool declares no limits (advisory).
PROGRAMS = [
    "component KarpenterNodePool",
    "component KueueQueues",
    "component PoolPlatforms",
    "component MachinePool/rosa",
    "stack org-quotas nodepools:governance",
    "stack rosa-gpu nodepools:pools",
    "stack eks-training nodepools:pools",
]


def _program(key: str) -> EngineProgram:
    if key.startswith("component "):
        program = component_programs()[key]
        reason = why_not(program.offline())
        if reason:
            pytest.skip(reason)
        return program
    _, stack, section = key.split(" ")
    found, skipped = stack_part(stack, section)
    if found is None:
        pytest.skip(str(skipped))
    return found


def engine_findings(result: dict[str, Any]) -> list[dict[str, str]]:
    """The violations the CLI reported, shaped as the offline plan's findings."""
    return sorted(
        (
            {
                "policy": v["policy"],
                "level": v["level"],
                "resource": _resource(v["urn"]),
                # the CLI wraps the pack's message in its color tags and a newline, after
                # the policy's description
                "message": _message(v["policy"], v["message"]),
            }
            for v in result["violations"]
        ),
        key=lambda f: (f["policy"], f["resource"], f["message"]),
    )


def _message(policy: str, shown: str) -> str:
    text = re.sub(r"<\{%[^%]*%\}>", "", shown).strip()
    description = DESCRIPTIONS.get(policy, "")
    return text.removeprefix(description).strip() if description else text


def _resource(urn: str) -> str:
    if not urn:
        return "stack"
    type_chain, name = urn.split("::")[-2:]
    return f"{type_chain.split('$')[-1]} {name}"


def preview_with_pack(
    engine: EngineEnv, program: EngineProgram, config: dict[str, Any] | None = None
) -> dict[str, Any]:
    extra: dict[str, Any] = {"policy_packs": [str(engine.policy_pack)]}
    if config is not None:
        path = engine.root / "policy-config.json"
        path.write_text(json.dumps(config))
        extra["policy_pack_configs"] = [str(path)]
    return steps(engine, program, "preview", "remove", check=False, **extra)[0]


@pytest.mark.parametrize("key", PROGRAMS)
def test_the_engine_reports_what_the_offline_plan_reports(key: str, engine: EngineEnv) -> None:
    program = _program(key)
    result = preview_with_pack(engine, program)
    expected = policy_findings(program.offline())
    assert engine_findings(result) == expected
    mandatory = [f for f in expected if f["level"] == "mandatory"]
    assert result["ok"] == (not mandatory), result.get("error")


def test_a_mandatory_violation_fails_the_preview(engine: EngineEnv) -> None:
    """`--policy-pack-config` makes karpenter-limits mandatory: the preview fails, and the
    offline plan, given the same config, reports the same."""
    program = _program("component KarpenterNodePool")
    config = {"karpenter-limits": "mandatory"}
    result = preview_with_pack(engine, program, config)
    assert not result["ok"]
    capture = program.offline()
    capture.plan_context = {"policy_config": config}
    expected = policy_findings(capture)
    assert [f["level"] for f in expected] == ["mandatory"]
    assert engine_findings(result) == expected
