"""One EBS rule set for a managed pool's boot volume and a Karpenter node class's block
devices (issue 29 item 3), and no volume smaller than its AMI's snapshot, which EC2
refuses (item 7): EKS pools and Karpenter node classes alike; OKE's own minimum."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import MachinePool, SharedNodePool
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.karpenter.node_class import NodeClassArgs

from tests.conftest import EKS, OKE

NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def pool_issues(args: dict[str, Any], cluster: dict[str, Any] = EKS) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        MachinePool.resolve(
            "pool", {"cluster": cluster, "instance_type": "g5.xlarge", "replicas": 1, **args}
        )
    return {issue.path: issue.message for issue in raised.value.issues}


def class_issues(**args: Any) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        parse_spec(NodeClassArgs, {**NODE_CLASS, **args}, "node_class")
    return {issue.path: issue.message for issue in raised.value.issues}


def mapping(device: str = "/dev/xvda", **ebs: Any) -> dict[str, Any]:
    return {"device_name": device, "ebs": {"volume_size": "100Gi", **ebs}}


@pytest.mark.parametrize(
    ("ebs", "path", "message"),
    [
        ({"volume_type": "gp2", "iops": 5000}, "iops", "5000: only gp3, io1 and io2 take `iops`, not 'gp2'"),
        ({"volume_type": "io2"}, "iops", "an io2 volume needs `iops`"),
        ({"volume_type": "io1", "iops": 1000, "throughput": 500}, "throughput", "500: only gp3 takes `throughput`, not 'io1'"),
        ({"volume_type": "gp3", "iops": 60000}, "iops", "60000 is more than 500 IOPS per GiB of a 100 GiB gp3 volume allow (50000)"),
        ({"volume_type": "gp3", "throughput": 3000}, "throughput", "3000 is outside 125..2000 MiB/s for gp3"),
        ({"kms_key_id": "alias/k", "encrypted": False}, "kms_key_id", "'alias/k' needs `encrypted: true`"),
    ],
)  # fmt: skip
def test_karpenter_block_devices_and_pool_boot_volumes_share_the_ebs_rules(
    ebs: dict[str, Any], path: str, message: str
):
    found = class_issues(block_device_mappings=[mapping(**ebs)])
    assert message in found[f"block_device_mappings[0].ebs.{path}"]
    volume = {"size_gb": 100, **{("type" if k == "volume_type" else k): v for k, v in ebs.items()}}
    assert message in pool_issues({"boot_volume": volume})[f"boot_volume.{path}"]


def test_a_volume_without_a_type_keeps_the_amis_and_is_not_guessed():
    NodeClassArgs.model_validate({**NODE_CLASS, "block_device_mappings": [mapping(iops=4000)]})


@pytest.mark.parametrize(
    ("cluster", "args", "path", "least"),
    [
        (EKS, {"boot_volume_gb": 10}, "boot_volume_gb", 20),
        (EKS, {"boot_volume": {"size_gb": 19}}, "boot_volume.size_gb", 20),
        ({**EKS, "ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}, {"boot_volume_gb": 8}, "boot_volume_gb", 20),
        ({**EKS, "ami_type": "AL2_x86_64_GPU"}, {"boot_volume_gb": 8}, "boot_volume_gb", 20),
    ],
)  # fmt: skip
def test_an_eks_pools_volume_is_at_least_its_amis_snapshot(
    cluster: dict[str, Any], args: dict[str, Any], path: str, least: int
):
    found = pool_issues(args, cluster)
    assert "snapshot of the" in found[path]
    assert f"give at least {least}" in found[path]
    MachinePool.resolve(
        "pool",
        {"cluster": cluster, "instance_type": "g5.xlarge", "replicas": 1, path.split(".")[0]:
         {"size_gb": least} if "." in path else least},
    )  # fmt: skip


def test_oke_boot_volumes_keep_ocis_50_gb_minimum():
    shared = {"cluster": OKE, "shape": "BM.GPU.A10.4", "size": 1, "boot_volume_gb": 49}
    with pytest.raises(SpecError, match=r"49 is outside 50\.\.32768"):
        SharedNodePool.resolve("pool", shared)
    with pytest.raises(SpecError, match=r"40 is outside 50\.\.32768"):
        SharedNodePool.resolve(
            "pool", {**shared, "boot_volume_gb": None, "boot_volume": {"size_gb": 40}}
        )


@pytest.mark.parametrize(
    ("args", "path", "least"),
    [
        ({"boot_volume_gb": 10}, "boot_volume_gb", 20),
        ({"ami_alias": "windows2022@latest", "boot_volume_gb": 40}, "boot_volume_gb", 50),
        ({"block_device_mappings": [mapping(volume_size="20G")]}, "block_device_mappings[0].ebs.volume_size", 20),
        (
            {"ami_alias": "bottlerocket@latest", "block_device_mappings": [
                mapping(volume_size="4Gi"), mapping("/dev/xvdb", volume_size="10Gi")]},
            "block_device_mappings[1].ebs.volume_size",
            20,
        ),
    ],
)  # fmt: skip
def test_a_karpenter_volume_is_at_least_its_amis_snapshot(
    args: dict[str, Any], path: str, least: int
):
    assert f"give at least {least}" in class_issues(**args)[path]


def test_a_custom_ami_volume_is_not_judged():
    NodeClassArgs.model_validate(
        {
            **NODE_CLASS,
            "ami_family": "AL2023",
            "ami_selector_terms": [{"id": "ami-0123456789abcdef0"}],
            "boot_volume_gb": 8,
        }
    )
