"""What the nodes' OS reads (issue 32): Bottlerocket's TOML settings, on EKS-optimized
Bottlerocket AMIs and on custom ones (which used to get a nodeadm NodeConfig they can't
read, and never joined), nodeadm's local storage on AL2023, and EFA-only interfaces."""

from __future__ import annotations

import base64
import tomllib
from typing import Any

import pytest
from nodepools import MachinePool
from nodepools.backends.eks.bottlerocket import cluster_dns_ip, toml_document
from nodepools.specs.core.base import SpecError

from tests.backends.test_eks_custom_ami import AMI, CA, CLUSTER, node_config_of
from tests.conftest import EKS
from tests.engines.mocks import run_on

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
BOTTLEROCKET = {**EKS, "ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}
POOL = {
    "instance_type": "g5.12xlarge",
    "replicas": 1,
    "labels": {"team": "ml"},
    "taints": ["dedicated=ml:NoSchedule", "gpu:NoExecute"],
}


def template_of(args: dict[str, Any]) -> dict[str, Any]:
    def program() -> None:
        MachinePool("pool", {**POOL, **args})

    [template] = run_on("plain", program).by_type(TEMPLATE)
    return template.inputs


def toml_of(template: dict[str, Any]) -> dict[str, Any]:
    return tomllib.loads(base64.b64decode(template["userData"]).decode())


def problems(args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight("pool", {**POOL, **args})
    return {issue.path: issue.message for issue in raised.value.issues}


def test_a_custom_bottlerocket_ami_gets_bottlerocket_settings_not_a_node_config():
    template = template_of(
        {
            "cluster": CLUSTER,
            "ami_id": AMI,
            "ami_family": "bottlerocket",
            "node_config": {"max_pods": 58, "bottlerocket": {"kubernetes": {"image-gc-high-threshold-percent": "85"}}},
        }
    )  # fmt: skip
    assert template["imageId"] == AMI
    kubernetes = toml_of(template)["settings"]["kubernetes"]
    assert kubernetes["cluster-name"] == "ml-platform"
    assert kubernetes["api-server"] == CLUSTER["endpoint"]
    assert kubernetes["cluster-certificate"] == CA
    assert kubernetes["cluster-dns-ip"] == "172.20.0.10"
    assert kubernetes["node-labels"] == {
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "nodepools.dev/pool": "pool",
        "team": "ml",
    }
    assert kubernetes["node-taints"] == {"dedicated": ["ml:NoSchedule"], "gpu": [":NoExecute"]}
    assert kubernetes["max-pods"] == 58 and kubernetes["image-gc-high-threshold-percent"] == "85"
    # Images live on Bottlerocket's data volume, which the pool's size is for.
    assert template["blockDeviceMappings"][0]["deviceName"] == "/dev/xvdb"


def test_a_bottlerocket_cluster_ami_type_declares_the_custom_amis_family():
    template = template_of(
        {"cluster": {**CLUSTER, "ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}, "ami_id": AMI}
    )
    assert toml_of(template)["settings"]["kubernetes"]["cluster-name"] == "ml-platform"


def test_an_al2023_custom_ami_keeps_its_node_config():
    template = template_of(
        {"cluster": {**CLUSTER, "ami_type": "AL2023_x86_64_NVIDIA"}, "ami_id": AMI}
    )
    assert node_config_of(template)["spec"]["cluster"]["name"] == "ml-platform"


def test_an_eks_optimized_bottlerocket_pool_gives_only_its_own_settings():
    settings = {
        "kubernetes": {"eviction-hard": {"memory.available": "5%"}},
        "bootstrap-containers": {"setup": {"source": "example.com/setup:1", "mode": "always", "essential": True}},
    }  # fmt: skip
    template = template_of(
        {"cluster": BOTTLEROCKET, "node_config": {"max_pods": 110, "bottlerocket": settings}}
    )
    read = toml_of(template)["settings"]
    # EKS merges the cluster's coordinates, labels and taints itself.
    assert read == {
        "kubernetes": {"max-pods": 110, "eviction-hard": {"memory.available": "5%"}},
        "bootstrap-containers": settings["bootstrap-containers"],
    }
    assert "imageId" not in template


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        ({"cluster": BOTTLEROCKET, "node_config": {"user_data": "#!/bin/sh\necho"}}, "node_config.user_data", "bootstrap container"),
        ({"cluster": BOTTLEROCKET, "node_config": {"local_storage": "RAID0"}}, "node_config.local_storage", "ephemeral-storage"),
        ({"cluster": EKS, "node_config": {"bottlerocket": {"kubernetes": {"max-pods": 1}}}}, "node_config.bottlerocket.kubernetes.max-pods", "`node_config.max_pods`"),
        ({"cluster": BOTTLEROCKET, "node_config": {"bottlerocket": {"kubernetes": {"node-labels": {"a": "b"}}}}}, "node_config.bottlerocket.kubernetes.node-labels", "`labels`"),
        ({"cluster": BOTTLEROCKET, "node_config": {"bottlerocket": {"a": None}}}, "node_config.bottlerocket.a", "no TOML form"),
        ({"cluster": EKS, "node_config": {"bottlerocket": {"motd": "hi"}}}, "node_config.bottlerocket", "not Bottlerocket"),
        ({"cluster": CLUSTER, "ami_family": "bottlerocket"}, "ami_family", "give `ami_id`"),
        ({"cluster": {**CLUSTER, "ami_type": "AL2023_x86_64_NVIDIA"}, "ami_id": AMI, "ami_family": "bottlerocket"}, "ami_family", "contradicts"),
        ({"cluster": {**CLUSTER, "ami_type": "AL2_x86_64_GPU"}, "ami_id": AMI}, "ami_id", "AL2023 or Bottlerocket"),
    ],
)  # fmt: skip
def test_what_the_nodes_os_cant_read_is_refused(args, path, fragment):
    found = problems(args)
    assert fragment in found[path], found


def test_toml_quotes_keys_and_strings_and_reads_back():
    settings = {"kubernetes": {"node-labels": {"a.b/c": 'say "hi"'}, "max-pods": 3, "flag": True, "ips": ["1", "2"]}}  # fmt: skip
    assert tomllib.loads(toml_document(settings)) == {"settings": settings}
    assert cluster_dns_ip("10.100.0.0/16") == "10.100.0.10"


def test_nodeadm_local_storage_strategy():
    template = template_of({"cluster": EKS, "node_config": {"local_storage": "RAID0"}})
    assert node_config_of(template)["spec"]["instance"] == {"localStorage": {"strategy": "RAID0"}}


EFA = {
    "instance_type": "p5.48xlarge",
    "network": {
        "efa": True,
        "efa_only": True,
        "subnet_id": "subnet-0123456789abcdef0",
        "vpc_id": "vpc-0123456789abcdef0",
        "security_group_ids": ["sg-0123456789abcdef0"],
    },
}


def test_efa_only_interfaces_on_the_secondary_cards():
    interfaces = template_of({"cluster": EKS, **EFA})["networkInterfaces"]
    types = [i["interfaceType"] for i in sorted(interfaces, key=lambda i: i["networkCardIndex"])]
    assert types[0] == "efa" and set(types[1:]) == {"efa-only"} and len(types) == 32


def test_efa_only_needs_efa():
    found = problems({"cluster": EKS, "network": {"efa_only": True}})
    assert "set `efa: true`" in found["network.efa_only"]
