"""Karpenter's own examples, written with KarpenterNodePool and emitted object for object.

`upstream_karpenter/` holds `examples/v1/*.yaml` of aws/karpenter-provider-aws@1d927085
(the files are the same in tag v1.14.1, bde00654), transcribed with `${CLUSTER_NAME}` as
`ml`. Each NodePool becomes one KarpenterNodePool whose args say what the example says
(`identity_label: false`, `capacity_types: []`, the requirements as written); the first
pool naming an EC2NodeClass of the file creates it (`node_class`), later ones name it
(`node_class_name`). The whole NodePool and the whole EC2NodeClass, metadata included, must
equal upstream's, and pass the vendored CRDs.

Every file of `examples/v1` is reproduced; one object differs, as the CRD requires:
windows-custom-userdata's NodePool names `group: karpenter.k8s.aws/v1`, which the NodePool
CRD refuses (`nodeClassRef.group` must have no `/`), and is written with `karpenter.k8s.aws`.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.backends.karpenter import render_manifests
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
from nodepools.specs.karpenter.resolve import resolve_karpenter_pool
from nodepools.validation import validate_manifest

UPSTREAM = Path(__file__).parent / "upstream_karpenter"
COMMON = [
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
    {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["2"]},
]
NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def _documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((UPSTREAM / name).read_text()) if d]


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


def _selector_tags(terms: list[dict[str, Any]]) -> list[dict[str, str]]:
    assert all(set(term) == {"tags"} for term in terms)
    return [term["tags"] for term in terms]


def _ebs(ebs: dict[str, Any]) -> dict[str, Any]:
    names = {
        "deleteOnTermination": "delete_on_termination",
        "encrypted": "encrypted",
        "iops": "iops",
        "kmsKeyID": "kms_key_id",
        "snapshotID": "snapshot_id",
        "throughput": "throughput",
        "volumeSize": "volume_size",
        "volumeType": "volume_type",
    }
    return {names[key]: value for key, value in ebs.items()}


def _node_class_args(doc: dict[str, Any]) -> dict[str, Any]:
    """The `node_class` args that say what an upstream EC2NodeClass says."""
    spec = dict(doc["spec"])
    args: dict[str, Any] = {
        "name": doc["metadata"]["name"],
        "role": spec.pop("role"),
        "subnet_selector_tags": _selector_tags(spec.pop("subnetSelectorTerms")),
        "security_group_selector_tags": _selector_tags(spec.pop("securityGroupSelectorTerms")),
    }
    if "annotations" in doc["metadata"]:
        args["annotations"] = doc["metadata"]["annotations"]
    terms = spec.pop("amiSelectorTerms")
    if [set(t) for t in terms] == [{"alias"}]:
        args["ami_alias"] = terms[0]["alias"]
    else:
        args["ami_selector_terms"] = terms
    for key, arg in (
        ("amiFamily", "ami_family"),
        ("userData", "user_data"),
        ("instanceStorePolicy", "instance_store_policy"),
    ):
        if key in spec:
            args[arg] = spec.pop(key)
    if "metadataOptions" in spec:
        names = {
            "httpEndpoint": "http_endpoint",
            "httpProtocolIPv6": "http_protocol_ipv6",
            "httpPutResponseHopLimit": "http_put_response_hop_limit",
            "httpTokens": "http_tokens",
        }
        args["metadata_options"] = {names[k]: v for k, v in spec.pop("metadataOptions").items()}
    if "blockDeviceMappings" in spec:
        args["block_device_mappings"] = [
            {
                "device_name": m["deviceName"],
                "ebs": _ebs(m["ebs"]),
                **({"root_volume": m["rootVolume"]} if "rootVolume" in m else {}),
            }
            for m in spec.pop("blockDeviceMappings")
        ]
    assert not spec, f"fields this test does not translate: {sorted(spec)}"
    return args


def _pool_args(doc: dict[str, Any], node_class: dict[str, Any] | None) -> dict[str, Any]:
    """The KarpenterNodePool args that say what an upstream NodePool says."""
    spec = dict(doc["spec"])
    template = dict(spec.pop("template"))
    template_spec = dict(template.pop("spec"))
    assert not template, template  # no template metadata in these examples
    ref = template_spec.pop("nodeClassRef")
    args: dict[str, Any] = {
        "pool_name": doc["metadata"]["name"],
        "identity_label": False,
        "capacity_types": [],
        "requirements": _args_requirements(template_spec.pop("requirements")),
    }
    if node_class is None:
        args["node_class_name"] = ref["name"]
    else:
        args["node_class"] = _node_class_args(node_class)
    if "annotations" in doc["metadata"]:
        args["annotations"] = doc["metadata"]["annotations"]
    for key, arg in (
        ("expireAfter", "expire_after"),
        ("terminationGracePeriod", "termination_grace_period"),
    ):
        if key in template_spec:
            args[arg] = template_spec.pop(key)
    for key, arg in (("limits", "limits"), ("weight", "weight")):
        if key in spec:
            args[arg] = spec.pop(key)
    if "disruption" in spec:
        disruption = spec.pop("disruption")
        args["disruption"] = {
            "consolidation_policy": disruption["consolidationPolicy"],
            "consolidate_after": disruption["consolidateAfter"],
        }
    assert not spec and not template_spec, (sorted(spec), sorted(template_spec))
    return args


EXAMPLES = sorted(path.name for path in UPSTREAM.glob("*.yaml"))


def _group_without_version(doc: dict[str, Any]) -> dict[str, Any]:
    if doc["kind"] != "NodePool":
        return doc
    fixed = copy.deepcopy(doc)
    fixed["spec"]["template"]["spec"]["nodeClassRef"]["group"] = "karpenter.k8s.aws"
    return fixed


# Upstream objects the CRD refuses, and what we write instead: windows-custom-userdata's
# NodePool names `group: karpenter.k8s.aws/v1`, which nodeClassRef.group's pattern `^[^/]*$`
# refuses (test_an_upstream_example_the_crd_refuses).
INVALID_UPSTREAM = {"windows-custom-userdata.yaml": _group_without_version}


def emit_example(example: str, documents: list[dict[str, Any]]) -> tuple[list[Any], set[str]]:
    """Each upstream NodePool of EXAMPLE rendered by our component (its manifests by role; a
    class shared by several pools is made by the first of them), and the classes made."""
    classes = {d["metadata"]["name"]: d for d in documents if d["kind"] == "EC2NodeClass"}
    rendered: list[Any] = []
    created: set[str] = set()
    for doc in (d for d in documents if d["kind"] == "NodePool"):
        class_name = doc["spec"]["template"]["spec"]["nodeClassRef"]["name"]
        node_class = None if class_name in created else classes[class_name]
        created.add(class_name)
        args = parse_spec(KarpenterNodePoolArgs, _pool_args(doc, node_class), example)
        rendered.append(render_manifests(resolve_karpenter_pool(args, doc["metadata"]["name"])))
    return rendered, created


@pytest.mark.parametrize("example", EXAMPLES)
def test_upstream_example_emitted_object_for_object(example):
    documents = _documents(example)
    rendered, created = emit_example(example, documents)
    emitted = [m[role] for m in rendered for role in ("node_class", "node_pool") if role in m]
    order = {id(d): i for i, d in enumerate(documents)}
    expected = [d for d in documents if d["kind"] == "NodePool" or d["metadata"]["name"] in created]
    if example in INVALID_UPSTREAM:
        expected = [INVALID_UPSTREAM[example](d) for d in expected]
    # Emitted in apply order (each class before the pool that creates it); compared as sets
    # of whole objects, each one equal to upstream's.
    key = lambda m: (m["kind"], m["metadata"]["name"])  # noqa: E731
    assert sorted(emitted, key=key) == sorted(expected, key=key)
    assert len(order) == len(documents)
    for manifest in emitted:
        assert validate_manifest(manifest) == []


def test_an_upstream_example_the_crd_refuses():
    [pool, _] = _documents("windows-custom-userdata.yaml")
    assert pool["spec"]["template"]["spec"]["nodeClassRef"]["group"] == "karpenter.k8s.aws/v1"
    [violation] = validate_manifest(pool)
    assert violation.path == "spec.template.spec.nodeClassRef.group"
    assert "karpenter.k8s.aws/v1" in violation.message
    assert validate_manifest(_group_without_version(pool)) == []


def test_custom_family_user_data_is_upstreams_string():
    # The user data is the example's block scalar as YAML reads it, every line of it
    # (an earlier transcription here had dropped the `echo` and the comment).
    [_, node_class] = _documents("custom-family.yaml")
    assert node_class["spec"]["userData"] == (
        'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BOUNDARY"\n\n--BOUNDARY\n'
        'Content-Type: text/x-shellscript; charset="us-ascii"\n\n#!/bin/bash\n'
        'echo "Running my custom set-up"\n\n# Have the kubelet label the node\n'
        "/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--node-labels=foo=bar'\n\n"
        "--BOUNDARY\n"
    )


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
            "requirements[0].values",
            "operator 'In' must have a value defined (got [] for zone)",
        ),
        (
            [{"key": "x", "operator": "Gt", "values": ["1", "2"]}],
            "requirements[0].values",
            "single positive integer value (got ['1', '2']",
        ),
        (
            [{"key": "x", "operator": "Lte", "values": ["1.5"]}],
            "requirements[0].values",
            "single positive integer value (got ['1.5']",
        ),
        (
            [{"key": "x", "operator": "In", "values": ["a"], "min_values": 2}],
            "requirements[0].min_values",
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
            "requirements[0].values",
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
            {"ami_selector_terms": [{"id": "ami-1", "name": "my-ami"}], "ami_family": "Custom"},
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


# aws/karpenter-provider-aws@1d927085 website/content/en/v1.14/concepts/nodeclasses.md,
# "spec.amiSelectorTerms" examples (select by name, by name and owner, by wildcard, all of
# an owner), and EC2 image names as AWS names them.
@pytest.mark.parametrize(
    "terms",
    [
        [{"name": "my-ami"}],
        [{"name": "my-ami", "owner": "self"}, {"name": "my-ami", "owner": "0123456789"}],
        [{"name": "*EKS*"}],
        [{"name": "*", "owner": "self"}],
        [{"name": "amazon-eks-node-al2023-*", "owner": "amazon"}],
        [{"name": "amazon-eks-node-al2023-x86_64-standard-1.33-v20250704"}],
        [{"name": "My Team's AMI (v2) [gpu]/2025.07@build_7"}],
        [{"name": "bottlerocket-aws-k8s-1.33-nvidia-x86_64-v1.4?.0-*"}],
    ],
)
def test_ami_names_as_ec2_and_karpenters_docs_write_them(terms):
    args = {"node_class": {**NODE_CLASS, "ami_family": "AL2023", "ami_selector_terms": terms}}
    resolved = resolve_karpenter_pool(parse_spec(KarpenterNodePoolArgs, args, "p"), "p")
    manifest = render_manifests(resolved)["node_class"]
    assert manifest["spec"]["amiSelectorTerms"] == terms
    assert validate_manifest(manifest) == []


@pytest.mark.parametrize(
    "name",
    ["ab", "x" * 129, "ami|prod", "ami,prod", "ami#1", "ami\tprod", "é-ami", ""],
)
def test_names_ec2_refuses_are_refused_quoting_them(name):
    args = {
        "node_class": {**NODE_CLASS, "ami_family": "AL2023", "ami_selector_terms": [{"name": name}]}
    }
    with pytest.raises(SpecError) as raised:
        parse_spec(KarpenterNodePoolArgs, args, "p")
    [issue] = raised.value.issues
    assert issue.path == "node_class.ami_selector_terms[0].name"
    assert issue.message.startswith(f"{name!r} is not an EC2 AMI name")
