"""Karpenter NodePool and EC2NodeClass: one rejected manifest per rule family of the CRDs.

Each case breaks a valid sample in one place and asserts the path and the upstream
message of the rule the API server would apply.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from crd_samples import ec2_node_class, node_pool
from nodepools.validation import validate_manifest

Manifest = dict[str, Any]


def _labels(m: Manifest) -> dict[str, str]:
    return m["spec"]["template"]["metadata"]["labels"]


def _requirements(m: Manifest) -> list[dict[str, Any]]:
    return m["spec"]["template"]["spec"]["requirements"]


LABELS = "spec.template.metadata.labels"
REQUIREMENTS = "spec.template.spec.requirements"
KARPENTER_SH_DOMAIN = 'label domain "karpenter.sh" is restricted'
AWS_DOMAIN = 'label domain "karpenter.k8s.aws" is restricted'
HOSTNAME = 'label "kubernetes.io/hostname" is restricted'
NODEPOOL_LABEL = 'label "karpenter.sh/nodepool" is restricted'

NODE_POOL_CASES: list[tuple[str, Callable[[Manifest], None], str, str]] = [
    (
        "label in karpenter.sh domain",
        lambda m: _labels(m).update({"karpenter.sh/team": "ml"}),
        LABELS,
        KARPENTER_SH_DOMAIN,
    ),
    (
        "label in a karpenter.sh subdomain",
        lambda m: _labels(m).update({"x.karpenter.sh/a": "b"}),
        LABELS,
        KARPENTER_SH_DOMAIN,
    ),
    (
        "label karpenter.sh/nodepool",
        lambda m: _labels(m).update({"karpenter.sh/nodepool": "x"}),
        LABELS,
        NODEPOOL_LABEL,
    ),
    (
        "label kubernetes.io/hostname",
        lambda m: _labels(m).update({"kubernetes.io/hostname": "n"}),
        LABELS,
        HOSTNAME,
    ),
    (
        "label in karpenter.k8s.aws domain",
        lambda m: _labels(m).update({"karpenter.k8s.aws/pool": "x"}),
        LABELS,
        AWS_DOMAIN,
    ),
    (
        "requirement key in karpenter.sh domain",
        lambda m: _requirements(m)[0].update(key="karpenter.sh/zone"),
        f"{REQUIREMENTS}[0].key",
        KARPENTER_SH_DOMAIN,
    ),
    (
        "requirement key kubernetes.io/hostname",
        lambda m: _requirements(m)[2].update(key="kubernetes.io/hostname"),
        f"{REQUIREMENTS}[2].key",
        HOSTNAME,
    ),
    (
        "requirement key outside the aws allow-list",
        lambda m: _requirements(m)[1].update(key="karpenter.k8s.aws/instance-color"),
        f"{REQUIREMENTS}[1].key",
        AWS_DOMAIN,
    ),
    (
        "In with an empty values list",
        lambda m: _requirements(m)[2].update(values=[]),
        REQUIREMENTS,
        "requirements with operator 'In' must have a value defined",
    ),
    (
        "minValues above the number of values",
        lambda m: _requirements(m)[1].update(minValues=3),
        REQUIREMENTS,
        "requirements with 'minValues' must have at least that many values specified in the 'values' field",
    ),
    (
        "Gt with two values",
        lambda m: _requirements(m)[3].update(values=["4", "5"]),
        REQUIREMENTS,
        "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value",
    ),
    (
        "budget schedule without duration",
        lambda m: m["spec"]["disruption"]["budgets"][1].pop("duration"),
        "spec.disruption.budgets",
        "'schedule' must be set with 'duration'",
    ),
    (
        "budget duration without schedule",
        lambda m: m["spec"]["disruption"]["budgets"][0].update(duration="1h"),
        "spec.disruption.budgets",
        "'schedule' must be set with 'duration'",
    ),
    (
        "static pool with weight",
        lambda m: m["spec"].update(replicas=2, limits={"nodes": 4}),
        "spec",
        "'weight' is not supported on static NodePools",
    ),
    (
        "static pool with resource limits",
        lambda m: (m["spec"].pop("weight"), m["spec"].update(replicas=2)),
        "spec",
        "only 'limits.nodes' is supported on static NodePools",
    ),
    (
        "empty nodeClassRef name",
        lambda m: m["spec"]["template"]["spec"]["nodeClassRef"].update(name=""),
        "spec.template.spec.nodeClassRef.name",
        "name may not be empty",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "path", "message"),
    [c[1:] for c in NODE_POOL_CASES],
    ids=[c[0] for c in NODE_POOL_CASES],
)
def test_node_pool_rule(mutate, path, message):
    manifest = node_pool()
    mutate(manifest)
    violations = validate_manifest(manifest)
    assert [(v.path, v.message) for v in violations] == [(path, message)]
    assert violations[0].rule is not None and "self" in violations[0].rule


def test_allowed_karpenter_labels_pass():
    manifest = node_pool()
    _labels(manifest).update(
        {"karpenter.sh/capacity-type": "spot", "karpenter.k8s.aws/instance-family": "g5"}
    )
    _requirements(manifest)[2]["key"] = "karpenter.k8s.aws/instance-gpu-count"
    assert validate_manifest(manifest) == []


def test_in_without_values_is_an_evaluation_error_and_a_rejection():
    manifest = node_pool()
    del _requirements(manifest)[2]["values"]
    [violation] = validate_manifest(manifest)
    assert violation.path == REQUIREMENTS
    assert violation.message == (
        'Key not found in map : "values" evaluating rule: '
        "requirements with operator 'In' must have a value defined"
    )
    assert violation.rule == "self.all(x, x.operator == 'In' ? x.values.size() != 0 : true)"


def test_gt_with_a_non_integer_value_is_an_evaluation_error():
    manifest = node_pool()
    _requirements(manifest)[3]["values"] = ["four"]
    [violation] = validate_manifest(manifest)
    assert violation.path == REQUIREMENTS
    assert violation.message == (
        "cannot convert string to int evaluating rule: requirements operator 'Gt', 'Lt', "
        "'Gte', or 'Lte' must have a single positive integer value"
    )


def test_empty_taint_value_is_rejected_by_the_pattern():
    manifest = node_pool()
    manifest["spec"]["template"]["spec"]["taints"][0]["value"] = ""
    [violation] = validate_manifest(manifest)
    assert violation.path == "spec.template.spec.taints[0].value"
    assert violation.message.startswith('Invalid value: "": should match \'^([a-z0-9]')
    assert violation.rule is None


def test_a_pattern_error_does_not_stop_cel():
    manifest = node_pool()
    manifest["spec"]["template"]["spec"]["taints"][0]["value"] = ""
    _labels(manifest)["kubernetes.io/hostname"] = "n1"
    assert [v.path for v in validate_manifest(manifest)] == [
        "spec.template.spec.taints[0].value",
        LABELS,
    ]


def test_taint_without_value_is_fine():
    manifest = node_pool()
    del manifest["spec"]["template"]["spec"]["taints"][0]["value"]
    assert validate_manifest(manifest) == []


def test_disruption_block_without_consolidate_after_is_required():
    manifest = node_pool()
    del manifest["spec"]["disruption"]["consolidateAfter"]
    required, skipped = validate_manifest(manifest)
    assert (required.path, required.message) == (
        "spec.disruption.consolidateAfter",
        "Required value",
    )
    # Required is a blocking error: the API server does not evaluate CEL after it.
    assert (skipped.path, skipped.rule) == ("", None)
    assert skipped.message.startswith("some validation rules were not checked")


def test_bad_durations_follow_the_go_patterns():
    manifest = node_pool()
    manifest["spec"]["disruption"]["consolidateAfter"] = "10 minutes"
    manifest["spec"]["template"]["spec"]["expireAfter"] = "720h\n"
    paths = [v.path for v in validate_manifest(manifest)]
    assert paths == ["spec.disruption.consolidateAfter", "spec.template.spec.expireAfter"]


def test_static_to_dynamic_transition_rule_only_on_update():
    static = node_pool()
    del static["spec"]["weight"]
    static["spec"]["replicas"] = 2
    static["spec"]["limits"] = {"nodes": 4}
    assert validate_manifest(static) == []  # create: the oldSelf rule is skipped
    [violation] = validate_manifest(static, old=node_pool())
    assert violation.path == "spec"
    assert violation.message == (
        "Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes"
    )
    assert validate_manifest(static, old=static) == []


def test_node_class_ref_kind_is_immutable_on_update():
    old = node_pool()
    new = node_pool()
    new["spec"]["template"]["spec"]["nodeClassRef"]["kind"] = "OtherNodeClass"
    [violation] = validate_manifest(new, old=old)
    assert (violation.path, violation.message) == (
        "spec.template.spec.nodeClassRef",
        "nodeClassRef.kind is immutable",
    )


def test_replicas_above_int32_are_rejected_by_the_scale_subresource():
    manifest = node_pool()
    del manifest["spec"]["weight"]
    manifest["spec"]["limits"] = {"nodes": 4}
    manifest["spec"]["replicas"] = 2**31
    [violation] = validate_manifest(manifest)
    assert (violation.path, violation.message) == (
        "spec.replicas",
        "Invalid value: 2147483648: should be less than or equal to 2147483647",
    )


# --- EC2NodeClass ---------------------------------------------------------------------

AMI_TERMS = "spec.amiSelectorTerms"

EC2_CASES: list[tuple[str, Callable[[Manifest], None], str, str]] = [
    (
        "role and instanceProfile",
        lambda m: m["spec"].update(instanceProfile="p"),
        "spec",
        "must specify exactly one of ['role', 'instanceProfile']",
    ),
    (
        "neither role nor instanceProfile",
        lambda m: m["spec"].pop("role"),
        "spec",
        "must specify exactly one of ['role', 'instanceProfile']",
    ),
    ("empty role", lambda m: m["spec"].update(role=""), "spec.role", "role cannot be empty"),
    (
        "alias with other terms",
        lambda m: m["spec"]["amiSelectorTerms"].append({"id": "ami-0123"}),
        AMI_TERMS,
        "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
    ),
    (
        "alias with tags in the same term",
        lambda m: m["spec"]["amiSelectorTerms"][0].update(tags={"a": "b"}),
        AMI_TERMS,
        "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms",
    ),
    (
        "alias without version",
        lambda m: m["spec"]["amiSelectorTerms"][0].update(alias="al2023"),
        f"{AMI_TERMS}[0].alias",
        "'alias' is improperly formatted, must match the format 'family@version'",
    ),
    (
        "alias of an unknown family",
        lambda m: m["spec"]["amiSelectorTerms"][0].update(alias="ubuntu@latest"),
        f"{AMI_TERMS}[0].alias",
        "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'",
    ),
    (
        "windows alias pinned to a version",
        lambda m: m["spec"]["amiSelectorTerms"][0].update(alias="windows2022@v20240101"),
        f"{AMI_TERMS}[0].alias",
        "windows families may only specify version 'latest'",
    ),
    (
        "amiFamily contradicting the alias",
        lambda m: m["spec"].update(amiFamily="Bottlerocket"),
        "spec",
        "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias",
    ),
    (
        "ami term without alias needs amiFamily",
        lambda m: m["spec"].update(amiSelectorTerms=[{"tags": {"os": "ubuntu"}}]),
        "spec",
        "must specify amiFamily if amiSelectorTerms does not contain an alias",
    ),
    (
        "empty ami selector term",
        lambda m: m["spec"].update(amiSelectorTerms=[{}], amiFamily="AL2023"),
        AMI_TERMS,
        "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']",
    ),
    (
        "empty subnet selector term",
        lambda m: m["spec"].update(subnetSelectorTerms=[{}]),
        "spec.subnetSelectorTerms",
        "expected at least one, got none, ['tags', 'id']",
    ),
    (
        "empty security group selector term",
        lambda m: m["spec"].update(securityGroupSelectorTerms=[{}]),
        "spec.securityGroupSelectorTerms",
        "expected at least one, got none, ['tags', 'id', 'name']",
    ),
    (
        "empty selector tag value",
        lambda m: m["spec"]["subnetSelectorTerms"][0]["tags"].update(tier=""),
        "spec.subnetSelectorTerms[0].tags",
        "empty tag keys or values aren't supported",
    ),
    (
        "tag kubernetes.io/cluster/...",
        lambda m: m["spec"]["tags"].update({"kubernetes.io/cluster/ml": "owned"}),
        "spec.tags",
        "tag contains a restricted tag matching kubernetes.io/cluster/",
    ),
    (
        "tag karpenter.sh/nodepool",
        lambda m: m["spec"]["tags"].update({"karpenter.sh/nodepool": "x"}),
        "spec.tags",
        "tag contains a restricted tag matching karpenter.sh/nodepool",
    ),
    (
        "tag eks:eks-cluster-name",
        lambda m: m["spec"]["tags"].update({"eks:eks-cluster-name": "x"}),
        "spec.tags",
        "tag contains a restricted tag matching eks:eks-cluster-name",
    ),
    (
        "two root volumes",
        lambda m: m["spec"]["blockDeviceMappings"].append(
            {"deviceName": "/dev/xvdb", "rootVolume": True, "ebs": {"volumeSize": "10Gi"}}
        ),
        "spec.blockDeviceMappings",
        "must have only one blockDeviceMappings with rootVolume",
    ),
    (
        "ebs without size or snapshot",
        lambda m: m["spec"]["blockDeviceMappings"][0]["ebs"].pop("volumeSize"),
        "spec.blockDeviceMappings[0].ebs",
        "snapshotID or volumeSize must be defined",
    ),
    (
        "kubelet image GC thresholds inverted",
        lambda m: m["spec"].update(
            kubelet={"imageGCHighThresholdPercent": 50, "imageGCLowThresholdPercent": 80}
        ),
        "spec.kubelet",
        "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent",
    ),
    (
        "negative kubeReserved",
        lambda m: m["spec"].update(kubelet={"kubeReserved": {"cpu": "-1"}}),
        "spec.kubelet.kubeReserved",
        "kubeReserved value cannot be a negative resource quantity",
    ),
    (
        "placement group by name and id",
        lambda m: m["spec"].update(placementGroupSelector={"name": "a", "id": "pg-1"}),
        "spec.placementGroupSelector",
        "'name' and 'id' are mutually exclusive",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "path", "message"), [c[1:] for c in EC2_CASES], ids=[c[0] for c in EC2_CASES]
)
def test_ec2_node_class_rule(mutate, path, message):
    manifest = ec2_node_class()
    mutate(manifest)
    violations = validate_manifest(manifest)
    assert [(v.path, v.message) for v in violations] == [(path, message)]


def test_empty_subnet_selector_list_trips_two_upstream_rules():
    # `!self.all(x, ...)` is false on an empty list, so the API server reports the
    # "mutually exclusive" rule as well; the validator must say exactly the same.
    manifest = ec2_node_class()
    manifest["spec"]["subnetSelectorTerms"] = []
    assert [v.message for v in validate_manifest(manifest)] == [
        "subnetSelectorTerms cannot be empty",
        "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term",
    ]


def test_ebs_volume_size_pattern():
    manifest = ec2_node_class()
    manifest["spec"]["blockDeviceMappings"][0]["ebs"]["volumeSize"] = "70000Gi"
    [violation] = validate_manifest(manifest)
    assert violation.path == "spec.blockDeviceMappings[0].ebs.volumeSize"
    assert violation.message.startswith('Invalid value: "70000Gi": should match')
