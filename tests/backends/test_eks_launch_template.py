"""The launch template an EKS pool creates for node_config, metadata_options and boot_volume;
what OKE and ROSA do with those fields (issue 14)."""

from __future__ import annotations

import base64

import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.backends.oke.node_pool import RUN_USER_SCRIPT
from nodepools.offline import run
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS, OKE
from tests.engines.mocks import run_on

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291", "multi_az": False}


def _eks(args: dict):
    capture = run(lambda: MachinePool("pool", {"cluster": EKS, "replicas": 1, **args}))
    return capture.get(NODE_GROUP, "pool-node-group").inputs, capture.by_type(TEMPLATE)


def test_no_launch_template_unless_a_field_needs_one():
    group, templates = _eks({"instance_type": "g5.xlarge"})
    assert templates == []
    assert group["diskSize"] == 100 and "launchTemplate" not in group


def test_node_config_is_a_nodeadm_part_and_the_script_one_more_part():
    script = "#!/bin/bash\necho ready >/tmp/ready\n"
    group, [template] = _eks(
        {
            "instance_type": "g5.xlarge",
            "node_config": {
                "max_pods": 110,
                "kubelet": {"registryPullQPS": 10},
                "user_data": script,
            },
        }
    )
    user_data = base64.b64decode(template.inputs["userData"]).decode()
    assert user_data.startswith('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="')
    nodeadm, shell = user_data.split("Content-Type: ")[2:4]
    assert nodeadm.startswith(
        "application/node.eks.aws\n\n---\napiVersion: node.eks.aws/v1alpha1\n"
    )
    assert (
        "kind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registryPullQPS: 10\n      maxPods: 110\n"
        in nodeadm
    )
    assert shell.startswith('text/x-shellscript; charset="us-ascii"\n\n' + script)
    # The launch template carries the volume: EKS refuses `disk_size` beside one.
    assert "diskSize" not in group
    # The node group launches from this very template, at its latest version: the offline
    # engine gives the template an id of its own and EC2's first version number.
    assert template.outputs["id"] == "pool-launch-template-a958501a45c1"
    assert group["launchTemplate"] == {"id": template.outputs["id"], "version": "1"}
    assert template.inputs["blockDeviceMappings"] == [
        {
            "deviceName": "/dev/xvda",
            "ebs": {
                "volumeSize": 100,
                "volumeType": "gp3",
                "encrypted": "true",
                "deleteOnTermination": "true",
            },
        }
    ]


def test_the_template_reference_under_a_users_plain_mocks():
    # Outputs are the inputs there: the id is what the mocks return, and EC2's computed
    # `latest_version` is absent, so the version is sent as null (never the string "None").
    capture = run_on(
        "plain",
        lambda: MachinePool(
            "pool",
            {"cluster": EKS, "replicas": 1, "instance_type": "m5.large", "node_config": {"max_pods": 5}},
        ),
    )  # fmt: skip
    group = capture.get(NODE_GROUP, "pool-node-group").inputs
    assert group["launchTemplate"] == {"id": "pool-launch-template_id", "version": None}


def test_metadata_defaults_to_imdsv2_hop_limit_1_and_can_be_overridden():
    _, [template] = _eks({"instance_type": "m5.large", "node_config": {"max_pods": 50}})
    assert template.inputs["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpTokens": "required",
        "httpPutResponseHopLimit": 1,
    }
    assert "blockDeviceMappings" not in template.inputs  # a CPU pool keeps the AMI's volume
    _, [template] = _eks(
        {"instance_type": "m5.large", "metadata_options": {"http_put_response_hop_limit": 2}}
    )
    assert template.inputs["metadataOptions"]["httpPutResponseHopLimit"] == 2
    assert "userData" not in template.inputs


