"""Derive the pod-template schema facts into components/specs/governance/data/.

Pod templates (nodepools.specs.governance.pod_spec_schema) are checked against the
Kubernetes core/v1 PodSpec and ObjectMeta schemas of the Kubernetes version we pin. The
`kubernetes-validate` package ships those schemas for every Kubernetes minor (108 MB);
this script keeps the two we read and every definition they reach, for one version, in
one file of a few hundred KB, so an installed `nodepools` needs neither the package nor
its data. Descriptions are dropped; every keyword the checker uses is kept, and a keyword
it does not know is refused, so a new schema can never be checked with a constraint
silently missing.

Usage (from the repository root, with `kubernetes-validate` installed, as `[test]` does)::

    python scripts/extract_pod_schema.py            # regenerate the packaged facts
    python scripts/extract_pod_schema.py --check    # exit 1 if the packaged facts are stale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "components" / "specs" / "governance" / "data" / "pod_template_schema.json"
KUBERNETES_VERSION = "1.33.0"
SCHEMA_DIR = f"kubernetes-json-schema/v{KUBERNETES_VERSION}-local-strict"
ROOTS = {"spec": "podspec-v1.json", "metadata": "objectmeta-meta-v1.json"}
# The root files name definitions by the definitions file's path, the definitions by a
# local reference; both become local references of the one file written.
DEFS_PREFIXES = ("/api/_definitions.json#/$defs/", "#/$defs/")

# Keywords kept as they are; `properties` maps names to schemas and `items`, `allOf`,
# `anyOf`, `oneOf`, `additionalProperties` hold schemas, so they are walked.
KEPT = frozenset({"type", "format", "enum", "required", "$ref"})
SCHEMA_VALUED = frozenset({"items", "additionalProperties"})
SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})
# Annotations with no bearing on validation: jsonschema ignores them, and so did the check
# when it read kubernetes-validate's files (the `x-kubernetes-*` list and map markers too;
# pod_spec_schema checks duplicate names in named lists itself).
DROPPED = frozenset({"description", "$schema", "$id"})
DROPPED_PREFIX = "x-kubernetes-"


class UnsupportedSchema(ValueError):
    """A keyword the pod-template checker does not know."""


def _read(filename: str) -> Any:
    files = resources.files("kubernetes_validate")
    return json.loads(files.joinpath(f"{SCHEMA_DIR}/{filename}").read_text())


def compact(node: Any, where: str, reached: set[str]) -> Any:
    """`node` without descriptions, its references made local; the definitions it names are
    added to `reached`."""
    if not isinstance(node, dict):
        raise UnsupportedSchema(f"{where}: a schema must be an object (got {node!r})")
    out: dict[str, Any] = {}
    for key, value in sorted(node.items()):
        if key in DROPPED or key.startswith(DROPPED_PREFIX):
            continue
        if key == "$ref":
            prefix = next((p for p in DEFS_PREFIXES if str(value).startswith(p)), None)
            if prefix is None:
                raise UnsupportedSchema(f"{where}.$ref: {value!r} is not a definition")
            name = str(value).removeprefix(prefix)
            reached.add(name)
            out[key] = f"#/$defs/{name}"
        elif key in KEPT:
            out[key] = value
        elif key == "properties":
            out[key] = {
                name: compact(sub, f"{where}.properties.{name}", reached)
                for name, sub in sorted(value.items())
            }
        elif key in SCHEMA_VALUED:
            out[key] = (
                value if isinstance(value, bool) else compact(value, f"{where}.{key}", reached)
            )
        elif key in SCHEMA_LISTS:
            out[key] = [compact(sub, f"{where}.{key}[{i}]", reached) for i, sub in enumerate(value)]
        else:
            raise UnsupportedSchema(f"{where}: keyword {key!r} is not checked by pod_spec_schema")
    return out


def derive() -> dict[str, Any]:
    definitions: dict[str, Any] = _read("_definitions.json")["$defs"]
    reached: set[str] = set()
    roots = {kind: compact(_read(name), name, reached) for kind, name in ROOTS.items()}
    kept: dict[str, Any] = {}
    pending = sorted(reached)
    while pending:
        name = pending.pop()
        if name in kept:
            continue
        found: set[str] = set()
        kept[name] = compact(definitions[name], name, found)
        pending.extend(sorted(found - kept.keys()))
    sources = {
        name: hashlib.sha256(
            resources.files("kubernetes_validate").joinpath(f"{SCHEMA_DIR}/{name}").read_bytes()
        ).hexdigest()
        for name in sorted([*ROOTS.values(), "_definitions.json"])
    }
    return {
        "kubernetes_version": KUBERNETES_VERSION,
        "source": {
            "package": "kubernetes-validate",
            "folder": SCHEMA_DIR,
            "sha256": sources,
        },
        "roots": roots,
        "$defs": dict(sorted(kept.items())),
    }


def render(facts: dict[str, Any]) -> str:
    return json.dumps(facts, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the facts are stale")
    args = parser.parse_args(argv)
    text = render(derive())
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(REPO)} is stale: run scripts/extract_pod_schema.py")
            return 1
        print(f"{OUT.relative_to(REPO)} is up to date")
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(REPO)} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
