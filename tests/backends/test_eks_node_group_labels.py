"""What an EKS node group's labels and taints must be: EKS's own limits, checked before
anything is registered (and only on EKS), and the autoscaler's GPU label, always a valid
label value whatever the accelerator's free-text model."""

from __future__ import annotations

import base64
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from nodepools import GpuSpotPool, MachinePool, SharedNodePool
from nodepools.offline import ProgramError, run
from nodepools.specs.catalog.accelerators import CATALOG
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.labels import label_value_problem
from nodepools.specs.pools.args import GpuSpotPoolArgs
from nodepools.specs.pools.eks_tags import gpu_label_value, node_labels
from nodepools.specs.pools.resolve import resolve_gpu_spot_pool
from nodepools.specs.pools.resolved_checks import resolved_pool_issues
from nodepools.specs.pools.shared import SharedNodePoolArgs, resolve_shared_pool

from tests.conftest import EKS, OKE

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
GPU_LABEL = "k8s.amazonaws.com/accelerator"
CA_GPU_LABEL_TAG = "k8s.io/cluster-autoscaler/node-template/label/" + GPU_LABEL
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291", "multi_az": False}
# 64 and 68 characters: valid Kubernetes keys (a prefix before a name of at most 63), too
# long for EKS (at most 63 in all).
KEY_64 = "team.example.com/" + "n" * 47
KEY_68 = "nodepools-team.example.com/" + "n" * 41
RTX = {"resource": "nvidia.com/gpu", "count": 1, "vendor": "nvidia", "model": "RTX PRO 6000 Blackwell"}  # fmt: skip


def problems(component: Any, args: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as raised:
        component.preflight("pool", args)
    return [(issue.path, issue.message) for issue in raised.value.issues]


def eks(**args: Any) -> dict[str, Any]:
    return {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, **args}


# -- the GPU label ----------------------------------------------------------------------


def test_a_free_text_model_gives_a_valid_gpu_label_on_the_group_and_its_template_tag():
    capture = run(
        lambda: MachinePool(
            "rtx",
            {
                "cluster": EKS,
                "instance_type": "g5.xlarge",
                "accelerator": RTX,
                "autoscaling": {"min_replicas": 0, "max_replicas": 2},
            },
        )
    )
    (group,) = capture.by_type(NODE_GROUP)
    assert group.inputs["labels"][GPU_LABEL] == "nvidia-rtx-pro-6000-blackwell"
    tags = {
        r.inputs["tag"]["key"]: r.inputs["tag"]["value"]
        for r in capture.by_type("aws:autoscaling/tag:Tag")
    }
    assert tags[CA_GPU_LABEL_TAG] == "nvidia-rtx-pro-6000-blackwell"


def test_a_custom_amis_kubelet_gets_the_same_valid_gpu_label():
    cluster = {
        **EKS,
        "endpoint": "https://ABC.gr7.us-east-1.eks.amazonaws.com",
        "certificate_authority": "Y2VydA==",
        "service_cidr": "10.100.0.0/16",
    }
    args = {"cluster": cluster, "instance_type": "g5.xlarge", "accelerator": RTX, "replicas": 1}
    capture = run(lambda: MachinePool("rtx", {**args, "ami_id": "ami-0123456789abcdef0"}))
    (template,) = capture.by_type(TEMPLATE)
    user_data = base64.b64decode(template.inputs["userData"]).decode()
    config = yaml.safe_load(user_data.split("application/node.eks.aws\n\n", 1)[1].split("\n--")[0])
    (labels,) = [f for f in config["spec"]["kubelet"]["flags"] if f.startswith("--node-labels=")]
    assert f"{GPU_LABEL}=nvidia-rtx-pro-6000-blackwell," in labels


@pytest.mark.parametrize(
    ("vendor", "model", "value"),
    [
        ("nvidia", "A10G", "nvidia-a10g"),  # catalog models: as before
        ("nvidia", "A100-40GB", "nvidia-a100-40gb"),
        ("amd", "MI300X", "amd-mi300x"),
        ("nvidia", "", "nvidia"),
        ("nvidia", "RTX PRO 6000 Blackwell", "nvidia-rtx-pro-6000-blackwell"),
        ("nvidia", "H100 (SXM5, 80 GB)", "nvidia-h100-sxm5-80-gb"),
        ("nvidia", "GH200 / Grace-Hopper", "nvidia-gh200-grace-hopper"),
        ("nvidia", "?!", "nvidia"),
        ("nvidia", "x" * 70, "nvidia-" + "x" * 56),  # cut to 63 characters
        ("nvidia", "y" * 55 + " z", "nvidia-" + "y" * 55),  # no `-` left at the end
    ],
)
def test_gpu_label_value(vendor, model, value):
    assert gpu_label_value(vendor, model) == value
    assert label_value_problem(value) is None


def test_every_catalog_model_keeps_its_label():
    for accelerator in CATALOG.values():
        if accelerator.model:
            expected = f"{accelerator.vendor}-{accelerator.model.lower()}"
            assert gpu_label_value(accelerator.vendor, accelerator.model) == expected


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["nvidia", "amd"]), st.text(max_size=120))
def test_any_model_gives_a_valid_label_value(vendor, model):
    value = gpu_label_value(vendor, model)
    assert label_value_problem(value) is None
    assert value and value.startswith(vendor)


