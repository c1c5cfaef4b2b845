"""The EKS AMI type follows the pool's architecture and accelerator (issue 12)."""

from __future__ import annotations

import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def _ami_type(component, args: dict, cluster: dict | None = None) -> str | None:
    capture = run(lambda: component("pool", {"cluster": cluster or EKS, **args}))
    return capture.get(NODE_GROUP, "pool-node-group").inputs.get("amiType")


@pytest.mark.parametrize("instance_type", ["m7g.large", "c7g.xlarge", "t4g.medium"])
def test_graviton_cpu_pools_get_the_arm_ami(instance_type):
    assert _ami_type(MachinePool, {"instance_type": instance_type, "replicas": 1}) == (
        "AL2023_ARM_64_STANDARD"
    )


def test_g5g_gets_the_arm_nvidia_ami_with_or_without_an_explicit_accelerator():
    assert _ami_type(GpuSpotPool, {"instance_type": "g5g.xlarge"}) == "AL2023_ARM_64_NVIDIA"
    explicit = {"resource": "nvidia.com/gpu", "count": 1}
    assert _ami_type(GpuSpotPool, {"instance_type": "g5g.xlarge", "accelerator": explicit}) == (
        "AL2023_ARM_64_NVIDIA"
    )


@pytest.mark.parametrize(
    ("instance_type", "ami_type"),
    [
        ("g5.xlarge", "AL2023_x86_64_NVIDIA"),
        ("p5.4xlarge", "AL2023_x86_64_NVIDIA"),
        ("trn2.48xlarge", "AL2023_x86_64_NEURON"),
        ("inf2.xlarge", "AL2023_x86_64_NEURON"),
        ("p6e-gb200.36xlarge", "AL2023_ARM_64_NVIDIA"),
    ],
)
def test_accelerated_pools_get_the_ami_of_their_architecture_and_accelerator(
    instance_type, ami_type
):
    assert _ami_type(GpuSpotPool, {"instance_type": instance_type}) == ami_type


def test_x86_cpu_pools_keep_eks_default():
    assert _ami_type(MachinePool, {"instance_type": "m5.large", "replicas": 1}) is None


def test_a_cluster_ami_type_of_another_architecture_is_an_error_quoting_both():
    cluster = {**EKS, "ami_type": "AL2023_ARM_64_STANDARD"}
    with pytest.raises(SpecError) as raised:
        MachinePool.resolve(
            "pool", {"cluster": cluster, "instance_type": "g5.xlarge", "replicas": 1}
        )
    (issue,) = raised.value.issues
    assert issue.path == "instance_type"
    assert "'g5.xlarge' is an x86_64 instance type" in issue.message
    assert "`cluster.ami_type` 'AL2023_ARM_64_STANDARD' is an arm64 AMI" in issue.message


def test_a_cluster_ami_type_of_the_same_architecture_is_used():
    cluster = {**EKS, "ami_type": "BOTTLEROCKET_ARM_64_NVIDIA"}
    assert _ami_type(GpuSpotPool, {"instance_type": "g5g.2xlarge"}, cluster) == (
        "BOTTLEROCKET_ARM_64_NVIDIA"
    )
    custom = {**EKS, "ami_type": "CUSTOM"}
    assert _ami_type(MachinePool, {"instance_type": "m7g.large", "replicas": 1}, custom) == "CUSTOM"


def test_gpu_node_groups_carry_the_autoscalers_gpu_label_and_cpu_ones_do_not():
    from nodepools import MachinePool
    from nodepools.offline import run

    from tests.conftest import EKS

    def program():
        MachinePool("gpu", {"cluster": EKS, "instance_type": "p5.48xlarge", "autoscaling": {"min_replicas": 0, "max_replicas": 2}})  # fmt: skip
        MachinePool("trn", {"cluster": EKS, "instance_type": "trn1.32xlarge", "replicas": 1})
        MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})

    capture = run(program)
    labels = {r.name: r.inputs["labels"] for r in capture.by_type("aws:eks/nodeGroup:NodeGroup")}
    assert labels["gpu-node-group"]["k8s.amazonaws.com/accelerator"] == "nvidia-h100"
    assert "k8s.amazonaws.com/accelerator" not in labels["trn-node-group"]  # Neuron: no GPU
    assert "k8s.amazonaws.com/accelerator" not in labels["cpu-node-group"]
    tags = {r.inputs["tag"]["key"]: r.inputs["tag"]["value"] for r in capture.by_type("aws:autoscaling/tag:Tag")}  # fmt: skip
    # Known to the autoscaler before any node exists (scale from zero).
    assert (
        tags["k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator"]
        == "nvidia-h100"
    )
