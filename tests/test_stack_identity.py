"""Renames never replace: every resource an example stack registered stays addressable.

`tests/golden/urns/<stack>.json` holds the URNs each example stack registered (first
recorded before the `nodepools` rename and the reorganisation into pools/, workloads/,
governance/, fleet/). Planning the stack today must register each of them again, or a
resource that names it as an alias: otherwise `pulumi up` would delete the old resource and
create a new one (for a node pool, drain every node). New resources are free to appear.
A deliberate removal rewrites the golden with UPDATE_URNS=1, reviewed in the diff; not with
UPDATE_GOLDEN=1, which refreshes the other goldens and would quietly replace the recorded
old URNs by today's (and so prove nothing).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from nodepools.offline import Capture, CapturedResource

from tests.engines.mocks import example_stacks, run_on, stack_config

GOLDEN = Path(__file__).parent / "golden" / "urns"
STACKS = Path(__file__).resolve().parents[1] / "stacks"


def _qualified_type(urn: str) -> str:
    """The type chain of a URN, without the root stack (which the engine never writes)."""
    return urn.split("::")[2].removeprefix("pulumi:pulumi:Stack$")


def alias_urns(resource: CapturedResource, capture: Capture) -> set[str]:
    """The URNs a resource's aliases stand for, resolved as the engine resolves them."""
    found: set[str] = set()
    for alias in resource.options.get("aliases", []):
        if "urn" in alias:
            found.add(alias["urn"])
            continue
        spec = alias.get("spec", alias)
        name = spec.get("name") or resource.name
        type_ = spec.get("type") or resource.type
        stack = spec.get("stack") or capture.stack
        project = spec.get("project") or capture.project
        parent = None if spec.get("noParent") else spec.get("parentUrn") or resource.parent
        prefix = ""
        if parent and _qualified_type(parent) != "pulumi:pulumi:Stack":
            prefix = _qualified_type(parent) + "$"
        found.add(f"urn:pulumi:{stack}::{project}::{prefix}{type_}::{name}")
    return found


@pytest.mark.parametrize("stack", example_stacks())
def test_every_recorded_urn_is_still_registered_or_aliased(stack: str):
    capture = run_on("offline", STACKS, stack=stack, config=stack_config(stack))
    current = {r.urn for r in capture.resources}
    aliased = set().union(*(alias_urns(r, capture) for r in capture.resources))
    path = GOLDEN / f"{stack}.json"
    if os.environ.get("UPDATE_URNS") == "1" or not path.exists():
        path.write_text(json.dumps(sorted(current), indent=1) + "\n")
    recorded = set(json.loads(path.read_text()))
    lost = sorted(recorded - current - aliased)
    assert not lost, (
        f"{stack}: these resources would be replaced (no resource registers them or aliases "
        f"them):\n" + "\n".join(lost)
    )


def test_alias_urns_resolve_like_the_engine():
    import pulumi
    from nodepools.offline import run

    def program() -> None:
        parent = pulumi.ComponentResource("nodepools:index:Thing", "thing")
        pulumi.ComponentResource(
            "nodepools:index:Part",
            "thing-part",
            opts=pulumi.ResourceOptions(parent=parent, aliases=[pulumi.Alias(name="thing/part")]),
        )

    capture = run(program, stack="dev")
    part = capture.get("nodepools:index:Part", "thing-part")
    assert alias_urns(part, capture) == {
        "urn:pulumi:dev::nodepools::nodepools:index:Thing$nodepools:index:Part::thing/part"
    }
