"""Kueue v1beta2: CRD rules and the admission-webhook checks the CRDs cannot express."""

from __future__ import annotations

from typing import Any

import pytest
from crd_samples import cluster_queue, cohort, local_queue, resource_flavor
from nodepools.validation import validate_manifest

GPU_QUOTA = "spec.resourceGroups[0].flavors[0].resources[2]"


def _resources(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    return manifest["spec"]["resourceGroups"][0]["flavors"][0]["resources"]


def _only(
    manifest: dict[str, Any], old: dict[str, Any] | None = None
) -> tuple[str, str, str | None]:
    [violation] = validate_manifest(manifest, old=old)
    return violation.path, violation.message, violation.rule


# --- ClusterQueue: CRD rules --------------------------------------------------------


def test_borrowing_limit_without_cohort_is_rejected_by_the_crd():
    manifest = cluster_queue()
    del manifest["spec"]["cohortName"]
    del _resources(manifest)[2]["lendingLimit"]
    path, message, rule = _only(manifest)
    assert (path, message) == ("spec", "borrowingLimit must be nil when cohort is empty")
    assert rule is not None and rule.startswith("!has(self.cohortName)")


def test_nominal_quota_count_must_match_covered_resources():
    manifest = cluster_queue()
    _resources(manifest).pop()
    assert _only(manifest)[:2] == (
        "spec.resourceGroups[0]",
        "flavors must have the same number of resources as the coveredResources",
    )


def test_rules_read_defaulted_fields():
    # whenCanBorrow defaults to MayStopSearch, so a lone preference is rejected.
    manifest = cluster_queue()
    manifest["spec"]["flavorFungibility"] = {"preference": "BorrowingOverPreemption"}
    assert _only(manifest)[:2] == (
        "spec.flavorFungibility",
        "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor",
    )
    manifest["spec"]["flavorFungibility"].update(whenCanBorrow="TryNextFlavor")
    assert validate_manifest(manifest) == []


def test_reclaim_never_with_borrow_within_cohort():
    manifest = cluster_queue()
    manifest["spec"]["preemption"] = {
        "reclaimWithinCohort": "Never",
        "borrowWithinCohort": {"policy": "LowerPriority"},
    }
    assert _only(manifest)[:2] == (
        "spec.preemption",
        "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
    )


def test_duplicate_resource_in_a_flavor_breaks_the_list_map():
    manifest = cluster_queue()
    _resources(manifest)[1]["name"] = "cpu"
    violations = validate_manifest(manifest)
    assert (violations[0].path, violations[0].message) == (
        "spec.resourceGroups[0].flavors[0].resources[1]",
        'Duplicate value: {"name": "cpu"}',
    )


# --- ClusterQueue and Cohort: webhook -----------------------------------------------


def test_resource_order_must_equal_covered_resources():
    manifest = cluster_queue()
    resources = _resources(manifest)
    resources[0], resources[1] = resources[1], resources[0]
    violations = validate_manifest(manifest)
    assert [(v.path, v.message) for v in violations] == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].name",
            'Invalid value: "memory": must match the name in coveredResources',
        ),
        (
            "spec.resourceGroups[0].flavors[0].resources[1].name",
            'Invalid value: "cpu": must match the name in coveredResources',
        ),
    ]
    assert violations[0].rule == "kueue webhook validateFlavorQuotas"


def test_flavor_in_two_resource_groups():
    manifest = cluster_queue()
    manifest["spec"]["resourceGroups"].append(
        {
            "coveredResources": ["example.com/fpga"],
            "flavors": [
                {
                    "name": "gpu-training",
                    "resources": [{"name": "example.com/fpga", "nominalQuota": 2}],
                }
            ],
        }
    )
    assert _only(manifest)[:2] == (
        "spec.resourceGroups[1].flavors[0].name",
        'Duplicate value: "gpu-training"',
    )


def test_resource_in_two_resource_groups():
    manifest = cluster_queue()
    manifest["spec"]["resourceGroups"].append(
        {
            "coveredResources": ["cpu"],
            "flavors": [{"name": "cpu-only", "resources": [{"name": "cpu", "nominalQuota": 2}]}],
        }
    )
    assert _only(manifest)[:2] == (
        "spec.resourceGroups[1].coveredResources[0]",
        'Duplicate value: "cpu"',
    )


