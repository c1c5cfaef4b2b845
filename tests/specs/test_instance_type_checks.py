"""Instance types and shapes checked against the cluster's cloud (issue 12, bad input)."""

from __future__ import annotations

import pytest
from nodepools import GpuSpotPool, KarpenterNodePool, MachinePool, SharedNodePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.karpenter.args import KarpenterNodePoolArgs

from tests.conftest import EKS, OKE


def _issues(component, args: dict) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        if component is KarpenterNodePool:
            parse_spec(KarpenterNodePoolArgs, args, "KarpenterNodePool 'pool'")
        else:
            component.resolve("pool", args)
    return {issue.path: issue.message for issue in raised.value.issues}


@pytest.mark.parametrize(
    ("cluster", "instance_type", "message"),
    [
        (EKS, "x9.superlarge", "'x9.superlarge' is not an EC2 instance type"),
        (EKS, "BM.GPU.A10.4", "'BM.GPU.A10.4' is an OCI shape, not an EC2 instance type"),
        (EKS, "g5.2xlárge", "is not an EC2 instance type"),
        (EKS, "g5.xlarge\n", "is not an EC2 instance type"),
        (OKE, "g5.2xlarge", "'g5.2xlarge' is an EC2 instance type, not an OCI shape"),
        (OKE, "VM.Bogus.1", "'VM.Bogus.1' is not an OCI shape"),
    ],
)
def test_instance_types_follow_the_clusters_cloud(cluster, instance_type, message):
    found = _issues(
        MachinePool, {"cluster": cluster, "instance_type": instance_type, "replicas": 1}
    )
    assert message in found["instance_type"]


@pytest.mark.parametrize(
    ("cluster", "instance_type"),
    [(EKS, "g9.xlarge"), (EKS, "p7.48xlarge"), (EKS, "dl2q.24xlarge"), (OKE, "BM.GPU.X9.8")],
)
def test_an_unknown_accelerated_type_asks_for_its_accelerator(cluster, instance_type):
    found = _issues(
        MachinePool, {"cluster": cluster, "instance_type": instance_type, "replicas": 1}
    )
    assert f"{instance_type!r} is an accelerated type the catalog" in found["accelerator"]
    assert "give `accelerator`" in found["accelerator"]
    given = {"resource": "nvidia.com/gpu", "count": 8}
    pool = MachinePool.resolve(
        "pool",
        {"cluster": cluster, "instance_type": instance_type, "replicas": 1, "accelerator": given},
    )
    assert pool.accelerator.count == 8


def test_shared_pool_shapes_are_checked_too():
    found = _issues(
        SharedNodePool,
        {"cluster": OKE, "shape": "BM.GPU.BOGUS.8", "size": 1, "boot_volume_gb": 100},
    )
    assert "'BM.GPU.BOGUS.8' is an accelerated type" in found["accelerator"]
    found = _issues(SharedNodePool, {"cluster": OKE, "shape": "m5.large", "size": 1})
    assert "is an EC2 instance type, not an OCI shape" in found["shape"]


def test_karpenter_instance_types_must_be_ec2_names():
    found = _issues(
        KarpenterNodePool,
        {"node_class_name": "default", "instance_types": ["m5.large", "x9.bogus"]},
    )
    assert found == {
        "instance_types[1]": "'x9.bogus' is not an EC2 instance type (e.g. `g5.xlarge`, "
        "`m7g.large`)"
    }
    found = _issues(
        KarpenterNodePool, {"node_class_name": "default", "instance_types": ["BM.GPU.H100.8"]}
    )
    assert "is an OCI shape" in found["instance_types[0]"]


def test_a_well_formed_unknown_cpu_type_passes_with_a_plan_warning():
    capture = run(
        lambda: MachinePool("pool", {"cluster": EKS, "instance_type": "m99.large", "replicas": 1})
    )
    warnings = [message for severity, message in capture.logs if severity == "warning"]
    assert any("'m99.large' is not in the nodepools catalog" in m for m in warnings)
    known = run(lambda: GpuSpotPool("pool", {"cluster": EKS, "instance_type": "g5.xlarge"}))
    assert not [m for severity, m in known.logs if severity == "warning"]
