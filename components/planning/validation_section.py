"""Plan section: every captured custom resource of a known kind, validated like the API
server would (structural schema, CEL rules, Kueue's webhook checks).

Components validate their own manifests before registering them; this section also
covers custom resources a stack registers by hand, and fails the plan on any violation.
"""

from __future__ import annotations

from nodepools.offline import Capture
from nodepools.planning.report import Section
from nodepools.validation import is_known_kind, validate_manifest


def validation_findings(capture: Capture) -> tuple[int, list[dict[str, str]]]:
    """(manifests checked, violations): every captured custom resource of a known kind
    validated; each violation with kind, object name, resource name, path and message."""
    checked = 0
    violations: list[dict[str, str]] = []
    for resource in capture.custom_resources():
        manifest = resource.inputs
        if not resource.type.startswith("kubernetes:") or not is_known_kind(
            manifest.get("apiVersion"), manifest.get("kind")
        ):
            continue
        checked += 1
        for violation in validate_manifest(manifest):
            violations.append(
                {
                    "kind": violation.kind,
                    "name": violation.name or resource.name,
                    "resource": resource.name,
                    "path": violation.path or "<object>",
                    "message": violation.message,
                }
            )
    return checked, violations


def validation_section(capture: Capture) -> Section:
    section = Section("Validation of custom resources")
    checked, violations = validation_findings(capture)
    for v in violations:
        section.lines.append(
            f"INVALID {v['kind']}/{v['name']} ({v['resource']}) {v['path']}: {v['message']}"
        )
    section.failures = len(violations)
    plural = "s" if checked != 1 else ""
    if section.failures:
        section.lines.append(
            f"{section.failures} violation{'s' * (section.failures != 1)} "
            f"in {checked} manifest{plural}"
        )
    else:
        section.lines.append(f"{checked} manifest{plural} validated, all valid")
    return section