def test_lending_limit_above_nominal_quota_compares_quantities():
    manifest = cluster_queue()
    _resources(manifest)[2]["lendingLimit"] = 9
    assert _only(manifest) == (
        f"{GPU_QUOTA}.lendingLimit",
        "Invalid value: 9: must be less than or equal to the nominalQuota",
        "kueue webhook validateLendingLimit",
    )
    memory = _resources(manifest)[1]
    _resources(manifest)[2]["lendingLimit"] = 8
    memory["lendingLimit"] = "800Gi"  # > 768Gi
    assert _only(manifest)[0] == "spec.resourceGroups[0].flavors[0].resources[1].lendingLimit"
    memory["lendingLimit"] = "824633720832"  # exactly 768Gi
    assert validate_manifest(manifest) == []


def test_lending_limit_without_cohort_is_a_webhook_error():
    manifest = cluster_queue()
    del manifest["spec"]["cohortName"]
    del _resources(manifest)[2]["borrowingLimit"]
    assert _only(manifest) == (
        f"{GPU_QUOTA}.lendingLimit",
        "Invalid value: 4: must be nil when cohort is empty",
        "kueue webhook validateLimit",
    )


def test_negative_nominal_quota():
    manifest = cluster_queue()
    _resources(manifest)[0]["nominalQuota"] = "-500m"
    assert _only(manifest)[:2] == (
        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
        'Invalid value: "-500m": must be greater than or equal to 0',
    )


def test_covered_resource_names_are_qualified_names():
    manifest = cluster_queue()
    manifest["spec"]["resourceGroups"][0]["coveredResources"][2] = "nvidia.com/gpu/a100"
    _resources(manifest)[2]["name"] = "nvidia.com/gpu/a100"
    path, message, _ = _only(manifest)
    assert path == "spec.resourceGroups[0].coveredResources[2]"
    assert message.startswith(
        'Invalid value: "nvidia.com/gpu/a100": a qualified name must consist of'
    )


def test_namespace_selector_is_a_valid_label_selector():
    manifest = cluster_queue()
    manifest["spec"]["namespaceSelector"] = {
        "matchExpressions": [{"key": "team", "operator": "In"}]
    }
    assert _only(manifest)[:2] == (
        "spec.namespaceSelector.matchExpressions[0].values",
        "Required value: must be specified when `operator` is 'In' or 'NotIn'",
    )


def test_admission_check_on_unknown_flavor():
    manifest = cluster_queue()
    manifest["spec"]["admissionChecksStrategy"] = {
        "admissionChecks": [{"name": "provisioning", "onFlavors": ["gpu-training", "cpu"]}]
    }
    assert _only(manifest)[:2] == (
        "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[1]",
        'Unsupported value: "cpu": supported values: "gpu-training"',
    )


def test_fair_sharing_weight_too_small():
    manifest = cluster_queue()
    manifest["spec"]["fairSharing"] = {"weight": "1n"}
    assert _only(manifest)[:2] == (
        "spec.fairSharing",
        'Invalid value: "1n": When not 0, weight must be > 10e-9',
    )
    manifest["spec"]["fairSharing"] = {"weight": 0}
    assert validate_manifest(manifest) == []


def test_webhook_is_not_reached_when_the_crd_rejects():
    manifest = cluster_queue()
    resources = _resources(manifest)
    resources[0], resources[1] = resources[1], resources[0]  # webhook error...
    manifest["spec"]["queueingStrategy"] = "Random"  # ...hidden behind a CRD error
    assert [v.path for v in validate_manifest(manifest)] == ["spec.queueingStrategy", ""]


def test_concurrent_admission_policy_is_immutable_on_update():
    old = cluster_queue()
    new = cluster_queue()
    new["spec"]["concurrentAdmissionPolicy"] = {"migration": {"mode": "RetainFirstAdmission"}}
    assert _only(new, old=old)[:2] == (
        "spec.concurrentAdmissionPolicy",
        'Invalid value: {"migration": {"mode": "RetainFirstAdmission"}}: field is immutable',
    )
    assert validate_manifest(new) == []


