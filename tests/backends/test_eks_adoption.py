"""Adopting EKS managed node groups as their authors wrote them (issue 32): every opinion
of ours has a way out (identity label and tag, GPU label, 100 GiB root volume), and the
node-group settings terraform-aws-eks exposes can be given (tags on what the group
launches, exact names with `_`, remote access, launch-template settings, IAM role details,
forced updates, following the latest AMI release)."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from nodepools import GpuSpotPool, MachinePool, SharedNodePool
from nodepools.offline import run
from nodepools.pools.pool_component import managed_pool_scheduling
from nodepools.specs.core.base import SpecError
from nodepools.specs.governance.governed_pool import describe_resolved
from nodepools.specs.pools.eks_tags import node_labels

from tests.conftest import EKS, OKE
from tests.engines.mocks import run_on

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
ROLE = "aws:iam/role:Role"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
ASG_TAG = "aws:autoscaling/tag:Tag"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291", "multi_az": False}
NO_ROLE = {k: v for k, v in EKS.items() if k != "node_role_arn"}
ADOPTED = {
    "cluster": EKS,
    "instance_type": "g5.xlarge",
    "autoscaling": {"min_replicas": 0, "max_replicas": 2},
    "labels": {"workload": "inference", "team": "ml"},
    "identity_label": False,
}


def build(args: dict[str, Any], component: Any = MachinePool, engine: str = "plain") -> Any:
    def program() -> None:
        component("pool", args)

    return run_on(engine, program)


def problems(args: dict[str, Any], component: Any = MachinePool) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        component.preflight("pool", args)
    return {issue.path: issue.message for issue in raised.value.issues}


# -- identity label --------------------------------------------------------------------------


def test_without_the_identity_label_labels_and_tags_are_exactly_the_users():
    capture = build(ADOPTED)
    group = capture.get(NODE_GROUP, "pool-node-group").inputs
    assert group["labels"] == {
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "team": "ml",
        "workload": "inference",
    }
    assert "nodepools.dev/pool" not in group.get("tags", {})
    tag_keys = {r.inputs["tag"]["key"] for r in capture.by_type(ASG_TAG)}
    assert "k8s.io/cluster-autoscaler/node-template/label/nodepools.dev/pool" not in tag_keys


def test_without_the_identity_label_the_scheduling_info_selects_the_pools_labels_and_says_so():
    capture = build(ADOPTED)
    [pool] = capture.components("nodepools:index:MachinePool")
    info = capture.outputs_of(pool)["scheduling_info"]
    assert info["nodeSelector"] == {"team": "ml", "workload": "inference"}
    assert info["resources"]["limits"] == {"nvidia.com/gpu": 1}
    notes = [message for severity, message in capture.logs if "identity_label: false" in message]
    assert notes and "{'team': 'ml', 'workload': 'inference'}" in notes[0]
    assert pool.inputs["spec"]["identityLabel"] is False


def test_with_the_identity_label_nothing_changes():
    pool = MachinePool.preflight("pool", {**ADOPTED, "identity_label": True})
    assert pool.labels["nodepools.dev/pool"] == "pool"
    assert managed_pool_scheduling(pool).node_selector == {"nodepools.dev/pool": "pool"}
    assert "identityLabel" not in pool.summary()


def test_governance_and_gpu_spot_defaults_select_by_the_labels_too():
    pool = GpuSpotPool.preflight("pool", {**ADOPTED, "labels": {"team": "ml"}})
    # A GpuSpotPool's default label is one of the labels it is selected by.
    assert describe_resolved(pool)["node_labels"] == {"node-type": "gpu", "team": "ml"}


@pytest.mark.parametrize("component", [MachinePool, GpuSpotPool])
def test_without_the_identity_label_the_pool_needs_labels_of_its_own(component):
    found = problems({**ADOPTED, "labels": {}}, component)
    assert "no label of its own" in found["identity_label"]


def test_a_shared_pool_keeps_its_identity():
    found = problems(
        {"cluster": EKS, "shape": "g5.xlarge", "size": 1, "identity_label": False}, SharedNodePool
    )
    assert "use a MachinePool" in found["identity_label"]


def test_oke_pools_leave_out_the_identity_tag_too():
    capture = build({**ADOPTED, "cluster": OKE, "instance_type": "VM.GPU.A10.1"})
    [pool] = capture.by_type(OKE_POOL)
    assert "nodepools.dev/pool" not in pool.inputs["freeformTags"]
    labels = {label["key"] for label in pool.inputs["initialNodeLabels"]}
    assert labels == {"team", "workload"}


# -- the GPU label and the root volume -------------------------------------------------------


def test_the_gpu_label_can_be_left_out_or_given_another_value():
    off = MachinePool.preflight("pool", {**ADOPTED, "gpu_node_label": False})
    given = MachinePool.preflight(
        "pool", {**ADOPTED, "labels": {"k8s.amazonaws.com/accelerator": "nvidia-a10g-24gb"}}
    )
    assert "k8s.amazonaws.com/accelerator" not in node_labels(off)
    assert node_labels(given)["k8s.amazonaws.com/accelerator"] == "nvidia-a10g-24gb"


def test_gpu_node_label_false_is_refused_where_no_such_label_is_set():
    found = problems(
        {**ADOPTED, "cluster": ROSA, "instance_type": "g5.xlarge", "gpu_node_label": False}
    )
    assert "nothing to leave out" in found["gpu_node_label"]


@pytest.mark.parametrize(
    ("given", "disk"), [({}, 100), ({"boot_volume_gb": None}, None), ({"boot_volume_gb": 50}, 50)]
)
def test_the_gpu_root_volume_default_gives_way_to_an_explicit_value_or_null(given, disk):
    group = build({**ADOPTED, **given}).get(NODE_GROUP, "pool-node-group").inputs
    assert group.get("diskSize") == disk


# -- tags ------------------------------------------------------------------------------------


def test_pool_tags_go_on_the_node_group_over_the_clusters():
    cluster = {**EKS, "tags": {"env": "prod", "owner": "platform"}}
    args = {**ADOPTED, "cluster": cluster, "tags": {"owner": "ml", "cost-center": "42"}}
    group = build(args).get(NODE_GROUP, "pool-node-group").inputs
    assert group["tags"] == {"cost-center": "42", "env": "prod", "owner": "ml"}


def test_instance_tags_go_on_instances_volumes_and_interfaces():
    capture = build({**ADOPTED, "instance_tags": {"Name": "gpu-node", "team": "ml"}})
    [template] = capture.by_type(TEMPLATE)
    specs = template.inputs["tagSpecifications"]
    assert [s["resourceType"] for s in specs] == ["instance", "volume", "network-interface"]
    assert all(s["tags"] == {"Name": "gpu-node", "team": "ml"} for s in specs)
    group = capture.get(NODE_GROUP, "pool-node-group").inputs
    assert "diskSize" not in group and group["launchTemplate"]


def test_tag_counts_are_checked_against_aws_limits():
    cluster = {**EKS, "tags": {f"c{i}": "x" for i in range(30)}}
    found = problems(
        {
            **ADOPTED,
            "identity_label": True,
            "cluster": cluster,
            "tags": {f"p{i}": "x" for i in range(20)},
            "instance_tags": {f"i{i}": "x" for i in range(46)},
        }
    )
    assert "put 51 on the node group" in found["tags"] and "remove 1" in found["tags"]
    assert "give at most 45" in found["instance_tags"]


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        ({"tags": {"nodepools.dev/pool": "x"}}, 'tags["nodepools.dev/pool"]', "sets its own"),
        ({"tags": {"aws:x": "y"}}, 'tags["aws:x"]', "reserves"),
        ({"cluster": OKE, "instance_type": "VM.GPU.A10.1", "tags": {"a": "b"}}, "tags", "EKS only"),
        ({"cluster": ROSA, "instance_tags": {"a": "b"}}, "instance_tags", "EKS only"),
    ],
)  # fmt: skip
def test_tags_refused_with_their_path(args, path, fragment):
    found = problems({**ADOPTED, **args})
    assert fragment in found[path], found


# -- names -----------------------------------------------------------------------------------


def test_an_exact_node_group_name_with_underscores_is_kept_and_replaced_delete_first():
    capture = build({**ADOPTED, "node_group_name": "gpu_inference-a10g"})
    group = capture.get(NODE_GROUP, "pool-node-group")
    assert group.inputs["nodeGroupName"] == "gpu_inference-a10g"
    assert "nodeGroupNamePrefix" not in group.inputs
    assert group.options.get("deleteBeforeReplace") is True


@pytest.mark.parametrize(
    ("cluster", "name", "fragment"),
    [
        (EKS, "_gpu", "pattern"),
        (EKS, "g" * 64, "pattern"),
        (OKE, "gpu_pool", "`pool_name`"),
    ],
)
def test_node_group_names_follow_eks_pattern(cluster, name, fragment):
    args = {**ADOPTED, "cluster": cluster, "node_group_name": name}
    if cluster is OKE:
        args["instance_type"] = "VM.GPU.A10.1"
    found = problems(args)
    assert fragment in found["node_group_name"], found


# -- node group and launch template settings -------------------------------------------------


def test_remote_access_goes_on_a_node_group_without_launch_template():
    access = {"ec2_ssh_key": "ops", "source_security_group_ids": ["sg-0123456789abcdef0"]}
    capture = build({**ADOPTED, "boot_volume_gb": None, "remote_access": access})
    group = capture.get(NODE_GROUP, "pool-node-group").inputs
    assert group["remoteAccess"] == {
        "ec2SshKey": "ops",
        "sourceSecurityGroupIds": ["sg-0123456789abcdef0"],
    }
    assert not capture.by_type(TEMPLATE)


def test_remote_access_is_refused_beside_a_launch_template_naming_the_key_name():
    found = problems(
        {**ADOPTED, "remote_access": {"ec2_ssh_key": "ops"}, "node_config": {"max_pods": 20}}
    )
    assert "`node_config`" in found["remote_access"]
    assert "`launch_template.key_name`" in found["remote_access"]


def test_launch_template_settings_and_metadata_options():
    capture = build(
        {
            **ADOPTED,
            "launch_template": {"key_name": "ops", "detailed_monitoring": True, "ebs_optimized": True},
            "metadata_options": {"instance_metadata_tags": "enabled"},
        }
    )  # fmt: skip
    [template] = capture.by_type(TEMPLATE)
    assert template.inputs["keyName"] == "ops"
    assert template.inputs["monitoring"] == {"enabled": True}
    assert template.inputs["ebsOptimized"] == "true"
    assert template.inputs["metadataOptions"]["instanceMetadataTags"] == "enabled"
    assert template.inputs["metadataOptions"]["httpTokens"] == "required"


def test_force_update_version():
    group = build({**ADOPTED, "force_update_version": True}).get(NODE_GROUP, "pool-node-group")
    assert group.inputs["forceUpdateVersion"] is True


def test_the_pools_own_role_takes_path_boundary_and_more_policies():
    boundary = "arn:aws:iam::123456789012:policy/boundary"
    ebs = "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"
    capture = build(
        {
            **ADOPTED,
            "cluster": NO_ROLE,
            "node_role": {"path": "/eks/", "permissions_boundary": boundary, "additional_policy_arns": [ebs]},
        }
    )  # fmt: skip
    [role] = capture.by_type(ROLE)
    assert role.inputs["path"] == "/eks/" and role.inputs["permissionsBoundary"] == boundary
    attached = {r.name: r.inputs["policyArn"] for r in capture.by_type(ATTACHMENT)}
    assert attached["pool-node-role-policy-AmazonEBSCSIDriverPolicy"] == ebs
    assert len(attached) == 5


def test_a_role_without_details_registers_as_before():
    capture = build({**ADOPTED, "cluster": NO_ROLE})
    [component] = capture.components("nodepools:index:NodeRole")
    assert set(component.inputs["spec"]) == {"name_prefix", "partition", "tags"}
    [role] = capture.by_type(ROLE)
    assert "path" not in role.inputs and "permissionsBoundary" not in role.inputs


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        ({"node_role": {"path": "eks"}}, "node_role.path", "IAM path"),
        ({"node_role": {"additional_policy_arns": ["policy"]}}, "node_role.additional_policy_arns[0]", "policy ARN"),
        ({"node_role": {"path": "/eks/"}}, "node_role", "`cluster.node_role_arn`"),
        ({"remote_access": {"ec2_ssh_key": "ops", "source_security_group_ids": ["x"]}}, "remote_access.source_security_group_ids[0]", "'x'"),
        ({"cluster": ROSA, "force_update_version": True}, "force_update_version", "EKS only"),
        ({"cluster": ROSA, "launch_template": {"key_name": "ops"}}, "launch_template", "launch template"),
    ],
)  # fmt: skip
def test_settings_refused_with_their_path(args, path, fragment):
    found = problems({**ADOPTED, **args})
    assert fragment in found[path], found


# -- following the latest AMI release --------------------------------------------------------


class ReleaseMocks(pulumi.runtime.Mocks):
    """Echo inputs; the SSM parameter read answers with a release."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        self.calls.append((args.token, dict(args.args)))
        return {"value": "1.33.0-20250704", "name": args.args.get("name")}


