"""The CEL layer: every packaged rule compiles, and the Kubernetes semantics hold."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from nodepools.validation import KNOWN_KINDS, catalog, cel
from nodepools.validation.schema import MISSING
from nodepools.validation.validator import validator_for
from nodepools.validation.violations import Collector


def _rules_in(node: object) -> int:
    if isinstance(node, dict):
        own = len(node.get("x-kubernetes-validations", []))
        return own + sum(_rules_in(v) for k, v in node.items() if k != "x-kubernetes-validations")
    if isinstance(node, list):
        return sum(_rules_in(v) for v in node)
    return 0


def test_every_rule_of_every_kind_compiles():
    packaged = 0
    compiled = 0
    for api_version, kind in sorted(KNOWN_KINDS):
        name = catalog.DATA_FILES[(api_version, kind)]
        facts = json.loads(
            resources.files("nodepools.validation").joinpath("data", name).read_text()
        )
        packaged += _rules_in(facts["schema"])
        compiled += validator_for(api_version, kind).rule_count
    assert compiled == packaged
    # Karpenter v1.14.1 and Kueue v0.19.2 (Topology: 3; AdmissionCheck, MultiKueueConfig and
    # MultiKueueCluster: 1 each); changes with the CRDs.
    assert compiled == 96


def test_each_kind_is_compiled_once_per_process():
    first = validator_for("karpenter.sh/v1", "NodePool")
    assert validator_for("karpenter.sh/v1", "NodePool") is first
    assert cel.environment() is cel.environment()


def _evaluate(raw: dict, value: object, old: object = MISSING) -> list[tuple[str, str]]:
    rule = cel.compile_rule(raw, "test")
    out = Collector("Test", "t")
    cel.evaluate_rules((rule,), value, old, "spec", out)
    return [(v.path, v.message) for v in out.violations]


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("self.find('^[^/]+') == 'karpenter.sh'", "karpenter.sh/capacity-type"),
        ("self.find('[0-9]+') == ''", "no digits"),
        ("self.find('^\\\\d+') == ''", "٣٣"),  # RE2's \\d is ASCII only
        ("self.findAll('[a-z]') == ['a', 'b']", "a1b"),
        ("self.findAll('[a-z]', 1) == ['a']", "a1b"),
        ("self.split('@') == ['al2023', 'latest']", "al2023@latest"),
        ("self.lowerAscii().startsWith('gpu')", "GPU-pool"),
        ("self.matches('^a$') == false", "a\n"),
        ("self.exists_one(x, x == 'a')", ["a", "b"]),
    ],
)
def test_kubernetes_library_functions(expression, value):
    assert _evaluate({"rule": expression, "message": "failed"}, value) == []


def test_false_rule_reports_its_message_or_the_rule():
    assert _evaluate({"rule": "self > 1", "message": " too small "}, 0) == [("spec", "too small")]
    assert _evaluate({"rule": "self > 1"}, 0) == [("spec", "failed rule: self > 1")]


def test_message_expression_field_path_and_reason():
    raw = {
        "rule": "self.replicas <= 3",
        "messageExpression": "'replicas ' + string(self.replicas) + ' is more than 3'",
        "fieldPath": ".replicas",
        "reason": "FieldValueForbidden",
    }
    assert _evaluate(raw, {"replicas": 5}) == [
        ("spec.replicas", "Forbidden: replicas 5 is more than 3")
    ]
    raw["messageExpression"] = "self.missing"  # fails: falls back to message, then the rule
    raw["message"] = "at most 3"
    raw["fieldPath"] = ".items['a.b']"
    assert _evaluate(raw, {"replicas": 5}) == [("spec.items[a.b]", "Forbidden: at most 3")]


def test_evaluation_error_is_a_rejection_naming_the_rule():
    assert _evaluate({"rule": "self.a.b == 1", "message": "b must be 1"}, {"a": {}}) == [
        ("spec", 'Key not found in map : "b" evaluating rule: b must be 1')
    ]
    assert _evaluate({"rule": "int(self) > 0"}, "ten") == [
        ("spec", "cannot convert string to int evaluating rule: int(self) > 0")
    ]


def test_non_boolean_result_is_a_rejection():
    [(path, message)] = _evaluate({"rule": "self", "message": "m"}, "text")
    assert path == "spec"
    assert "instead of bool evaluating rule: m" in message


def test_transition_rule_skipped_without_old_and_evaluated_with_it():
    raw = {"rule": "self == oldSelf", "message": "immutable"}
    assert _evaluate(raw, "a") == []
    assert _evaluate(raw, "a", old="a") == []
    assert _evaluate(raw, "b", old="a") == [("spec", "immutable")]


def test_unknown_function_does_not_compile():
    with pytest.raises(cel.CelCompileError, match="quantity"):
        cel.compile_rule({"rule": "quantity(self).isGreaterThan(quantity('1'))"}, "test")
