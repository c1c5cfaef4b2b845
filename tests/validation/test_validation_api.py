"""Public API: valid manifests pass, defaults, unknown kinds, errors and their wording."""

from __future__ import annotations

import pytest
from crd_samples import ALL, cluster_queue, local_queue, node_pool, workload_priority_class
from nodepools.validation import (
    KNOWN_KINDS,
    ManifestInvalid,
    Violation,
    apply_defaults,
    is_known_kind,
    validate_manifest,
    validate_manifests,
    validate_or_raise,
)


@pytest.mark.parametrize("kind", sorted(ALL))
def test_well_formed_manifests_pass(kind):
    assert validate_manifest(ALL[kind]()) == []


def test_known_kinds_are_the_covered_kinds():
    assert {(m()["apiVersion"], m()["kind"]) for m in ALL.values()} == set(KNOWN_KINDS)
    assert is_known_kind("karpenter.sh/v1", "NodePool")
    assert not is_known_kind("karpenter.sh/v1beta1", "NodePool")
    assert not is_known_kind("kueue.x-k8s.io/v1beta1", "ClusterQueue")


def test_unknown_kind_is_not_validated():
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": "many"}}
    assert validate_manifest(deployment) == []
    old_api = node_pool() | {"apiVersion": "karpenter.sh/v1beta1"}
    old_api["spec"]["weight"] = 500
    assert validate_manifest(old_api) == []


def test_validating_does_not_modify_the_input():
    manifest = node_pool()
    del manifest["spec"]["disruption"]
    manifest["status"] = {"nodes": 3}
    snapshot = repr(manifest)
    validate_manifest(manifest)
    apply_defaults(manifest)
    assert repr(manifest) == snapshot


def test_node_pool_defaults_fill_disruption_and_expiry():
    manifest = node_pool()
    del manifest["spec"]["disruption"]
    del manifest["spec"]["template"]["spec"]["expireAfter"]
    defaulted = apply_defaults(manifest)
    assert defaulted["spec"]["disruption"] == {
        "consolidateAfter": "0s",
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
        "budgets": [{"nodes": "10%"}],
    }
    assert defaulted["spec"]["template"]["spec"]["expireAfter"] == "720h"
    # Without a disruption block the API server defaults one, so this is valid.
    assert validate_manifest(manifest) == []


def test_defaults_inside_an_explicit_block_and_nested_defaults_of_defaults():
    manifest = node_pool()
    manifest["spec"]["disruption"] = {
        "consolidateAfter": "5m",
        "budgets": [{"schedule": "@daily", "duration": "1h"}],
    }
    defaulted = apply_defaults(manifest)["spec"]["disruption"]
    assert defaulted["consolidationPolicy"] == "WhenEmptyOrUnderutilized"
    assert defaulted["budgets"] == [{"schedule": "@daily", "duration": "1h", "nodes": "10%"}]

    queue = apply_defaults(cluster_queue())["spec"]
    assert queue["flavorFungibility"] == {
        "whenCanBorrow": "MayStopSearch",
        "whenCanPreempt": "TryNextFlavor",
    }
    assert queue["preemption"]["borrowWithinCohort"] == {"policy": "Never"}
    assert queue["queueingStrategy"] == "BestEffortFIFO"
    assert queue["stopPolicy"] == "None"


def test_apply_defaults_replaces_null_and_keeps_unknown_fields():
    manifest = local_queue()
    manifest["spec"]["stopPolicy"] = None
    manifest["spec"]["bogus"] = 1
    manifest["status"] = {"conditions": []}
    defaulted = apply_defaults(manifest)
    assert defaulted["spec"]["stopPolicy"] == "None"
    assert defaulted["spec"]["bogus"] == 1
    assert "status" not in defaulted  # status subresource: the server drops it on create


