"""Extract compact schema facts from upstream CRDs into components/validation/data/.

The offline validator (nodepools.validation) never reads the CRD YAML: it reads the
JSON facts this script writes, one file per kind, named ``<group>_<plural>.json`` like
the upstream CRD files. Only the storage version of each CRD is kept, descriptions are
dropped, and everything the API server uses to default and validate is kept: types,
required, enum, pattern, format, bounds, default, nullable, the ``x-kubernetes-*``
markers and every ``x-kubernetes-validations`` rule.

Usage (from the repository root)::

    python scripts/extract_crd_facts.py            # regenerate the packaged facts
    python scripts/extract_crd_facts.py --check    # exit 1 if the packaged facts are stale
    python scripts/extract_crd_facts.py DIR_OR_YAML ... [--out DIR]
    python scripts/extract_crd_facts.py --also KUEUE_CRDS    # the shared CRDs plus these

Without paths it reads ``../shared/crds/karpenter-v1.14.1/*.yaml`` and
``../shared/crds/kueue-v0.19.2/*.yaml`` next to the repository (the nearest ancestor
folder holding ``shared/crds``); ``--also`` adds more CRD files or folders to those. Only
the kinds the validator covers are written (see ``COVERED_KINDS``); other CRDs in those
folders are skipped.

Kueue's admission-check kinds (``EXTRA_KINDS``: AdmissionCheck, ProvisioningRequestConfig,
MultiKueueConfig, MultiKueueCluster) are not in ``../shared/crds``. Their CRDs are
kubernetes-sigs/kueue ``config/components/crd/bases/kueue.x-k8s.io_<plural>.yaml`` at tag
v0.19.2 (commit 8eab68778fc1b52affe165fdf5af29d1e9b4f3cb), put in a folder named
``kueue-v0.19.2`` (its name is the recorded release) and given with ``--also``; e.g. from a
clone: ``git -C kueue show v0.19.2:config/components/crd/bases/kueue.x-k8s.io_admissionchecks.yaml
> /tmp/kueue-v0.19.2/kueue.x-k8s.io_admissionchecks.yaml``. When they are not among the
sources, their packaged facts are kept as they are (and ``--check`` says it did not
check them).

The script refuses schema keywords the validator does not implement, so a new CRD
release can never be validated with a constraint silently missing: extend the
validator first, then the whitelist here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
CRD_RELEASES = ("karpenter-v1.14.1", "kueue-v0.19.2")
DEFAULT_OUT = REPO / "components" / "validation" / "data"

# (group, kind) pairs the validator covers; components/validation/catalog.py lists the
# same kinds with their data file, and a test keeps the two in step.
COVERED_KINDS = frozenset(
    {
        ("karpenter.sh", "NodePool"),
        ("karpenter.k8s.aws", "EC2NodeClass"),
        ("kueue.x-k8s.io", "ResourceFlavor"),
        ("kueue.x-k8s.io", "ClusterQueue"),
        ("kueue.x-k8s.io", "LocalQueue"),
        ("kueue.x-k8s.io", "Cohort"),
        ("kueue.x-k8s.io", "WorkloadPriorityClass"),
        ("kueue.x-k8s.io", "Topology"),
        ("kueue.x-k8s.io", "AdmissionCheck"),
        ("kueue.x-k8s.io", "ProvisioningRequestConfig"),
        ("kueue.x-k8s.io", "MultiKueueConfig"),
        ("kueue.x-k8s.io", "MultiKueueCluster"),
    }
)
# Covered kinds whose CRDs are not in ../shared/crds (see the module docstring): their
# packaged facts stay when a run's sources do not include them.
EXTRA_KINDS = frozenset(
    {
        ("kueue.x-k8s.io", "AdmissionCheck"),
        ("kueue.x-k8s.io", "ProvisioningRequestConfig"),
        ("kueue.x-k8s.io", "MultiKueueConfig"),
        ("kueue.x-k8s.io", "MultiKueueCluster"),
    }
)

# Keywords kept verbatim. Anything else in a schema node is an error, except the prose
# below, which the API server never looks at.
KEPT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "items",
        "additionalProperties",
        "required",
        "enum",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "default",
        "nullable",
        "x-kubernetes-int-or-string",
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-map-type",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-validations",
    }
)
DROPPED_PROSE = frozenset({"description", "title", "example", "externalDocs"})
RULE_KEYS = ("rule", "message", "messageExpression", "fieldPath", "reason")

# String formats the validator checks (components/validation/schema.py). Integer formats
# (int32, int64) are informational for the API server too.
CHECKED_STRING_FORMATS = frozenset({"date-time"})
INFORMATIONAL_FORMATS = frozenset({"int32", "int64"})

# controller-gen emits this anyOf next to x-kubernetes-int-or-string; the marker says
# the same thing, so the boilerplate is dropped rather than implemented twice.
INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]


class UnsupportedSchema(ValueError):
    """A CRD uses a schema keyword the validator does not implement."""


def compact_schema(node: dict[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED_PROSE:
            continue
        if (
            key == "anyOf"
            and node.get("x-kubernetes-int-or-string")
            and value == INT_OR_STRING_ANY_OF
        ):
            continue
        if key not in KEPT_KEYWORDS:
            raise UnsupportedSchema(f"{where}: schema keyword {key!r} is not supported")
        if key == "properties":
            out[key] = {
                name: compact_schema(child, f"{where}.{name}") for name, child in value.items()
            }
        elif key == "items":
            out[key] = compact_schema(value, f"{where}[]")
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = compact_schema(value, f"{where}{{}}")
        elif key == "x-kubernetes-validations":
            for rule in value:
                unknown = set(rule) - set(RULE_KEYS)
                if unknown:
                    # e.g. optionalOldSelf changes when a transition rule runs.
                    raise UnsupportedSchema(
                        f"{where}: rule keys {sorted(unknown)} are not supported"
                    )
            out[key] = [{k: rule[k] for k in RULE_KEYS if k in rule} for rule in value]
        elif key == "format":
            known = value in INFORMATIONAL_FORMATS or value in CHECKED_STRING_FORMATS
            if not known:
                raise UnsupportedSchema(
                    f"{where}: format {value!r} is not checked by the validator"
                )
            out[key] = value
        else:
            out[key] = value
    return out


def facts_for_crd(
    crd: dict[str, Any], source: str, release: str, *, keep_status: bool = False
) -> dict[str, Any]:
    """The compact facts of one CRD. `keep_status`: keep the status schema too (for kinds
    whose status a test writes, as their controller would)."""
    spec = crd["spec"]
    storage = [v for v in spec["versions"] if v.get("storage")]
    if len(storage) != 1 or not storage[0].get("served", False):
        raise UnsupportedSchema(f"{source}: expected exactly one served storage version")
    version = storage[0]
    kind = spec["names"]["kind"]
    schema = dict(version["schema"]["openAPIV3Schema"])
    subresources = version.get("subresources") or {}
    properties = dict(schema.get("properties", {}))
    if "status" in subresources and not keep_status:
        # With a status subresource the API server drops .status on create and keeps the
        # stored one on update, so a manifest's status is never validated.
        properties.pop("status", None)
    schema["properties"] = properties
    return {
        "apiVersion": f"{spec['group']}/{version['name']}",
        "group": spec["group"],
        "kind": kind,
        "plural": spec["names"]["plural"],
        "scope": spec["scope"],
        "source": {"file": source, "release": release},
        "subresources": {
            "scale": subresources.get("scale"),
            "status": "status" in subresources,
        },
        "version": version["name"],
        "schema": compact_schema(schema, kind),
    }


def default_sources() -> list[Path]:
    """``../shared/crds/<release>``, looked up from the repository upwards so that a git
    worktree nested one level deeper (``wt/<branch>``) finds the same shared folder."""
    for parent in REPO.parents:
        crds = parent / "shared" / "crds"
        if crds.is_dir():
            return [crds / release for release in CRD_RELEASES]
    raise SystemExit("../shared/crds not found; pass the CRD files or folders explicitly")


def find_crd_files(sources: list[Path]) -> list[Path]:
    files: list[Path] = []
    for src in sources:
        files.extend(sorted(src.glob("*.yaml")) if src.is_dir() else [src])
    return files


def render(facts: dict[str, Any]) -> str:
    return json.dumps(facts, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def build(sources: list[Path]) -> dict[str, str]:
    """File name -> rendered JSON for every covered kind found in ``sources``."""
    rendered: dict[str, str] = {}
    for path in find_crd_files(sources):
        crd = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
            continue
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        if (group, kind) not in COVERED_KINDS:
            continue
        release = path.parent.name
        facts = facts_for_crd(crd, f"{release}/{path.name}", release)
        facts["source"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        rendered[f"{group}_{facts['plural']}.json"] = render(facts)
    missing = COVERED_KINDS - {
        (json.loads(text)["group"], json.loads(text)["kind"]) for text in rendered.values()
    }
    if missing - EXTRA_KINDS:
        raise SystemExit(f"CRDs not found for: {sorted(missing - EXTRA_KINDS)}")
    return rendered


def kept_files(rendered: dict[str, str], existing: dict[str, str]) -> set[str]:
    """Packaged fact files of EXTRA_KINDS that this run's sources did not regenerate."""
    kept: set[str] = set()
    for name, text in existing.items():
        if name in rendered:
            continue
        facts = json.loads(text)
        if (facts.get("group"), facts.get("kind")) in EXTRA_KINDS:
            kept.add(name)
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, help="CRD YAML files or folders")
    parser.add_argument(
        "--also",
        type=Path,
        action="append",
        default=[],
        help="more CRD YAML files or folders, read with the default (or given) sources",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--check", action="store_true", help="compare with the packaged facts, write nothing"
    )
    args = parser.parse_args(argv)
    rendered = build([*(args.sources or default_sources()), *args.also])

    existing = {p.name: p.read_text(encoding="utf-8") for p in args.out.glob("*.json")}
    kept = kept_files(rendered, existing)
    if args.check:
        stale = sorted(name for name in rendered if existing.get(name) != rendered[name])
        extra = sorted(set(existing) - set(rendered) - kept)
        for name in sorted(kept):
            print(f"not checked (its CRD is not among the sources; see --also): {name}")
        for name in stale:
            print(f"stale: {args.out / name}", file=sys.stderr)
        for name in extra:
            print(f"not generated from any CRD: {args.out / name}", file=sys.stderr)
        if stale or extra:
            print("run: python scripts/extract_crd_facts.py", file=sys.stderr)
            return 1
        print(f"{len(rendered)} fact files up to date")
        return 0

    args.out.mkdir(parents=True, exist_ok=True)
    for name in sorted(set(existing) - set(rendered) - kept):
        (args.out / name).unlink()
    for name, text in sorted(rendered.items()):
        (args.out / name).write_text(text, encoding="utf-8")
        print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
