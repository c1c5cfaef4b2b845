"""MachinePool and GpuSpotPool on EKS and OKE, through the real SDK under the mock monitor."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest
from nodepools import GpuSpotPool, MachinePool, NodeRole, SpecError
from nodepools.offline import ProgramError, run

from tests.conftest import EKS, OKE
from tests.golden import assert_golden

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ASG_TAG = "aws:autoscaling/tag:Tag"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"


def children(capture, component_type: str, name: str) -> list[tuple[str, str]]:
    component = capture.get(component_type, name)
    return sorted((r.type, r.name) for r in capture.descendants(component.urn))


def gpu_spot_on_eks():
    return GpuSpotPool(
        "gpu-spot", {"cluster": EKS, "instance_type": "g4dn.xlarge", "labels": {"team": "ml"}}
    )


def test_gpu_spot_pool_on_eks():
    capture = run(gpu_spot_on_eks)
    group = capture.get(NODE_GROUP, "gpu-spot-node-group").inputs
    assert group["capacityType"] == "SPOT"
    assert group["scalingConfig"] == {"minSize": 0.0, "maxSize": 3.0, "desiredSize": 0.0}
    assert {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"} in group["taints"]
    assert {"key": "spot", "value": "true", "effect": "PREFER_NO_SCHEDULE"} in group["taints"]
    assert group["amiType"] == "AL2023_x86_64_NVIDIA"
    assert group["labels"]["nodepools.dev/pool"] == "gpu-spot"
    options = capture.get(NODE_GROUP, "gpu-spot-node-group").options
    assert options["ignoreChanges"] == ["scalingConfig.desiredSize"]

    tags = {r.inputs["tag"]["key"]: r.inputs for r in capture.by_type(ASG_TAG)}
    template = "k8s.io/cluster-autoscaler/node-template"
    assert tags[f"{template}/resources/nvidia.com/gpu"]["tag"]["value"] == "1"
    assert tags[f"{template}/taint/nvidia.com/gpu"]["tag"]["value"] == "true:NoSchedule"
    assert tags[f"{template}/label/nodepools.dev/pool"]["tag"]["value"] == "gpu-spot"
    asg = {inputs["autoscalingGroupName"] for inputs in tags.values()}
    assert len(asg) == 1 and asg.pop().startswith("eks-gpu-spot-")

    outputs = capture.outputs_of(capture.get(GpuSpotPool.TYPE, "gpu-spot"))
    assert set(outputs) == {
        "pool_name",
        "pool_id",
        "scheduling_info",
        "scheduling_info_yaml",
        "node_role_arn",
    }
    assert outputs["node_role_arn"] == EKS["node_role_arn"]  # the given role, no NodeRole
    assert capture.by_type(NodeRole.TYPE) == []
    info = outputs["scheduling_info"]
    assert info["nodeSelector"] == {"nodepools.dev/pool": "gpu-spot"}
    tolerated = {(t["key"], t["effect"]) for t in info["tolerations"]}
    assert tolerated == {("nvidia.com/gpu", "NoSchedule"), ("spot", "PreferNoSchedule")}
    assert info["resources"]["limits"] == {"nvidia.com/gpu": 1.0}
    assert "nodepools.dev/pool: gpu-spot" in outputs["scheduling_info_yaml"]


def test_eks_goldens():
    capture = run(gpu_spot_on_eks)
    assert_golden(
        "eks/gpu-spot-node-group.json", capture.get(NODE_GROUP, "gpu-spot-node-group").inputs
    )
    tags = sorted(
        (r.inputs["tag"]["key"], r.inputs["tag"]["value"]) for r in capture.by_type(ASG_TAG)
    )
    assert_golden("eks/gpu-spot-autoscaler-tags.json", tags)


def test_eks_fixed_pool_has_no_autoscaler_tags_and_keeps_desired_size():
    capture = run(
        lambda: MachinePool(
            "cpu",
            {"cluster": EKS, "instance_type": "m5.large", "replicas": 0, "boot_volume_gb": 80},
        )
    )
    group = capture.get(NODE_GROUP, "cpu-node-group")
    assert group.inputs["scalingConfig"] == {"minSize": 0.0, "maxSize": 1.0, "desiredSize": 0.0}
    assert group.inputs["capacityType"] == "ON_DEMAND"
    assert group.inputs["diskSize"] == 80.0
    assert "amiType" not in group.inputs
    assert group.options["ignoreChanges"] == []
    assert capture.by_type(ASG_TAG) == []


def oke_pool():
    return MachinePool(
        "oke-a10",
        {
            "cluster": OKE,
            "instance_type": "VM.GPU.A10.2",  # spot: OCI has no preemptible bare metal
            "autoscaling": {"min_replicas": 1, "max_replicas": 4},
            "taints": ["nvidia.com/gpu=true:NoSchedule", "dedicated=ml:NoExecute"],
            "labels": {"team": "ml"},
            "boot_volume_gb": 500,
            "spot": {},
        },
    )


def test_machine_pool_on_oke_carries_taints_and_boot_volume():
    capture = run(oke_pool)
    pool = capture.get(OKE_POOL, "oke-a10-node-pool")
    script = base64.b64decode(pool.inputs["nodeMetadata"]["user_data"]).decode()
    assert "oke_init_script" in script
    assert (
        '--kubelet-extra-args "--register-with-taints=dedicated=ml:NoExecute,nvidia.com/gpu=true:NoSchedule"'
        in script
    )
    assert pool.inputs["nodeSourceDetails"] == {
        "sourceType": "IMAGE",
        "imageId": OKE["image_id"],
        "bootVolumeSizeInGbs": "500",
    }
    assert {"key": "nodepools.dev/pool", "value": "oke-a10"} in pool.inputs["initialNodeLabels"]
    placement = pool.inputs["nodeConfigDetails"]["placementConfigs"][0]
    assert placement["preemptibleNodeConfig"]["preemptionAction"]["type"] == "TERMINATE"
    assert pool.inputs["freeformTags"]["nodepools.dev/max-nodes"] == "4"
    assert pool.options["ignoreChanges"] == ["nodeConfigDetails.size"]
    assert_golden("oke/oke-a10-node-pool.json", pool.inputs)
    assert_golden("oke/oke-a10-cloud-init.sh", script)


def test_child_snapshots():
    """Child (type, name) pairs are public API: a rename needs an alias."""
    capture = run(lambda: (gpu_spot_on_eks(), oke_pool()))
    snapshot = {
        "GpuSpotPool/eks": children(capture, GpuSpotPool.TYPE, "gpu-spot"),
        "MachinePool/oke": children(capture, MachinePool.TYPE, "oke-a10"),
    }
    assert_golden("snapshots/pool-children.json", snapshot)


def _inputs_by_name(capture) -> str:
    return json.dumps(
        {
            f"{r.type}::{r.name}": r.inputs
            for r in sorted(capture.resources, key=lambda r: (r.type, r.name))
        },
        sort_keys=False,
    )


def test_determinism_across_label_and_taint_order():
    def build(labels, taints):
        return lambda: MachinePool(
            "p",
            {
                "cluster": EKS,
                "instance_type": "g5.xlarge",
                "replicas": 1,
                "labels": labels,
                "taints": taints,
            },
        )

    labels = {"b": "2", "a": "1", "c": "3"}
    taints = ["x=1:NoSchedule", "a:NoExecute", "m=2:PreferNoSchedule"]
    first = run(build(labels, taints))
    second = run(build(dict(reversed(labels.items())), list(reversed(taints))))
    again = run(build(labels, taints))
    assert _inputs_by_name(first) == _inputs_by_name(second) == _inputs_by_name(again)


@pytest.mark.parametrize(
    ("args", "paths"),
    [
        ({"autoscaling": {"min_replicas": 3, "max_replicas": 1}}, {"autoscaling.max_replicas"}),
        ({"replicas": 1, "autoscaling": {"min_replicas": 0, "max_replicas": 1}}, {"autoscaling"}),
        ({"replicas": 1, "taints": [{"key": "a", "effect": "NoScheduleX"}]}, {"taints[0].effect"}),
        ({"replicas": 1, "labels": {"bad key!": "v"}}, {'labels["bad key!"]'}),
        ({"replicas": 1, "labels": {"k": "v" * 64}}, {"labels.k"}),
        ({"replicas": 1, "boot_volume_gb": -5}, {"boot_volume_gb"}),
        ({"replicas": 1, "colour": "red"}, {"colour"}),
        ({"replicas": 1, "spot": {"max_price": 0.9}}, {"spot.max_price"}),
    ],
)
def test_invalid_args_register_nothing(args, paths):
    with pytest.raises(ProgramError) as caught:
        run(lambda: MachinePool("bad", {"cluster": EKS, "instance_type": "g4dn.xlarge", **args}))
    error = caught.value.cause
    assert isinstance(error, SpecError)
    assert set(error.paths()) == paths
    assert "MachinePool 'bad' is invalid" in str(error)
    assert caught.value.capture.resources == []


def test_one_bad_pool_stops_the_program_before_the_next():
    def program():
        MachinePool("bad", {"cluster": EKS, "instance_type": "m5.large"})
        MachinePool("good", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})

    with pytest.raises(ProgramError) as caught:
        run(program)
    assert caught.value.capture.resources == []


def test_args_model_instances_are_accepted():
    from nodepools import MachinePoolArgs

    args = MachinePoolArgs.model_validate(
        {"cluster": EKS, "instance_type": "m5.large", "replicas": 2}
    )
    capture = run(lambda: MachinePool("typed", args))
    assert capture.get(NODE_GROUP, "typed-node-group").inputs["scalingConfig"]["minSize"] == 2.0


def test_import_components_loads_no_cloud_sdk():
    code = (
        "import sys, nodepools; "
        "print([m for m in ('pulumi_aws', 'pulumi_oci', 'pulumi_kubernetes', 'httpx') if m in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_flex_shape_on_oke_gets_its_shape_config():
    capture = run(
        lambda: MachinePool(
            "cpu-flex",
            {
                "cluster": OKE,
                "instance_type": "VM.Standard.E4.Flex",
                "replicas": 2,
                "ocpus": 8,
                "memory_gb": 64,
            },
        )
    )
    pool = capture.get(OKE_POOL, "cpu-flex-node-pool")
    assert pool.inputs["nodeShapeConfig"] == {"ocpus": 8.0, "memoryInGbs": 64.0}