def test_boot_volume_in_full():
    volume = {"size_gb": 500, "type": "io2", "iops": 16000, "kms_key_id": "alias/nodes"}
    group, [template] = _eks({"instance_type": "p5.48xlarge", "boot_volume": volume})
    assert template.inputs["blockDeviceMappings"][0]["ebs"] == {
        "volumeSize": 500,
        "volumeType": "io2",
        "iops": 16000,
        "encrypted": "true",
        "kmsKeyId": "alias/nodes",
        "deleteOnTermination": "true",
    }
    assert "diskSize" not in group


def _on(cluster: dict, args: dict):
    capture = run(lambda: MachinePool("pool", {"cluster": cluster, "replicas": 1, **args}))
    return capture.get(NODE_GROUP, "pool-node-group").inputs, capture.by_type(TEMPLATE)


@pytest.mark.parametrize(
    "ami_type",
    [
        "BOTTLEROCKET_x86_64",
        "BOTTLEROCKET_x86_64_NVIDIA",
        "BOTTLEROCKET_ARM_64",
        "BOTTLEROCKET_ARM_64_NVIDIA",
    ],
)
def test_bottlerocket_sizes_its_data_volume_and_keeps_its_os_volume(ami_type):
    # Bottlerocket: the OS on a small /dev/xvda, containers and images on /dev/xvdb.
    arm = "ARM_64" in ami_type
    instance_type = (
        ("g5g.2xlarge" if arm else "g5.xlarge")
        if "NVIDIA" in ami_type
        else ("m7g.large" if arm else "m5.large")
    )
    volume = {"size_gb": 200, "type": "gp3", "iops": 6000}
    group, [template] = _on(
        {**EKS, "ami_type": ami_type}, {"instance_type": instance_type, "boot_volume": volume}
    )
    assert group["amiType"] == ami_type
    assert template.inputs["blockDeviceMappings"] == [
        {
            "deviceName": "/dev/xvdb",
            "ebs": {
                "volumeSize": 200,
                "volumeType": "gp3",
                "iops": 6000,
                "encrypted": "true",
                "deleteOnTermination": "true",
            },
        }
    ]
    assert "diskSize" not in group


