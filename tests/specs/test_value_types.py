"""Value types: labels, taints, scaling, spot, accelerators, cluster targets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nodepools.specs import (
    CATALOG,
    Accelerator,
    EksCluster,
    Labels,
    OkeCluster,
    Scaling,
    SpecError,
    Spot,
    Taint,
    is_bare_metal,
    label_key_problem,
    label_value_problem,
    lookup_accelerator,
    merge_taints,
    parse_spec,
)
from nodepools.specs.clusters.targets import ClusterTarget
from nodepools.specs.core.base import issues_from_validation_error
from pydantic import TypeAdapter, ValidationError

from tests.conftest import EKS, OKE

LABELS = TypeAdapter(Labels)


def problems(model, data) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        parse_spec(model, data, "thing")
    return {issue.path: issue.message for issue in caught.value.issues}


@pytest.mark.parametrize(
    "key",
    ["app", "nvidia.com/gpu", "node.kubernetes.io/instance-type", "a_b.c-d", "x" * 63, "A1"],
)
def test_valid_label_keys(key):
    assert label_key_problem(key) is None


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("", "non-empty"),
        ("bad key", "not a qualified name"),
        ("-lead", "not a qualified name"),
        ("x" * 64, "not a qualified name"),
        ("UPPER.com/x", "invalid prefix"),
        ("/name", "invalid prefix"),
        ("a/b/c", "invalid prefix"),
    ],
)
def test_invalid_label_keys(key, fragment):
    assert fragment in label_key_problem(key)


def test_label_value_rules():
    assert label_value_problem("") is None
    assert label_value_problem("v1.2_x-y") is None
    assert "64 characters" in label_value_problem("a" * 64)
    assert "must be empty or alphanumerics" in label_value_problem("has space")


def test_labels_are_sorted_and_errors_name_the_key():
    assert list(LABELS.validate_python({"b": "1", "a": "2"})) == ["a", "b"]
    with pytest.raises(ValidationError) as caught:
        LABELS.validate_python({"ok": "a" * 64})
    (issue,) = issues_from_validation_error(caught.value, "labels")
    assert issue.path == "labels.ok"
    assert "'aaaa" in issue.message and "at most 63" in issue.message


def test_taint_from_string_and_defaults():
    taint = Taint.model_validate("nvidia.com/gpu=true:NoSchedule")
    assert (taint.key, taint.value, taint.effect) == ("nvidia.com/gpu", "true", "NoSchedule")
    bare = Taint.model_validate("dedicated:NoExecute")
    assert bare.value is None and str(bare) == "dedicated:NoExecute"
    assert Taint(key="k", value="", effect="NoSchedule").value is None


def test_taint_errors():
    found = problems(Taint, {"key": "bad key", "value": "x" * 64, "effect": "NoSchedul"})
    assert set(found) == {"key", "value", "effect"}
    assert "'NoSchedul'" in found["effect"]
    assert "taint value" in found["value"]
    with pytest.raises(ValidationError, match="key=value:Effect"):
        Taint.model_validate("no-effect")


def test_merge_taints_override_by_key_and_effect():
    defaults = [Taint(key="spot", value="true", effect="PreferNoSchedule")]
    override = [Taint(key="spot", value="yes", effect="PreferNoSchedule")]
    merged = merge_taints(defaults, override)
    assert [str(t) for t in merged] == ["spot=yes:PreferNoSchedule"]


def test_scaling_rules():
    found = problems(Scaling, {"min_replicas": 5, "max_replicas": 3})
    assert found == {"max_replicas": "`min_replicas` 5 can't be greater than `max_replicas` 3"}
    assert set(problems(Scaling, {"min_replicas": -1, "max_replicas": 0})) == {
        "min_replicas",
        "max_replicas",
    }
    assert Scaling(min_replicas=0, max_replicas=1).min_replicas == 0


def test_spot_price_positive():
    assert Spot().max_price is None
    assert "greater than 0" in problems(Spot, {"max_price": 0})["max_price"]


def test_catalog_facts():
    assert lookup_accelerator("g4dn.xlarge") == Accelerator(
        resource="nvidia.com/gpu", count=1, vendor="nvidia", model="T4", memory_mib=16384
    )
    assert lookup_accelerator("p3.2xlarge").model == "V100"
    assert lookup_accelerator("trn1.2xlarge").resource == "aws.amazon.com/neuron"
    assert lookup_accelerator("inf2.48xlarge").count == 12
    assert lookup_accelerator("BM.GPU.A10.4").count == 4
    assert lookup_accelerator("VM.GPU.A10.1").count == 1
    mi300x = lookup_accelerator("BM.GPU.MI300X.8")
    assert (mi300x.resource, mi300x.count, mi300x.vendor) == ("amd.com/gpu", 8, "amd")
    assert lookup_accelerator("m5.large") is None
    for family in ("g4dn.", "g5.", "g6.", "p3.", "p4d.", "p5.", "trn1.", "inf2."):
        assert any(name.startswith(family) for name in CATALOG), family
    for shape in (
        "VM.GPU.A10.2",
        "BM.GPU4.8",
        "BM.GPU.A100-v2.8",
        "BM.GPU.H100.8",
        "BM.GPU.H200.8",
        "BM.GPU.L40S.4",
    ):
        assert shape in CATALOG
    assert is_bare_metal("BM.GPU.H100.8") and not is_bare_metal("VM.GPU.A10.1")


def test_cluster_targets_discriminated_by_kind():
    adapter = TypeAdapter(ClusterTarget)
    assert isinstance(adapter.validate_python(EKS), EksCluster)
    assert isinstance(adapter.validate_python(OKE), OkeCluster)
    with pytest.raises(ValidationError) as caught:
        adapter.validate_python({**EKS, "kind": "gke"})
    (issue,) = issues_from_validation_error(caught.value, "cluster")
    assert issue.path == "cluster" and "'gke'" in issue.message


def test_cluster_target_errors():
    found = problems(EksCluster, {**EKS, "node_role_arn": "role/x", "subnet_ids": [], "extra": 1})
    assert "not an IAM role ARN" in found["node_role_arn"]
    assert "at least one subnet" in found["subnet_ids"]
    assert "unknown field" in found["extra"]
    found = problems(OkeCluster, {**OKE, "placements": [], "kubernetes_version": "1.31"})
    assert set(found) == {"placements", "kubernetes_version"}


@given(
    key=st.text(max_size=80),
    value=st.text(max_size=80),
    effect=st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute", "Bogus", ""]),
)
def test_taint_property_valid_or_clear_error(key, value, effect):
    """Any input either validates or fails with a SpecError naming paths; nothing else."""
    try:
        taint = parse_spec(Taint, {"key": key, "value": value, "effect": effect}, "taint")
    except SpecError as exc:
        assert exc.issues and all(issue.path in {"key", "value", "effect"} for issue in exc.issues)
    else:
        assert label_key_problem(taint.key) is None
        assert taint.value is None or label_value_problem(taint.value) is None


@given(
    labels=st.dictionaries(st.text(max_size=70), st.text(max_size=70), max_size=5),
    low=st.integers(-2, 12),
    high=st.integers(-2, 12),
)
def test_scaling_and_labels_property(labels, low, high):
    try:
        LABELS.validate_python(labels)
    except ValidationError as exc:
        assert all(i.path.startswith("labels") for i in issues_from_validation_error(exc, "labels"))
    try:
        scaling = parse_spec(Scaling, {"min_replicas": low, "max_replicas": high}, "scaling")
    except SpecError:
        assert low < 0 or high < 1 or low > high
    else:
        assert 0 <= scaling.min_replicas <= scaling.max_replicas
