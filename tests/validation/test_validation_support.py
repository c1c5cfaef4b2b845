"""Quantities, name syntax, the fact extraction script and the package's footprint."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest
from nodepools.validation import KNOWN_KINDS, catalog, names
from nodepools.validation.quantity import InvalidQuantity, parse_quantity

REPO = Path(__file__).resolve().parents[2]


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "extract_crd_facts", REPO / "scripts" / "extract_crd_facts.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", Fraction(1)),
        (8, Fraction(8)),
        ("500m", Fraction(1, 2)),
        ("1Gi", Fraction(2**30)),
        ("768Gi", Fraction(768 * 2**30)),
        ("1.5k", Fraction(1500)),
        ("1e3", Fraction(1000)),
        ("2E-2", Fraction(1, 50)),
        ("1n", Fraction(1, 10**9)),
        ("-.5", Fraction(-1, 2)),
        ("+3M", Fraction(3 * 10**6)),
    ],
)
def test_quantities_parse_exactly(text, value):
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", ["", "1GB", "Gi", "1.2.3", True, None, "1e99999", float("nan")])
def test_not_quantities(text):
    with pytest.raises(InvalidQuantity):
        parse_quantity(text)


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("nvidia.com/gpu", []),
        ("team", []),
        ("a/b/c", ["a qualified name must consist of"]),
        ("/gpu", ["prefix part must be non-empty"]),
        ("Example.com/gpu", ["prefix part a lowercase RFC 1123 subdomain"]),
        ("x/" + "a" * 64, ["name part must be no more than 63 characters"]),
        ("bad key", ["name part must consist of"]),
        ("", ["name part must be non-empty", "name part must consist of"]),
    ],
)
def test_qualified_names(value, errors):
    found = names.is_qualified_name(value)
    assert len(found) == len(errors)
    for message, prefix in zip(found, errors, strict=True):
        assert message.startswith(prefix)


def test_label_values_and_dns_names():
    assert names.is_valid_label_value("") == []
    assert names.is_valid_label_value("v1.2_a-b") == []
    assert names.is_valid_label_value("-a")
    assert names.is_valid_label_value("é" * 32)  # 64 bytes: Go counts bytes
    assert names.is_dns1123_subdomain("gpu-pool.example") == []
    assert names.is_dns1123_subdomain("GPU")
    assert names.is_dns1123_label("a.b")


def _prose(node: object, path: str = "") -> list[str]:
    """Paths of schema nodes that still carry a description (prose, not a property)."""
    if not isinstance(node, dict):
        return []
    found = [path] if isinstance(node.get("description"), str) else []
    for name, sub in (node.get("properties") or {}).items():
        found += _prose(sub, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        found += _prose(node.get(key), f"{path}.{key}")
    return found


def test_catalog_matches_the_packaged_data_and_the_script():
    data = resources.files("nodepools.validation").joinpath("data")
    packaged = sorted(p.name for p in data.iterdir() if p.name.endswith(".json"))
    assert sorted(catalog.DATA_FILES.values()) == packaged
    for (api_version, kind), name in catalog.DATA_FILES.items():
        facts = json.loads(data.joinpath(name).read_text())
        assert (facts["apiVersion"], facts["kind"]) == (api_version, kind)
        assert _prose(facts["schema"]) == []
    covered = _load_script().COVERED_KINDS
    assert covered == {(api_version.split("/")[0], kind) for api_version, kind in KNOWN_KINDS}


def _crd(schema: dict, subresources: dict | None = None) -> dict:
    version = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if subresources is not None:
        version["subresources"] = subresources
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [{"name": "v0", "served": True, "storage": False, "schema": {}}, version],
        },
    }


def test_extraction_keeps_validation_facts_and_drops_prose():
    script = _load_script()
    schema = {
        "type": "object",
        "description": "A widget.",
        "properties": {
            "spec": {
                "type": "object",
                "description": "Spec.",
                "properties": {
                    "description": {"type": "string", "description": "a field named description"},
                    "size": {
                        "anyOf": [{"type": "integer"}, {"type": "string"}],
                        "x-kubernetes-int-or-string": True,
                        "pattern": "^[0-9]+$",
                        "default": 1,
                    },
                },
                "x-kubernetes-validations": [
                    {"rule": "self.size != 0", "message": "no", "reason": "FieldValueInvalid"}
                ],
            },
            "status": {"type": "object"},
        },
    }
    facts = script.facts_for_crd(_crd(schema, {"status": {}}), "release/widgets.yaml", "release")
    assert facts["apiVersion"] == "example.com/v1"
    assert facts["subresources"] == {"scale": None, "status": True}
    spec = facts["schema"]["properties"]["spec"]
    assert "status" not in facts["schema"]["properties"]
    assert "description" not in spec and "description" not in facts["schema"]
    assert spec["properties"]["description"] == {"type": "string"}
    assert spec["properties"]["size"] == {
        "x-kubernetes-int-or-string": True,
        "pattern": "^[0-9]+$",
        "default": 1,
    }
    assert spec["x-kubernetes-validations"] == [
        {"rule": "self.size != 0", "message": "no", "reason": "FieldValueInvalid"}
    ]
    assert script.render(facts) == script.render(json.loads(script.render(facts)))


@pytest.mark.parametrize(
    "node",
    [
        {"type": "object", "oneOf": [{"required": ["a"]}]},
        {"type": "string", "format": "email"},
        {"type": "object", "x-kubernetes-embedded-resource": True},
        {
            "type": "string",
            "x-kubernetes-validations": [{"rule": "self == oldSelf", "optionalOldSelf": True}],
        },
    ],
)
def test_extraction_refuses_what_the_validator_does_not_implement(node):
    script = _load_script()
    with pytest.raises(script.UnsupportedSchema):
        script.facts_for_crd(
            _crd({"type": "object", "properties": {"spec": node}}), "r/w.yaml", "r"
        )


def test_importing_and_validating_loads_no_pulumi_or_cloud_sdk():
    # A stand-in `nodepools` package, so other modules' imports in the real
    # components/__init__.py cannot hide what the validation package itself imports.
    program = f"""
