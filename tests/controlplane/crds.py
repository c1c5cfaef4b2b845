"""CustomResourceDefinitions rebuilt from the repository's own vendored schema facts.

components/validation/data holds, per CRD, the served storage version's group, kind, plural,
scope, subresources and openAPIV3Schema (CEL rules included): enough for the API server to
serve the kind exactly as the validator checks it. Never read from ../shared.
"""

from __future__ import annotations

from typing import Any

from nodepools.validation.catalog import DATA_FILES, load_facts


def crd_manifest(api_version: str, kind: str) -> dict[str, Any]:
    """The apiextensions.k8s.io/v1 CRD serving API_VERSION/KIND from the vendored facts."""
    facts = load_facts(api_version, kind)
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
    """Every vendored CRD, in a stable order."""
    return [crd_manifest(api_version, kind) for api_version, kind in sorted(DATA_FILES)]