def test_bottlerocket_accelerator_default_size_goes_to_the_data_volume():
    # An accelerator pool's 100 GiB default, the launch template made for IMDS options.
    cluster = {**EKS, "ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}
    _, [template] = _on(
        cluster, {"instance_type": "g5.xlarge", "metadata_options": {"http_tokens": "required"}}
    )
    [mapping] = template.inputs["blockDeviceMappings"]
    assert mapping["deviceName"] == "/dev/xvdb" and mapping["ebs"]["volumeSize"] == 100


@pytest.mark.parametrize(
    ("cluster", "args"),
    [
        (EKS, {"instance_type": "g5.xlarge"}),  # AL2023_x86_64_NVIDIA, picked for the pool
        ({**EKS, "ami_type": "AL2_x86_64_GPU"}, {"instance_type": "g5.xlarge"}),
        ({**EKS, "ami_type": "AL2023_x86_64_STANDARD"}, {"instance_type": "m5.large"}),
        # A custom AMI (CUSTOM: it boots nodeadm) has its root volume sized.
        (
            {
                **EKS,
                "endpoint": "https://ABC.gr7.us-east-1.eks.amazonaws.com",
                "certificate_authority": "Y2VydA==",
                "service_cidr": "10.100.0.0/16",
            },
            {"instance_type": "m5.large", "ami_id": "ami-0123456789abcdef0"},
        ),
    ],
)
def test_other_ami_types_size_the_root_volume(cluster, args):
    volume = {"size_gb": 150}
    _, [template] = _on(cluster, {**args, "boot_volume": volume})
    [mapping] = template.inputs["blockDeviceMappings"]
    assert mapping["deviceName"] == "/dev/xvda" and mapping["ebs"]["volumeSize"] == 150


def test_oke_takes_max_pods_script_size_and_key():
    capture = run(
        lambda: GpuSpotPool(
            "pool",
            {
                "cluster": OKE,
                "instance_type": "VM.GPU.A10.1",
                "node_config": {"max_pods": 64, "user_data": "#!/bin/bash\necho hi\n"},
                "boot_volume": {"size_gb": 200, "kms_key_id": "ocid1.key.oc1..k"},
            },
        )
    )
    pool = capture.by_type(OKE_POOL)[0].inputs
    assert pool["nodeConfigDetails"]["kmsKeyId"] == "ocid1.key.oc1..k"
    assert pool["nodeSourceDetails"]["bootVolumeSizeInGbs"] == "200"
    script = base64.b64decode(pool["nodeMetadata"]["user_data"]).decode()
    assert f"\necho hi\nNODEPOOLS_USER_DATA_EOF\n{RUN_USER_SCRIPT}\n" in script
    assert script.endswith(
        'bash /var/run/oke-init.sh --kubelet-extra-args "--register-with-taints='
        'nvidia.com/gpu=true:NoSchedule,spot=true:PreferNoSchedule --max-pods=64"\n'
    )


@pytest.mark.parametrize(
    ("cluster", "args", "path", "fragment"),
    [
        (EKS, {"boot_volume_gb": 100, "boot_volume": {"size_gb": 200}}, "boot_volume", "`boot_volume_gb`"),
        (EKS, {"boot_volume": {"size_gb": 10**6}}, "boot_volume.size_gb", "outside"),
        (EKS, {"boot_volume": {"type": "gp2", "iops": 3000}}, "boot_volume.iops", "only gp3, io1 and io2"),
        (EKS, {"boot_volume": {"type": "io2"}}, "boot_volume.iops", "needs `iops`"),
        (EKS, {"boot_volume": {"type": "gp2", "throughput": 500}}, "boot_volume.throughput", "only gp3"),
        (EKS, {"boot_volume": {"encrypted": False, "kms_key_id": "k"}}, "boot_volume.kms_key_id", "`encrypted: true`"),
        (EKS, {"boot_volume": {"type": "st1"}}, "boot_volume.type", ""),
        (EKS, {"node_config": {"kubelet": {"maxPods": 3}}}, "node_config.kubelet.maxPods", "max_pods"),
        (EKS, {"node_config": {"kubelet": {"max_pods": 3}}}, "node_config.kubelet.max_pods", "camelCase"),
        (EKS, {"node_config": {"user_data": "echo hi"}}, "node_config.user_data", "`#!`"),
        (EKS, {"node_config": {"user_data": "#!/bin/sh\nNODEPOOLS_USER_DATA_EOF\n"}}, "node_config.user_data", "uses itself"),
        (EKS, {"metadata_options": {"http_put_response_hop_limit": 65}}, "metadata_options.http_put_response_hop_limit", ""),
        (ROSA, {"instance_type": "m5.xlarge", "node_config": {"max_pods": 10}}, "node_config", "OpenShift owns the kubelet config"),
        ({**EKS, "ami_type": "AL2_x86_64_GPU"}, {"node_config": {"max_pods": 10}}, "node_config", "`cluster.ami_type` 'AL2_x86_64_GPU' can't take `node_config`"),
        ({**EKS, "ami_type": "BOTTLEROCKET_x86_64_NVIDIA"}, {"node_config": {"kubelet": {"podsPerCore": 10}}}, "node_config.kubelet", "read TOML settings"),
        ({**EKS, "ami_type": "AL2_x86_64_GPU"}, {"node_config": {"max_pods": 10}}, "node_config", "bootstrap.sh"),
        (ROSA, {"instance_type": "m5.xlarge", "metadata_options": {}}, "metadata_options", "ROSA"),
        (ROSA, {"instance_type": "m5.xlarge", "boot_volume": {"size_gb": 300, "type": "gp3"}}, "boot_volume.type", "ROSA"),
        (OKE, {"instance_type": "VM.GPU.A10.1", "node_config": {"kubelet": {"registryPullQPS": 10}}}, "node_config.kubelet", "OKE"),
        (OKE, {"instance_type": "VM.GPU.A10.1", "metadata_options": {}}, "metadata_options", "OKE"),
        (OKE, {"instance_type": "VM.GPU.A10.1", "boot_volume": {"throughput": 300}}, "boot_volume.throughput", "OKE"),
        (OKE, {"instance_type": "VM.GPU.A10.1", "boot_volume": {"encrypted": False}}, "boot_volume.encrypted", "always encrypts"),
    ],
)  # fmt: skip
def test_refused_with_the_path_before_anything_is_registered(cluster, args, path, fragment):
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight(
            "pool", {"cluster": cluster, "instance_type": "g5.xlarge", "replicas": 1, **args}
        )
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    assert fragment in found[path], found[path]


def test_update_budget_and_auto_repair():
    group, _ = _eks(
        {
            "instance_type": "m5.large",
            "update": {"max_unavailable_percent": 25},
            "auto_repair": True,
        }
    )
    assert group["updateConfig"] == {"maxUnavailablePercentage": 25}
    assert group["nodeRepairConfig"] == {"enabled": True}
    group, _ = _eks({"instance_type": "m5.large", "update": {"max_unavailable": 2}})
    assert group["updateConfig"] == {"maxUnavailable": 2} and "nodeRepairConfig" not in group
    capture = run(
        lambda: MachinePool(
            "pool",
            {
                "cluster": OKE,
                "instance_type": "VM.GPU.A10.1",
                "replicas": 1,
                "update": {"max_unavailable_percent": 25},
            },
        )
    )
    assert capture.by_type(OKE_POOL)[0].inputs["nodePoolCyclingDetails"] == {
        "isNodeCyclingEnabled": True,
        "maximumUnavailable": "25%",
    }


@pytest.mark.parametrize(
    ("cluster", "args", "path", "fragment"),
    [
        (EKS, {"update": {}}, "update", "exactly one of"),
        (EKS, {"update": {"max_unavailable": 1, "max_unavailable_percent": 10}}, "update", "exactly one of"),
        (EKS, {"update": {"max_unavailable_percent": 101}}, "update.max_unavailable_percent", ""),
        (ROSA, {"instance_type": "m5.xlarge", "update": {"max_unavailable": 1}}, "update", "ROSA"),
        (ROSA, {"instance_type": "m5.xlarge", "auto_repair": True}, "auto_repair", "ROSA"),
        (OKE, {"instance_type": "VM.GPU.A10.1", "auto_repair": True}, "auto_repair", "OKE"),
    ],
)  # fmt: skip
def test_update_and_repair_refusals(cluster, args, path, fragment):
    test_refused_with_the_path_before_anything_is_registered(cluster, args, path, fragment)


def test_release_version_pins_the_eks_ami_release_and_is_eks_only():
    group, _ = _eks({"instance_type": "m5.large", "release_version": "1.33.0-20250704"})
    assert group["releaseVersion"] == "1.33.0-20250704"
    test_refused_with_the_path_before_anything_is_registered(
        EKS, {"release_version": "latest"}, "release_version", "should match pattern"
    )
    test_refused_with_the_path_before_anything_is_registered(
        OKE,
        {"instance_type": "VM.GPU.A10.1", "release_version": "1.33.0-20250704"},
        "release_version",
        "EKS only",
    )


def test_node_config_on_an_al2023_cluster_ami_type():
    capture = run(
        lambda: MachinePool(
            "pool",
            {
                "cluster": {**EKS, "ami_type": "AL2023_x86_64_NVIDIA"},
                "instance_type": "g5.xlarge",
                "replicas": 1,
                "node_config": {"max_pods": 10},
            },
        )
    )
    [template] = capture.by_type(TEMPLATE)
    assert "maxPods: 10" in base64.b64decode(template.inputs["userData"]).decode()
