"""Karpenter's own examples (aws/karpenter-provider-aws@1d927085, `examples/v1/*.yaml`),
written with KarpenterNodePool: the NodePool's requirements, node class reference and
limits, and the whole EC2NodeClass spec, equal upstream's field by field.

Upstream's objects are transcribed below (with `${CLUSTER_NAME}` as `ml`). Ours differ only
by what we always write and say so: `disruption` spells out Karpenter's defaults
(`WhenEmptyOrUnderutilized`, `0s`).
"""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.backends.karpenter import render_manifests
from nodepools.specs.base import SpecError, parse_spec
from nodepools.specs.karpenter_args import KarpenterNodePoolArgs
from nodepools.specs.karpenter_resolve import resolve_karpenter_pool
from nodepools.validation import validate_manifest

ROLE = "KarpenterNodeRole-ml"
DISCOVERY = {"karpenter.sh/discovery": "ml"}
COMMON = [
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
    {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["2"]},
]
SPOT = [
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
]


def _class_spec(**extra: Any) -> dict[str, Any]:
    return {
        "role": ROLE,
        "subnetSelectorTerms": [{"tags": DISCOVERY}],
        "securityGroupSelectorTerms": [{"tags": DISCOVERY}],
        **extra,
    }


def _args_requirements(upstream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "key": r["key"],
            "operator": r["operator"],
            **({"values": r["values"]} if "values" in r else {}),
            **({"min_values": r["minValues"]} if "minValues" in r else {}),
        }
        for r in upstream
    ]


NODE_CLASS = {
    "role": ROLE,
    "subnet_selector_tags": DISCOVERY,
    "security_group_selector_tags": DISCOVERY,
}
AL2023_USER_DATA = (
    'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n--//\n'
    "Content-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\n"
    "kind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: Mount\n\n--//\n"
    'Content-Type: text/x-shellscript; charset="us-ascii"\n\n#!/bin/bash\n'
    'echo "Hello, AL2023!"\n--//\n'
)
CUSTOM_USER_DATA = (
    'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BOUNDARY"\n\n--BOUNDARY\n'
    'Content-Type: text/x-shellscript; charset="us-ascii"\n\n#!/bin/bash\n'
    "/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--node-labels=foo=bar'\n\n"
    "--BOUNDARY\n"
)

