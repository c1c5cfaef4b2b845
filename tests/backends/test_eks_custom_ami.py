"""A custom AMI on EKS (`ami_id`): node group `ami_type: CUSTOM`, a launch template with the
image and a complete nodeadm NodeConfig, built from the cluster's details whether they are
plain values or Outputs (issue 14)."""

from __future__ import annotations

import base64
from typing import Any

import pulumi
import pytest
import yaml
from nodepools import MachinePool, SharedNodePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS, OKE
from tests.engines.mocks import run_on

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AMI = "ami-0123456789abcdef0"
CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----").decode()
CLUSTER = {
    **EKS,
    "endpoint": "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com",
    "certificate_authority": CA,
    "service_cidr": "172.20.0.0/16",
}
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}


def node_config_of(template_inputs: dict[str, Any]) -> dict[str, Any]:
    user_data = base64.b64decode(template_inputs["userData"]).decode()
    part = user_data.split("Content-Type: application/node.eks.aws\n\n", 1)[1]
    return yaml.safe_load(part.split("\n--//nodepools-boundary//", 1)[0])


def _custom(cluster: dict[str, Any] | None = None, **args: Any):
    def program() -> None:
        MachinePool(
            "pool",
            {
                "cluster": cluster or CLUSTER,
                "instance_type": "g5.12xlarge",
                "replicas": 1,
                "ami_id": AMI,
                "labels": {"team": "ml"},
                "taints": ["dedicated=ml:NoSchedule", "gpu:NoExecute"],
                **args,
            },
        )

    capture = run(program)
    return capture.get(NODE_GROUP, "pool-node-group").inputs, capture.by_type(TEMPLATE)


def test_the_node_group_is_custom_and_the_template_carries_image_and_node_config():
    group, [template] = _custom(node_config={"max_pods": 58, "kubelet": {"podsPerCore": 10}})
    assert group["amiType"] == "CUSTOM" and "releaseVersion" not in group
    assert template.inputs["imageId"] == AMI
    config = node_config_of(template.inputs)
    assert config["apiVersion"] == "node.eks.aws/v1alpha1" and config["kind"] == "NodeConfig"
    assert config["spec"]["cluster"] == {
        "name": "ml-platform",
        "apiServerEndpoint": CLUSTER["endpoint"],
        "certificateAuthority": CA,
        "cidr": "172.20.0.0/16",
    }
    kubelet = config["spec"]["kubelet"]
    assert kubelet["config"] == {"podsPerCore": 10, "maxPods": 58}
    # EKS merges nothing into a custom AMI's user data: labels and taints go as flags.
    assert kubelet["flags"] == [
        "--node-labels=k8s.amazonaws.com/accelerator=nvidia-a10g,nodepools.dev/pool=pool,team=ml",
        "--register-with-taints=dedicated=ml:NoSchedule,gpu:NoExecute",
    ]


def test_the_same_program_twice_renders_the_same_user_data():
    _, [first] = _custom()
    _, [second] = _custom()
    assert first.inputs["userData"] == second.inputs["userData"]


def test_the_cluster_details_may_be_outputs():
    def program() -> None:
        known = {
            key: pulumi.Output.from_input(CLUSTER[key]).apply(str)
            for key in ("cluster_name", "endpoint", "certificate_authority", "service_cidr")
        }
        MachinePool(
            "pool",
            {
                "cluster": {**CLUSTER, **known},
                "instance_type": "m5.large",
                "replicas": 1,
                "ami_id": AMI,
            },
        )

    [template] = run(program).by_type(TEMPLATE)
    assert node_config_of(template.inputs)["spec"]["cluster"]["cidr"] == "172.20.0.0/16"


def test_in_preview_unknown_details_leave_the_user_data_unknown():
    def program() -> None:
        import pulumi_aws as aws

        eks = aws.eks.Cluster(
            "ml", role_arn="arn:aws:iam::1:role/x", vpc_config={"subnet_ids": ["s"]}
        )
        cluster = {**CLUSTER, "endpoint": eks.endpoint}
        MachinePool(
            "pool", {"cluster": cluster, "instance_type": "m5.large", "replicas": 1, "ami_id": AMI}
        )

    [template] = run_on("preview", program).by_type(TEMPLATE)
    assert template.inputs["imageId"] == AMI
    assert "userData" in template.unknown_paths


@pytest.mark.parametrize(
    ("cluster", "args", "path", "fragment"),
    [
        ({**CLUSTER, "ami_type": "AL2_x86_64_GPU"}, {}, "ami_id", "`cluster.ami_type`"),
        (CLUSTER, {"release_version": "1.33.0-20250704"}, "ami_id", "`release_version`"),
        (EKS, {}, "ami_id", "`cluster.endpoint`, `cluster.certificate_authority`, `cluster.service_cidr`"),
        ({**CLUSTER, "service_cidr": None}, {}, "ami_id", "`cluster.service_cidr`"),
        (CLUSTER, {"ami_id": "ami-xyz"}, "ami_id", "ami-xyz"),
        ({**CLUSTER, "endpoint": "http://x"}, {}, "cluster.endpoint", "https://"),
        ({**CLUSTER, "service_cidr": "10.100.0.0/33"}, {}, "cluster.service_cidr", "CIDR"),
        ({**CLUSTER, "certificate_authority": "not base64!"}, {}, "cluster.certificate_authority", "base64"),
        (ROSA, {"instance_type": "m5.xlarge"}, "ami_id", "ROSA"),
        (OKE, {"instance_type": "VM.GPU.A10.1"}, "ami_id", "image_id"),
    ],
)  # fmt: skip
def test_refused_naming_both_paths(cluster, args, path, fragment):
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight(
            "pool",
            {
                "cluster": cluster,
                "instance_type": "g5.xlarge",
                "replicas": 1,
                "ami_id": AMI,
                **args,
            },
        )
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    assert fragment in found[path], found[path]


def test_a_shared_pool_takes_a_custom_ami_too():
    capture = run(
        lambda: SharedNodePool(
            "h100", {"cluster": CLUSTER, "shape": "p5.48xlarge", "size": 1, "ami_id": AMI}
        )
    )
    assert capture.get(NODE_GROUP, "h100-node-group").inputs["amiType"] == "CUSTOM"
    [template] = capture.by_type(TEMPLATE)
    assert template.inputs["imageId"] == AMI
    flags = node_config_of(template.inputs)["spec"]["kubelet"]["flags"]
    assert "nodepools.dev/shared-pool=true" in flags[0]