# -- EKS's limits -------------------------------------------------------------------------


def test_a_label_key_longer_than_63_characters_is_refused_on_eks():
    [(path, message)] = problems(MachinePool, eks(labels={KEY_68: "ml"}))
    assert path == f'labels["{KEY_68}"]'
    assert f"label key {KEY_68!r} is 68 characters long" in message
    assert "at most 63" in message


def test_an_empty_label_value_is_refused_on_eks():
    assert label_value_problem("") is None  # Kubernetes takes it; EKS does not
    [(path, message)] = problems(MachinePool, eks(labels={"team": ""}))
    assert path == "labels.team"
    assert "label 'team' has the empty value ''" in message


def test_a_taint_key_longer_than_63_characters_is_refused_on_eks():
    taints = ["a=b:NoSchedule", f"{KEY_68}=true:NoSchedule"]
    [(path, message)] = problems(MachinePool, eks(taints=taints))
    assert path == "taints[1].key"
    assert f"taint key {KEY_68!r} is 68 characters long" in message


def test_every_problem_is_reported_at_once_before_anything_is_registered():
    args = eks(labels={KEY_64: "x", "team": ""}, taints=[f"{KEY_64}:NoExecute"])
    found = problems(MachinePool, args)
    assert [path for path, _ in found] == ["labels.team", f'labels["{KEY_64}"]', "taints[0].key"]
    with pytest.raises(ProgramError, match="3 problems") as raised:
        run(lambda: MachinePool("pool", args))
    assert raised.value.capture.resources == []


def test_more_than_50_taints_are_refused_the_defaults_counted():
    taints = [f"t{i}=v:NoSchedule" for i in range(49)]
    MachinePool.preflight("pool", eks(taints=[*taints, "t49=v:NoSchedule"]))  # 50: fine
    # A GpuSpotPool adds its accelerator and spot taints: 51.
    found = dict(problems(GpuSpotPool, {"cluster": EKS, "instance_type": "g5.xlarge", "taints": taints}))  # fmt: skip
    assert found["taints"].startswith("51 taints (the pool's defaults included)")
    assert "at most 50" in found["taints"]
    # ... and, autoscaled, one scale-from-zero tag each on its Auto Scaling group.
    assert "would put 60 tags on its Auto Scaling group" in found["labels"]


def test_a_shared_pool_on_eks_is_checked_too():
    args = {"cluster": EKS, "shape": "g5.xlarge", "size": 1, "labels": {KEY_68: "ml"}}
    [(path, _)] = problems(SharedNodePool, args)
    assert path == f'labels["{KEY_68}"]'


def test_63_characters_pass():
    key = "team.example.com/" + "n" * 46
    assert len(key) == 63
    MachinePool.preflight("pool", eks(labels={key: "v" * 63}, taints=[f"{key}=v:NoSchedule"]))


@pytest.mark.parametrize(
    ("component", "args"),
    [
        (
            MachinePool,
            {
                "cluster": OKE,
                "instance_type": "VM.Standard.E4.Flex",
                "ocpus": 2,
                "memory_gb": 16,
                "replicas": 1,
            },
        ),
        (MachinePool, {"cluster": ROSA, "instance_type": "m5.xlarge", "replicas": 1}),
    ],
)
def test_other_clouds_keep_their_own_rules(component, args):
    # EKS's limits are EKS's: a long Kubernetes key is valid on OKE and ROSA.
    component.preflight("pool", {**args, "labels": {KEY_68: "ml"}, "taints": [f"{KEY_68}:NoSchedule"]})  # fmt: skip


# Every accelerated EC2 type of the catalog (OCI shapes start `VM.` / `BM.`).
EC2_ACCELERATED = sorted(t for t in CATALOG if not t.startswith(("VM.", "BM.")))


@pytest.mark.parametrize("instance_type", EC2_ACCELERATED)
def test_what_the_library_adds_never_trips_the_limits(instance_type):
    # Defaults of a GpuSpotPool (label, accelerator and spot taints, the GPU label) and of a
    # SharedNodePool (shared-pool and selector labels) with the longest pool name.
    name = "p" * 63
    gpu = resolve_gpu_spot_pool(
        GpuSpotPoolArgs.model_validate({"cluster": EKS, "instance_type": instance_type}), name
    )
    shared_args = {"cluster": EKS, "shape": instance_type, "size": 1, "boot_volume_gb": 200}
    shared = resolve_shared_pool(
        SharedNodePoolArgs.model_validate({**shared_args, "selector": "s" * 63, "spot": {}}),
        name,
    )
    for pool in (gpu, shared):
        assert resolved_pool_issues(pool) == [], pool
        # what the backend sends, its own GPU label included, within EKS's label limits
        sent = node_labels(pool)
        assert all(value and len(key) <= 63 for key, value in sent.items()), sent