# (example file, our args, upstream NodePool spec parts, upstream EC2NodeClass spec or None)
EXAMPLES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any] | None]] = [
    (
        "general-purpose.yaml",
        {
            "node_class": {**NODE_CLASS, "name": "default"},
            "requirements": _args_requirements(COMMON),
        },
        {"requirements": COMMON, "class": "default"},
        _class_spec(amiSelectorTerms=[{"alias": "al2023@latest"}]),
    ),
    (
        "100-cpu-limit.yaml",
        {
            "node_class_name": "default",
            "requirements": _args_requirements(COMMON),
            "limits": {"cpu": 100},
        },
        {"requirements": COMMON, "class": "default", "limits": {"cpu": 100}},
        None,
    ),
    (
        "min-values-family.yaml",
        {
            "node_class_name": "default",
            "requirements": _args_requirements(
                [
                    *SPOT,
                    COMMON[3],
                    {
                        "key": "karpenter.k8s.aws/instance-family",
                        "operator": "Exists",
                        "minValues": 5,
                    },
                    COMMON[4],
                ]
            ),
        },
        {
            "requirements": [
                *SPOT,
                COMMON[3],
                {"key": "karpenter.k8s.aws/instance-family", "operator": "Exists", "minValues": 5},
                COMMON[4],
            ],
            "class": "default",
        },
        None,
    ),
    (
        "min-values-multiple-keys.yaml",
        {
            "node_class_name": "default",
            "requirements": _args_requirements(
                [
                    *SPOT,
                    {**COMMON[3], "minValues": 2},
                    {
                        "key": "karpenter.k8s.aws/instance-family",
                        "operator": "Exists",
                        "minValues": 5,
                    },
                    {
                        "key": "node.kubernetes.io/instance-type",
                        "operator": "Exists",
                        "minValues": 2,
                    },
                    COMMON[4],
                ]
            ),
        },
        {
            "requirements": [
                *SPOT,
                {**COMMON[3], "minValues": 2},
                {"key": "karpenter.k8s.aws/instance-family", "operator": "Exists", "minValues": 5},
                {"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": 2},
                COMMON[4],
            ],
            "class": "default",
        },
        None,
    ),
    (
        "large-instances.yaml",
        {
            "node_class_name": "default",
            "capacity_types": [],
            "requirements": [
                {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["3"]},
                {"key": "karpenter.k8s.aws/instance-memory", "operator": "Gt", "values": ["8191"]},
            ],
        },
        {
            "requirements": [
                {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["3"]},
                {"key": "karpenter.k8s.aws/instance-memory", "operator": "Gt", "values": ["8191"]},
            ],
            "class": "default",
        },
        None,
    ),
    (
        "al2023-custom-userdata.yaml",
        {
            "node_class": {**NODE_CLASS, "name": "al2023", "user_data": AL2023_USER_DATA},
            "requirements": _args_requirements(COMMON),
        },
        {"requirements": COMMON, "class": "al2023"},
        _class_spec(amiSelectorTerms=[{"alias": "al2023@latest"}], userData=AL2023_USER_DATA),
    ),
    (
        "custom-family.yaml",
        {
            "node_class": {
                **NODE_CLASS,
                "name": "custom-family",
                "ami_family": "Custom",
                "ami_selector_terms": [{"id": "ami-123"}, {"id": "ami-456"}],
                "user_data": CUSTOM_USER_DATA,
            },
            "requirements": _args_requirements(COMMON),
        },
        {"requirements": COMMON, "class": "custom-family"},
        _class_spec(
            amiFamily="Custom",
            amiSelectorTerms=[{"id": "ami-123"}, {"id": "ami-456"}],
            userData=CUSTOM_USER_DATA,
        ),
    ),
    (
        "multiple-ebs.yaml",
        {
            "node_class": {
                **NODE_CLASS,
                "name": "multiple-ebs",
                "block_device_mappings": [
                    {
                        "device_name": f"/dev/xvd{letter}",
                        "ebs": {
                            "volume_type": "gp3",
                            "volume_size": size,
                            "delete_on_termination": True,
                        },
                    }
                    for letter, size in (("a", "20Gi"), ("b", "100Gi"), ("c", "2000Gi"))
                ],
            },
            "requirements": _args_requirements(COMMON),
        },
        {"requirements": COMMON, "class": "multiple-ebs"},
        _class_spec(
            amiSelectorTerms=[{"alias": "al2023@latest"}],
            blockDeviceMappings=[
                {
                    "deviceName": f"/dev/xvd{letter}",
                    "ebs": {"volumeType": "gp3", "volumeSize": size, "deleteOnTermination": True},
                }
                for letter, size in (("a", "20Gi"), ("b", "100Gi"), ("c", "2000Gi"))
            ],
        ),
    ),
]