import sys, types
pkg = types.ModuleType("nodepools")
pkg.__path__ = [{str(REPO / "components")!r}]
sys.modules["nodepools"] = pkg
import nodepools.validation as validation
assert "cel_expr_python" not in sys.modules, "CEL runtime imported eagerly"
assert "nodepools.validation.validator" not in sys.modules
manifest = {{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {{"name": "q"}}, "spec": {{"clusterQueue": "cq"}}}}
assert validation.validate_manifest(manifest) == []
heavy = sorted(m for m in sys.modules if m.split(".")[0] in
               {{"pulumi", "pulumi_aws", "pulumi_kubernetes", "pulumi_oci", "boto3", "botocore", "yaml"}})
assert not heavy, heavy
"""
    subprocess.run([sys.executable, "-c", program], check=True, cwd=REPO)


def test_fact_files_of_kinds_outside_shared_crds_are_kept_unless_regenerated(tmp_path):
    # Kueue's admission-check CRDs are not in ../shared/crds: a run without `--also` keeps
    # their packaged facts (and `--check` says it did not check them) instead of deleting.
    script = _load_script()
    data = resources.files("nodepools.validation").joinpath("data")
    existing = {
        name: data.joinpath(name).read_text()
        for name in ("kueue.x-k8s.io_admissionchecks.json", "kueue.x-k8s.io_cohorts.json")
    }
    assert script.kept_files({}, existing) == {"kueue.x-k8s.io_admissionchecks.json"}
    rendered = {"kueue.x-k8s.io_admissionchecks.json": "{}"}
    assert script.kept_files(rendered, existing) == set()
    assert {kind for _, kind in script.EXTRA_KINDS} == {
        "AdmissionCheck",
        "ProvisioningRequestConfig",
        "MultiKueueConfig",
        "MultiKueueCluster",
    }
    for group_kind in script.EXTRA_KINDS:
        assert group_kind in script.COVERED_KINDS
    facts = json.loads(existing["kueue.x-k8s.io_admissionchecks.json"])
    assert facts["source"]["release"] == "kueue-v0.19.2"
