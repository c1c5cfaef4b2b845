"""Accelerator pools get a boot volume that holds GPU images where the cloud's default does not."""

from __future__ import annotations

import base64

from nodepools import GpuSpotPool, MachinePool, SharedNodePool
from nodepools.offline import run

from tests.conftest import EKS, OKE

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"
OCM_POOL = "pulumi-python:dynamic/ocm:MachinePool"
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}


def _user_data(pool) -> str:
    metadata = pool.inputs.get("nodeMetadata") or {}
    return base64.b64decode(metadata.get("user_data", "")).decode()


def test_eks_accelerator_pools_get_100_gib_and_cpu_pools_the_cloud_default():
    def program():
        GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g5.xlarge"})
        MachinePool("trn", {"cluster": EKS, "instance_type": "trn1.2xlarge", "replicas": 1})
        MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})
        GpuSpotPool("own", {"cluster": EKS, "instance_type": "g5.xlarge", "boot_volume_gb": 40})

    capture = run(program)
    disk = {
        name: capture.get(NODE_GROUP, f"{name}-node-group").inputs.get("diskSize")
        for name in ("gpu", "trn", "cpu", "own")
    }
    assert disk == {"gpu": 100, "trn": 100, "cpu": None, "own": 40}


def test_oke_accelerator_pools_get_100_gb_and_grow_the_root_filesystem():
    def program():
        GpuSpotPool("gpu", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"})
        SharedNodePool("shared", {"cluster": OKE, "shape": "VM.GPU.A10.2", "size": 1})
        MachinePool(
            "cpu",
            {
                "cluster": OKE,
                "instance_type": "VM.Standard.E4.Flex",
                "ocpus": 2,
                "memory_gb": 16,
                "replicas": 1,
            },
        )

    capture = run(program)
    for name in ("gpu", "shared"):
        pool = capture.get(OKE_POOL, f"{name}-node-pool")
        assert pool.inputs["nodeSourceDetails"]["bootVolumeSizeInGbs"] == "100"
        script = _user_data(pool)
        grow = script.index("/usr/libexec/oci-growfs -y")
        assert grow < script.index("oke-init.sh --kubelet-extra-args")
    cpu = capture.get(OKE_POOL, "cpu-node-pool")
    assert "bootVolumeSizeInGbs" not in cpu.inputs["nodeSourceDetails"]
    assert "oci-growfs" not in _user_data(cpu)


def test_rosa_keeps_ocms_300_gib_default():
    capture = run(lambda: GpuSpotPool("gpu", {"cluster": ROSA, "instance_type": "p3.2xlarge"}))
    [pool] = capture.by_type(OCM_POOL)
    assert "root_volume" not in pool.inputs["body"]