def test_cohort_limits_need_a_parent():
    manifest = cohort()
    manifest["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = 4
    assert _only(manifest) == (
        "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit",
        "Invalid value: 4: must be nil when parent is empty",
        "kueue webhook validateLimit",
    )
    manifest["spec"]["parentName"] = "org"
    assert validate_manifest(manifest) == []


def test_cohort_lending_limit_may_exceed_nominal_quota():
    # enforceNominalGreaterThanLending is false for cohorts.
    manifest = cohort()
    manifest["spec"]["parentName"] = "org"
    manifest["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["lendingLimit"] = 32
    assert validate_manifest(manifest) == []


# --- ResourceFlavor -----------------------------------------------------------------

TOLERATIONS = "spec.tolerations"


@pytest.mark.parametrize(
    ("toleration", "message"),
    [
        (
            {"operator": "Equal", "value": "x"},
            "operator must be Exists when 'key' is empty, which means 'match all values and all keys'",
        ),
        (
            {
                "key": "a",
                "operator": "Equal",
                "value": "x",
                "effect": "NoSchedule",
                "tolerationSeconds": 5,
            },
            "effect must be 'NoExecute' when 'tolerationSeconds' is set",
        ),
        (
            {"key": "a", "operator": "Matches"},
            "supported toleration values: 'Equal'(default), 'Exists'",
        ),
        (
            {"key": "a", "operator": "Exists", "value": "x"},
            "a value must be empty when 'operator' is 'Exists'",
        ),
        (
            {"key": "a", "effect": "Sometimes"},
            "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'",
        ),
    ],
    ids=[
        "empty key needs Exists",
        "tolerationSeconds needs NoExecute",
        "bad operator",
        "Exists with value",
        "bad effect",
    ],
)
def test_toleration_rules(toleration, message):
    manifest = resource_flavor()
    manifest["spec"]["tolerations"].append(toleration)
    assert _only(manifest)[:2] == (TOLERATIONS, message)


def test_toleration_without_key_or_operator_is_an_evaluation_error():
    manifest = resource_flavor()
    manifest["spec"]["tolerations"].append({"effect": "NoSchedule"})
    path, message, _ = _only(manifest)
    assert path == TOLERATIONS
    assert message == (
        'Key not found in map : "operator" evaluating rule: '
        "operator must be Exists when 'key' is empty, which means 'match all values and all keys'"
    )


def test_toleration_key_must_be_a_label_name():
    manifest = resource_flavor()
    manifest["spec"]["tolerations"][0]["key"] = "nvidia.com/gpu/a100"
    path, message, _ = _only(manifest)
    assert path == "spec.tolerations[0].key"
    assert message.startswith('Invalid value: "nvidia.com/gpu/a100": a qualified name')


def test_node_labels_and_taints_are_validated_by_the_webhook():
    manifest = resource_flavor()
    manifest["spec"]["nodeLabels"]["pool"] = "gpu training"
    manifest["spec"]["nodeTaints"] = [
        {"key": "dedicated", "value": "ml", "effect": "NoSchedule"},
        {"key": "dedicated", "value": "infer", "effect": "NoSchedule"},
        {"key": "spot", "value": "yes please", "effect": "PreferNoSchedule"},
    ]
    found = [(v.path, v.message.split(":")[0]) for v in validate_manifest(manifest)]
    assert found == [
        ("spec.nodeLabels", "Invalid value"),
        ("spec.nodeTaints[1]", "Duplicate value"),
        ("spec.nodeTaints[2].value", "Invalid value"),
    ]


def test_node_taint_effect_rule():
    manifest = resource_flavor()
    manifest["spec"]["nodeTaints"] = [{"key": "a", "effect": "Never"}]
    assert _only(manifest)[:2] == (
        "spec.nodeTaints",
        "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'",
    )


def test_topology_needs_node_labels():
    manifest = resource_flavor()
    manifest["spec"]["nodeLabels"] = {}
    manifest["spec"]["topologyName"] = "default"
    assert _only(manifest)[:2] == (
        "spec",
        "at least one nodeLabel is required when topology is set",
    )


# --- LocalQueue -----------------------------------------------------------------------


def test_local_queue_cluster_queue_is_immutable_and_a_dns_name():
    old = local_queue()
    new = local_queue()
    new["spec"]["clusterQueue"] = "research-nlp"
    assert validate_manifest(new) == []
    assert _only(new, old=old)[:2] == ("spec.clusterQueue", "field is immutable")
    new["spec"]["clusterQueue"] = "Research"
    path, message, _ = _only(new)
    assert path == "spec.clusterQueue"
    assert message.startswith('Invalid value: "Research": should match')
