"""CustomResourceDefinitions rebuilt from the repository's own vendored schema facts.

components/validation/data holds, per CRD, the served storage version's group, kind, plural,
scope, subresources and openAPIV3Schema (CEL rules included): enough for the API server to
serve the kind exactly as the validator checks it. Never read from ../shared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nodepools.validation.catalog import DATA_FILES, load_facts


def crd_manifest(api_version: str, kind: str) -> dict[str, Any]:
    """The apiextensions.k8s.io/v1 CRD serving API_VERSION/KIND from the vendored facts."""
    return crd_from_facts(load_facts(api_version, kind))


def crd_from_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """The apiextensions.k8s.io/v1 CRD that serves the kind these schema facts describe."""
    version: dict[str, Any] = {
        "name": facts["version"],
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": facts["schema"]},
    }
    # The facts say {"status": bool, "scale": {paths} | None}; the CRD form is {"status": {}, "scale": {...}}.
    flags = facts.get("subresources") or {}
    subresources: dict[str, Any] = {}
    if flags.get("status"):
        subresources["status"] = {}
    if flags.get("scale"):
        subresources["scale"] = flags["scale"]
    if subresources:
        version["subresources"] = subresources
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{facts['plural']}.{facts['group']}"},
        "spec": {
            "group": facts["group"],
            "scope": facts["scope"],
            "names": {
                "kind": facts["kind"],
                "listKind": f"{facts['kind']}List",
                "plural": facts["plural"],
                "singular": facts["kind"].lower(),
            },
            "versions": [version],
        },
    }


def crd_manifests() -> list[dict[str, Any]]:
    """Every vendored CRD, in a stable order; where tests/controlplane/data has the same kind
    with its status schema (a test writes its status), that one."""
    with_status = {
        (m["spec"]["group"], m["spec"]["names"]["kind"]): m for m in extra_crd_manifests()
    }
    manifests = [crd_manifest(api_version, kind) for api_version, kind in sorted(DATA_FILES)]
    return [with_status.get((m["spec"]["group"], m["spec"]["names"]["kind"]), m) for m in manifests]


TEST_DATA = Path(__file__).parent / "data"


def extra_crd_manifests() -> list[dict[str, Any]]:
    """The kinds only the tests create (Karpenter's NodeClaim, Kueue's Workload) and those
    whose status a test writes (Karpenter's NodePool), from the facts
    scripts/extract_test_crd_facts.py derived from their upstream CRDs."""
    return [
        crd_from_facts(json.loads(path.read_text(encoding="utf-8")))
        for path in sorted(TEST_DATA.glob("*.json"))
    ]