def test_apply_defaults_of_unknown_kind_is_a_copy():
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": ("x", "y")}}
    copied = apply_defaults(manifest)
    assert copied == {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": ["x", "y"]}}
    assert copied["data"] is not manifest["data"]


def test_unknown_fields_are_reported_with_their_path():
    manifest = node_pool()
    manifest["spec"]["template"]["spec"]["requirements"][0]["value"] = "spot"
    manifest["spec"]["templates"] = {}
    manifest["metadata"]["label"] = {"a": "b"}
    manifest["extra"] = True
    paths = [v.path for v in validate_manifest(manifest)]
    assert paths == [
        "metadata.label",
        "spec.template.spec.requirements[0].value",
        "spec.templates",
        "extra",
    ]
    assert all("unknown field" in v.message for v in validate_manifest(manifest))


def test_unknown_fields_do_not_stop_cel_rules():
    manifest = node_pool()
    manifest["spec"]["bogus"] = 1
    manifest["spec"]["template"]["metadata"]["labels"]["kubernetes.io/hostname"] = "n1"
    messages = [v.message for v in validate_manifest(manifest)]
    assert messages[1:] == ['label "kubernetes.io/hostname" is restricted']


def test_integral_floats_are_integers_as_pulumi_returns_them():
    manifest = node_pool()
    manifest["spec"]["weight"] = 50.0
    manifest["spec"]["template"]["spec"]["requirements"][1]["minValues"] = 2.0
    assert validate_manifest(manifest) == []
    manifest["spec"]["weight"] = 50.5
    [violation] = [v for v in validate_manifest(manifest) if v.path == "spec.weight"]
    assert violation.message == "Invalid value: 50.5: must be of type integer"


def test_structural_errors_quote_the_value():
    manifest = node_pool()
    manifest["spec"]["weight"] = 500
    manifest["spec"]["disruption"]["consolidationPolicy"] = "Sometimes"
    manifest["spec"]["template"]["spec"]["taints"][0]["effect"] = "NoWay"
    found = {v.path: v.message for v in validate_manifest(manifest)}
    assert found["spec.weight"] == "Invalid value: 500: should be less than or equal to 100"
    assert found["spec.disruption.consolidationPolicy"] == (
        'Unsupported value: "Sometimes": supported values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"'
    )
    assert found["spec.template.spec.taints[0].effect"].startswith('Unsupported value: "NoWay"')


def test_date_time_format():
    manifest = node_pool()
    taint = manifest["spec"]["template"]["spec"]["startupTaints"][0]
    taint["timeAdded"] = "2025-02-30T10:00:00Z"
    [violation, _skipped] = validate_manifest(manifest)
    assert (violation.path, violation.message) == (
        "spec.template.spec.startupTaints[0].timeAdded",
        'Invalid value: "2025-02-30T10:00:00Z": must be of type date-time',
    )
    taint["timeAdded"] = "2025-02-28T10:00:00.123+01:00"
    assert validate_manifest(manifest) == []


def test_blocking_structural_errors_skip_cel_like_the_api_server():
    manifest = node_pool()
    manifest["spec"]["template"]["metadata"]["labels"]["karpenter.sh/custom"] = "x"
    manifest["spec"]["template"]["spec"]["requirements"][0]["operator"] = "Maybe"
    violations = validate_manifest(manifest)
    assert [v.path for v in violations] == ["spec.template.spec.requirements[0].operator", ""]
    assert violations[1].message.startswith("some validation rules were not checked")


def test_non_blocking_structural_errors_let_cel_run():
    manifest = node_pool()
    manifest["spec"]["weight"] = 0  # minimum violation: "Invalid", not blocking
    manifest["spec"]["template"]["metadata"]["labels"]["karpenter.sh/custom"] = "x"
    assert [v.path for v in validate_manifest(manifest)] == [
        "spec.weight",
        "spec.template.metadata.labels",
    ]


def test_metadata_name_is_required_and_must_be_a_dns_subdomain():
    manifest = workload_priority_class()
    del manifest["metadata"]["name"]
    [violation] = validate_manifest(manifest)
    assert (violation.path, violation.message) == (
        "metadata.name",
        "Required value: name or generateName is required",
    )
    manifest["metadata"]["generateName"] = "prio-"
    assert validate_manifest(manifest) == []
    manifest["metadata"]["name"] = "High.Priority"
    [violation] = validate_manifest(manifest)
    assert violation.path == "metadata.name"
    assert violation.message.startswith(
        'Invalid value: "High.Priority": a lowercase RFC 1123 subdomain'
    )


def test_metadata_labels_annotations_and_namespace():
    manifest = local_queue()
    manifest["metadata"]["namespace"] = "Team_A"
    manifest["metadata"]["labels"] = {"bad key": "ok", "good": "bad value!"}
    manifest["metadata"]["annotations"] = {"example.com/x": "any value at all"}
    found = [(v.path, v.message.split(":")[1].strip()) for v in validate_manifest(manifest)]
    assert found == [
        ("metadata.namespace", '"Team_A"'),
        ("metadata.labels", '"bad key"'),
        ("metadata.labels", '"bad value!"'),
    ]


def test_validate_or_raise_lists_every_violation_readably():
    manifest = node_pool()
    manifest["spec"]["weight"] = 500
    manifest["spec"]["template"]["metadata"]["labels"]["kubernetes.io/hostname"] = "n1"
    with pytest.raises(ManifestInvalid) as raised:
        validate_or_raise(manifest)
    assert len(raised.value.violations) == 2
    assert str(raised.value) == (
        "2 manifest violations:\n"
        "  - NodePool/gpu-training spec.weight: Invalid value: 500: should be less than or equal to 100\n"
        '  - NodePool/gpu-training spec.template.metadata.labels: label "kubernetes.io/hostname" is restricted'
    )
    validate_or_raise(node_pool())


def test_validate_manifests_concatenates_in_order():
    bad_queue = local_queue()
    bad_queue["spec"]["clusterQueue"] = "Not_A_Name"
    bad_priority = workload_priority_class()
    bad_priority["value"] = "high"
    violations = validate_manifests([node_pool(), bad_queue, {"kind": "Secret"}, bad_priority])
    assert [(v.kind, v.path) for v in violations] == [
        ("LocalQueue", "spec.clusterQueue"),
        ("WorkloadPriorityClass", "value"),
    ]


def test_violation_is_a_frozen_value():
    violation = Violation("NodePool", "a", "spec", "bad", None)
    with pytest.raises(AttributeError):
        violation.message = "other"  # type: ignore[misc]
    assert str(violation) == "NodePool/a spec: bad"
    assert str(Violation("NodePool", "", "", "bad")) == "NodePool <object>: bad"


def test_a_manifest_must_be_a_dict():
    with pytest.raises(TypeError):
        validate_manifest(["not", "a", "manifest"])  # type: ignore[arg-type]
