"""The policy pack, run in-process over everything the plan captured.

The same rules `pulumi preview --policy-pack policies` runs, on the same engine-shaped
properties; `--policy-config FILE` takes the JSON the Pulumi CLI takes with
`--policy-pack-config`. A mandatory violation fails the plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nodepools.offline import Capture, CapturedResource
from nodepools.planning.report import Section

if TYPE_CHECKING:
    from nodepools.policies.runner import PolicyResourceInput


def policy_inputs(capture: Capture) -> list[PolicyResourceInput]:
    """The captured custom resources as the policy runner takes them."""
    from nodepools.policies.runner import PolicyResourceInput

    def as_input(resource: CapturedResource) -> PolicyResourceInput:
        return PolicyResourceInput(
            urn=resource.urn,
            type=resource.type,
            name=resource.name,
            props=resource.inputs,
            parent=resource.parent,
            dependencies=resource.dependencies,
            property_dependencies=resource.property_dependencies,
        )

    return [as_input(r) for r in capture.custom_resources()]


def policy_section(capture: Capture) -> Section:
    from nodepools.policies.runner import run_policies
    from pulumi_policy import EnforcementLevel

    context = getattr(capture, "plan_context", {}) or {}
    section = Section("Policy pack (nodepools-guardrails)")
    violations = run_policies(policy_inputs(capture), config=context.get("policy_config"))
    names = {r.urn: f"{r.type} {r.name}" for r in capture.resources}
    for violation in sorted(violations, key=lambda v: (v.policy_name, v.urn or "", v.message)):
        level = violation.enforcement_level.value
        where = names.get(violation.urn or "", "stack")
        section.lines.append(f"[{level}] {violation.policy_name}: {where}: {violation.message}")
        if violation.enforcement_level == EnforcementLevel.MANDATORY:
            section.failures += 1
    if not violations:
        section.lines.append(f"no violations ({len(capture.custom_resources())} resources checked)")
    return section
