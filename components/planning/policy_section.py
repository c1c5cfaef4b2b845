"""The policy pack, run in-process over everything the plan captured.

The same rules `pulumi preview --policy-pack policies` runs, on the same engine-shaped
properties; `--policy-config FILE` takes the JSON the Pulumi CLI takes with
`--policy-pack-config`. A mandatory violation fails the plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nodepools.offline import Capture, CapturedResource
from nodepools.planning.report import Section

# EnforcementLevel.MANDATORY.value, spelled out so reading findings needs no pulumi_policy.
MANDATORY = "mandatory"
_FINDINGS = "_policy_findings"

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


def policy_findings(capture: Capture) -> list[dict[str, str]]:
    """Every violation the policy pack reports, sorted: policy, level (mandatory, advisory,
    ...), the resource (`type name`, or "stack") and the message. Run once per capture: the
    text, JSON and Markdown reports all read this list."""
    from nodepools.policies.runner import run_policies

    context: dict[str, Any] = getattr(capture, "plan_context", {}) or {}
    cached = context.get(_FINDINGS)
    if cached is not None:
        return cached
    violations = run_policies(policy_inputs(capture), config=context.get("policy_config"))
    names = {r.urn: f"{r.type} {r.name}" for r in capture.resources}
    findings = sorted(
        (
            {
                "policy": violation.policy_name,
                "level": violation.enforcement_level.value,
                "resource": names.get(violation.urn or "", "stack"),
                "message": violation.message,
            }
            for violation in violations
        ),
        key=lambda f: (f["policy"], f["resource"], f["message"]),
    )
    context[_FINDINGS] = findings
    capture.plan_context = context
    return findings


def policy_section(capture: Capture) -> Section:
    section = Section("Policy pack (nodepools-guardrails)")
    findings = policy_findings(capture)
    for finding in findings:
        section.lines.append(
            f"[{finding['level']}] {finding['policy']}: {finding['resource']}: {finding['message']}"
        )
        if finding["level"] == MANDATORY:
            section.failures += 1
    if not findings:
        section.lines.append(f"no violations ({len(capture.custom_resources())} resources checked)")
    return section