@pytest.mark.parametrize(
    ("example", "args", "pool", "node_class"), EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_upstream_example_reproduced_field_by_field(example, args, pool, node_class):
    args = {**args, "identity_label": False}
    resolved = resolve_karpenter_pool(parse_spec(KarpenterNodePoolArgs, args, example), "p")
    manifests = render_manifests(resolved)
    spec = manifests["node_pool"]["spec"]
    template = spec["template"]["spec"]
    assert template["requirements"] == pool["requirements"]
    assert template["nodeClassRef"] == {
        "group": "karpenter.k8s.aws",
        "kind": "EC2NodeClass",
        "name": pool["class"],
    }
    assert spec.get("limits") == pool.get("limits")
    assert spec["template"]["metadata"]["labels"] == {}  # identity_label: false, as upstream
    if node_class is None:
        assert "node_class" not in manifests
    else:
        assert manifests["node_class"]["metadata"]["name"] == pool["class"]
        assert manifests["node_class"]["spec"] == node_class
    for manifest in manifests.values():
        assert validate_manifest(manifest) == []


def test_without_identity_label_pods_select_the_nodepool_label():
    from nodepools.pools.karpenter_node_pool import karpenter_scheduling

    args = {"node_class_name": "default", "requirements": _args_requirements(COMMON)}
    plain = resolve_karpenter_pool(
        parse_spec(KarpenterNodePoolArgs, {**args, "identity_label": False}, "p"), "p"
    )
    assert karpenter_scheduling(plain).node_selector == {"karpenter.sh/nodepool": "p"}
    ours = resolve_karpenter_pool(parse_spec(KarpenterNodePoolArgs, args, "p"), "p")
    assert karpenter_scheduling(ours).node_selector == {
        "karpenter.sh/nodepool": "p",
        "nodepools.dev/pool": "p",
    }


def _problems(args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        resolve_karpenter_pool(
            parse_spec(KarpenterNodePoolArgs, {"node_class_name": "default", **args}, "p"), "p"
        )
    return {issue.path: issue.message for issue in raised.value.issues}


@pytest.mark.parametrize(
    ("requirements", "path", "message"),
    [
        (
            [{"key": "zone", "operator": "In", "values": []}],
            "requirements[0]",
            "operator 'In' must have a value defined",
        ),
        (
            [{"key": "x", "operator": "Gt", "values": ["1", "2"]}],
            "requirements[0]",
            "single positive integer value (got ['1', '2']",
        ),
        (
            [{"key": "x", "operator": "Lte", "values": ["1.5"]}],
            "requirements[0]",
            "single positive integer value (got ['1.5']",
        ),
        (
            [{"key": "x", "operator": "In", "values": ["a"], "min_values": 2}],
            "requirements[0]",
            "minValues 2 needs at least that many values",
        ),
        (
            [{"key": "x", "operator": "In", "values": ["a"], "min_values": 51}],
            "requirements[0].min_values",
            "50",
        ),
        ([{"key": "x", "operator": "Near", "values": ["a"]}], "requirements[0].operator", "'Near'"),
        (
            [{"key": "kubernetes.io/hostname", "operator": "Exists"}],
            "requirements[0].key",
            "'kubernetes.io/hostname' is restricted",
        ),
        (
            [{"key": "karpenter.sh/nodepool", "operator": "Exists"}],
            "requirements[0].key",
            "restricted",
        ),
        (
            [{"key": "karpenter.k8s.aws/made-up", "operator": "Exists"}],
            "requirements[0].key",
            'label domain "karpenter.k8s.aws" is restricted',
        ),
        ([{"key": "bad key", "operator": "Exists"}], "requirements[0].key", "'bad key'"),
        (
            [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["cheap"]}],
            "requirements[0]",
            "expected one of ['on-demand', 'reserved', 'spot']",
        ),
        (
            [
                {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["5"]},
                {"key": "karpenter.k8s.aws/instance-generation", "operator": "Lt", "values": ["3"]},
            ],
            "requirements[1]",
            "contradicts requirements[0] on 'karpenter.k8s.aws/instance-generation': no integer is at least 6 and at most 2",
        ),
        (
            [
                {"key": "team", "operator": "In", "values": ["a", "b"]},
                {"key": "team", "operator": "NotIn", "values": ["a", "b"]},
            ],
            "requirements[1]",
            "no value of `In` is left",
        ),
        (
            [{"key": "team", "operator": "Exists"}, {"key": "team", "operator": "DoesNotExist"}],
            "requirements[1]",
            "must not exist here",
        ),
        (
            [
                {
                    "key": "karpenter.k8s.aws/instance-cpu",
                    "operator": "In",
                    "values": ["4", "8", "16"],
                    "min_values": 2,
                },
                {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["8"]},
            ],
            "requirements[1]",
            "fewer than minValues 2 values are left",
        ),
    ],
)
def test_requirement_rules_name_the_path_and_quote_the_value(requirements, path, message):
    found = _problems({"requirements": requirements})
    assert path in found, found
    assert message in found[path], found[path]


def test_a_key_is_said_by_an_arg_or_a_requirement_not_both():
    found = _problems(
        {
            "instance_families": ["g5"],
            "requirements": [
                {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["p5"]}
            ],
        }
    )
    assert "set by `instance_families` (['g5'])" in found["requirements[0].key"]
    found = _problems(
        {
            "spot": {},
            "requirements": [
                {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}
            ],
        }
    )
    assert "set by `spot`" in found["requirements[0].key"]


def test_gpu_requirements_make_a_gpu_pool():
    # The accelerator taint, the GPU maker and the scheduling info follow requirements too.
    resolved = resolve_karpenter_pool(
        parse_spec(
            KarpenterNodePoolArgs,
            {
                "node_class_name": "default",
                "requirements": [
                    {
                        "key": "karpenter.k8s.aws/instance-family",
                        "operator": "In",
                        "values": ["p5", "g6e"],
                        "min_values": 2,
                    }
                ],
                "limits": {"nvidia.com/gpu": 16},
            },
            "p",
        ),
        "p",
    )
    assert [str(t) for t in resolved.taints] == ["nvidia.com/gpu=true:NoSchedule"]
    assert resolved.consolidation_policy == "WhenEmpty"
    requirement = resolved.requirements[-1].to_manifest()
    assert requirement == {
        "key": "karpenter.k8s.aws/instance-family",
        "operator": "In",
        "values": ["p5", "g6e"],
        "minValues": 2,
    }
    found = _problems(
        {
            "requirements": [
                {
                    "key": "karpenter.k8s.aws/instance-family",
                    "operator": "In",
                    "values": ["p5", "m5"],
                }
            ]
        }
    )
    assert "lets the pool launch nvidia.com/gpu instances" in found["requirements[0].values"]


def test_static_nodepool_rules_of_the_crd():
    resolved = resolve_karpenter_pool(
        parse_spec(
            KarpenterNodePoolArgs,
            {"node_class_name": "default", "replicas": 3, "limits": {"nodes": 5}},
            "p",
        ),
        "p",
    )
    manifest = render_manifests(resolved)["node_pool"]
    assert manifest["spec"]["replicas"] == 3 and validate_manifest(manifest) == []
    found = _problems({"replicas": 2, "limits": {"cpu": 4}})
    assert "only 'limits.nodes' is supported on static NodePools" in found["replicas"]
    found = _problems({"replicas": 2, "weight": 10})
    assert "'weight' is not supported on static NodePools" in found["weight"]


@pytest.mark.parametrize(
    ("node_class", "message"),
    [
        ({"ami_alias": "al2023@latest", "ami_selector_terms": [{"id": "ami-1"}]}, "not both"),
        ({"ami_selector_terms": [{"id": "ami-1"}]}, "must specify `ami_family`"),
        ({"ami_family": "Bottlerocket"}, "'al2023'"),
        (
            {"ami_selector_terms": [{"id": "ami-1", "name": "x"}], "ami_family": "Custom"},
            "mutually exclusive",
        ),
        (
            {
                "boot_volume_gb": 100,
                "block_device_mappings": [{"device_name": "/dev/xvda", "ebs": {"volume_size": 20}}],
            },
            "not both",
        ),
        (
            {
                "block_device_mappings": [
                    {"device_name": "/dev/xvda", "ebs": {"volume_type": "gp3"}}
                ]
            },
            "snapshotID or volumeSize",
        ),
        (
            {
                "block_device_mappings": [
                    {"device_name": "/dev/xvda", "ebs": {"volume_size": "65T"}}
                ]
            },
            "'65T'",
        ),
        (
            {
                "block_device_mappings": [
                    {"device_name": "/dev/xvda", "root_volume": True, "ebs": {"volume_size": 20}},
                    {"device_name": "/dev/xvdb", "root_volume": True, "ebs": {"volume_size": 20}},
                ]
            },
            "only one blockDeviceMappings with rootVolume",
        ),
        ({"name": "Default"}, "'Default' is not a Kubernetes object name"),
    ],
)
def test_node_class_rules_of_the_crd(node_class, message):
    with pytest.raises(SpecError) as raised:
        parse_spec(KarpenterNodePoolArgs, {"node_class": {**NODE_CLASS, **node_class}}, "p")
    assert message in str(raised.value)


def test_encrypted_is_written_as_the_user_sets_it():
    args = {
        "node_class": {
            **NODE_CLASS,
            "block_device_mappings": [
                {
                    "device_name": "/dev/xvda",
                    "root_volume": True,
                    "ebs": {"volume_size": 100, "encrypted": False},
                }
            ],
        }
    }
    manifests = render_manifests(
        resolve_karpenter_pool(parse_spec(KarpenterNodePoolArgs, args, "p"), "p")
    )
    assert manifests["node_class"]["spec"]["blockDeviceMappings"] == [
        {
            "deviceName": "/dev/xvda",
            "ebs": {"encrypted": False, "volumeSize": "100Gi"},
            "rootVolume": True,
        }
    ]