def test_the_latest_release_is_read_from_the_ami_types_ssm_parameter():
    mocks = ReleaseMocks()

    def program() -> None:
        MachinePool("pool", {**ADOPTED, "follow_latest_release": {"kubernetes_version": "1.33"}})

    capture = run(program, mocks=mocks, preview=False)
    group = capture.get(NODE_GROUP, "pool-node-group").inputs
    assert group["releaseVersion"] == "1.33.0-20250704"
    assert (
        "aws:ssm/getParameter:getParameter",
        {"name": "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/release_version"},
    ) in mocks.calls  # fmt: skip


def test_where_nothing_answers_no_release_is_pinned():
    args = {**ADOPTED, "follow_latest_release": {"kubernetes_version": "1.33"}}
    assert "releaseVersion" not in build(args).get(NODE_GROUP, "pool-node-group").inputs


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({"release_version": "1.33.0-20250704"}, "`release_version`"),
        ({"cluster": {**EKS, "ami_type": "CUSTOM"}}, "publishes no release"),
        ({"cluster": OKE, "instance_type": "VM.GPU.A10.1"}, "EKS only"),
    ],
)
def test_following_the_latest_release_refused(args, fragment):
    found = problems({**ADOPTED, "follow_latest_release": {"kubernetes_version": "1.33"}, **args})
    assert fragment in found["follow_latest_release"], found
