"""`network` (issue 14): EFA interfaces per network card, the EFA security group, a cluster
placement group, the one subnet they need, the EFA limit in the scheduling info; OKE and
ROSA refuse it."""

from __future__ import annotations

import json

import pulumi
import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.offline import ProgramError, run
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS, OKE
from tests.engines.components import EKS_EVERY_OPTION
from tests.engines.mocks import run_on

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
EFA = {"efa": True, "vpc_id": "vpc-0a1b", "security_group_ids": ["sg-0c1a57e4"]}


def _pool(component=MachinePool, **args):
    size = {} if "autoscaling" in args else {"replicas": 1}
    spec = {"cluster": EKS, "instance_type": "p5.48xlarge", **size, **args}
    capture = run(lambda: component("train", spec))
    return capture


def test_efa_gives_one_interface_per_network_card_with_the_efa_and_cluster_groups():
    capture = _pool(network={**EFA, "subnet_id": "subnet-b"})
    [template] = capture.by_type(TEMPLATE)
    [group] = capture.by_type(SECURITY_GROUP)
    interfaces = template.inputs["networkInterfaces"]
    assert len(interfaces) == 32  # p5.48xlarge: 32 network cards, an EFA on each
    assert [(i["networkCardIndex"], i["deviceIndex"]) for i in interfaces[:3]] == [
        (0, 0),
        (1, 1),
        (2, 1),
    ]
    assert {i["interfaceType"] for i in interfaces} == {"efa"}
    assert all(i["securityGroups"] == [group.outputs["id"], "sg-0c1a57e4"] for i in interfaces)
    assert "subnetId" not in interfaces[0]  # EKS refuses a subnet in the launch template
    assert group.inputs["vpcId"] == "vpc-0a1b" and "name" not in group.inputs
    for rule_type in (INGRESS, EGRESS):
        [rule] = capture.by_type(rule_type)
        assert rule.inputs["securityGroupId"] == group.outputs["id"]
        assert rule.inputs["referencedSecurityGroupId"] == group.outputs["id"]
        assert rule.inputs["ipProtocol"] == "-1"
    node_group = capture.get(NODE_GROUP, "train-node-group").inputs
    assert node_group["subnetIds"] == ["subnet-b"]
    assert node_group["launchTemplate"]["id"] == template.outputs["id"]
    assert capture.by_type(PLACEMENT_GROUP) == []


def test_the_scheduling_info_and_autoscaler_template_ask_for_the_efa_interfaces():
    capture = _pool(
        GpuSpotPool,
        instance_type=None,
        instance_types=["g6e.48xlarge", "g6e.24xlarge"],
        spot=None,
        autoscaling={"min_replicas": 0, "max_replicas": 2},
        network={**EFA, "subnet_id": "subnet-b"},
    )
    # The mix's smallest type (g6e.24xlarge) has 2 cards with EFA: every node has 2.
    [template] = capture.by_type(TEMPLATE)
    assert len(template.inputs["networkInterfaces"]) == 2
    [pool] = capture.by_type("nodepools:index:GpuSpotPool")
    limits = capture.outputs_of(pool)["scheduling_info"]["resources"]["limits"]
    assert limits == {"nvidia.com/gpu": 4, "vpc.amazonaws.com/efa": 2}
    tag = capture.get("aws:autoscaling/tag:Tag", "train-asg-tag-resources-vpc.amazonaws.com-efa")
    assert tag.inputs["tag"]["value"] == "2"


def test_a_cluster_placement_group_is_created_or_an_existing_one_named():
    capture = _pool(network={"placement_group": "cluster", "subnet_id": "subnet-b"})
    [group] = capture.by_type(PLACEMENT_GROUP)
    assert group.inputs == {"strategy": "cluster", "tags": {"nodepools.dev/pool": "train"}}
    [template] = capture.by_type(TEMPLATE)
    assert template.inputs["placement"] == {"groupName": group.outputs["name"]}
    assert group.outputs["name"].startswith("train-placement-group-")
    assert "networkInterfaces" not in template.inputs  # no EFA asked for
    assert capture.by_type(SECURITY_GROUP) == []

    capture = _pool(
        cluster={**EKS, "subnet_ids": ["subnet-a"]}, network={"placement_group": "hpc-ring"}
    )
    assert capture.by_type(PLACEMENT_GROUP) == []
    [template] = capture.by_type(TEMPLATE)
    assert template.inputs["placement"] == {"groupName": "hpc-ring"}
    assert capture.get(NODE_GROUP, "train-node-group").inputs["subnetIds"] == ["subnet-a"]


def test_subnet_id_alone_pins_the_pool_without_a_launch_template():
    capture = _pool(instance_type="m5.large", network={"subnet_id": "subnet-b"})
    assert capture.by_type(TEMPLATE) == []
    assert capture.get(NODE_GROUP, "train-node-group").inputs["subnetIds"] == ["subnet-b"]


def test_without_network_nothing_changes():
    capture = _pool(instance_type="m5.large")
    inputs = capture.get(NODE_GROUP, "train-node-group").inputs
    assert inputs["subnetIds"] == EKS["subnet_ids"]
    assert capture.by_type(TEMPLATE) == [] and capture.by_type(SECURITY_GROUP) == []
    [pool] = capture.by_type("nodepools:index:MachinePool")
    assert "resources" not in capture.outputs_of(pool)["scheduling_info"]


def _refused(cluster, args, path, *fragments):
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight(
            "train", {"cluster": cluster, "instance_type": "p5.48xlarge", "replicas": 1, **args}
        )
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    for fragment in fragments:
        assert fragment in found[path], found[path]


@pytest.mark.parametrize(
    ("cluster", "args", "path", "fragments"),
    [
        (EKS, {"instance_type": "m5.large", "network": {**EFA, "subnet_id": "subnet-5"}}, "network.efa", ["'m5.large' has no EFA"]),
        (EKS, {"instance_type": "p3.2xlarge", "network": {**EFA, "subnet_id": "subnet-5"}}, "network.efa", ["does not know the EFA interfaces of 'p3.2xlarge'"]),
        (EKS, {"instance_type": None, "instance_types": ["g6e.48xlarge", "g6e.4xlarge"], "network": {**EFA, "subnet_id": "subnet-5"}}, "network.efa", ["'g6e.4xlarge' has no EFA", "`instance_types[1]`"]),
        (EKS, {"network": EFA}, "network.subnet_id", ["`network.efa`", "`cluster.subnet_ids` lists 2 subnets (['subnet-a', 'subnet-b'])"]),
        (EKS, {"network": {"placement_group": "cluster"}}, "network.subnet_id", ["`network.placement_group` needs", "`cluster.subnet_ids`"]),
        (EKS, {"network": {"efa": True, "subnet_id": "subnet-5", "security_group_ids": ["sg-1"]}}, "network.vpc_id", ["security group"]),
        (EKS, {"network": {"efa": True, "subnet_id": "subnet-5", "vpc_id": "vpc-1"}}, "network.security_group_ids", ["cluster security group", "got []"]),
        (EKS, {"network": {"vpc_id": "vpc-1"}}, "network.vpc_id", ["'vpc-1' is only used by EFA"]),
        (EKS, {"network": {"placement_group": ""}}, "network.placement_group", []),
        (OKE, {"instance_type": "BM.GPU.H100.8", "network": {"placement_group": "cluster"}}, "network", ["OKE node pools", "EKS only"]),
        (ROSA, {"instance_type": "p4d.24xlarge", "network": {"efa": True}}, "network", ["ROSA Classic machine pools", "{'efa': True}"]),
    ],
)  # fmt: skip
def test_refused_with_its_path_before_anything_is_registered(cluster, args, path, fragments):
    _refused(cluster, args, path, *fragments)


def test_an_output_subnet_list_needs_an_explicit_subnet():
    def program():
        import pulumi

        subnets = pulumi.Output.from_input(["subnet-a"])
        MachinePool(
            "train",
            {
                "cluster": {**EKS, "subnet_ids": subnets},
                "instance_type": "p5.48xlarge",
                "replicas": 1,
                "network": EFA,
            },
        )

    with pytest.raises(ProgramError, match="is an Output"):
        run(program)


@pytest.mark.parametrize(
    ("args", "path", "fragment"),
    [
        ({"network": {"efa": "yes"}}, "network.efa", "valid boolean (got 'yes')"),
        ({"network": {"efa": True, "extra": 1}}, "network.extra", "unknown field"),
        ({"network": {"placement_group": pulumi.Output.from_input("cluster")}}, "network.placement_group", "an Output is not allowed here"),
        ({"capacity_reservation": {"type": "capacity_block", "ids": "cr-02168da1478b509e0"}}, "capacity_reservation.ids", "valid list"),
    ],
)  # fmt: skip
def test_what_decides_the_resources_is_a_plain_value_of_its_type(args, path, fragment):
    _refused({**EKS, "subnet_ids": ["subnet-a"]}, args, path, fragment)


def test_wired_network_values_may_be_outputs_and_stay_unknown_in_preview():
    def program():
        import pulumi_aws as aws

        vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
        subnet = aws.ec2.Subnet("nodes", vpc_id=vpc.id, cidr_block="10.0.0.0/24")
        MachinePool(
            "train",
            {
                "cluster": EKS,
                "instance_type": "p5.48xlarge",
                "replicas": 1,
                "network": {
                    "efa": True,
                    "subnet_id": subnet.id,
                    "vpc_id": vpc.id,
                    "security_group_ids": [vpc.default_security_group_id],
                },
            },
        )

    capture = run_on("preview", program)
    group = capture.get(NODE_GROUP, "train-node-group")
    assert group.inputs["subnetIds"] == [None]  # unknown until the subnet exists
    [template] = capture.by_type(TEMPLATE)
    assert len(template.inputs["networkInterfaces"]) == 32


def test_the_same_pool_twice_registers_the_same_inputs():
    def inputs():
        capture = run(lambda: MachinePool("every-option", EKS_EVERY_OPTION))
        return {(r.type, r.name): json.dumps(r.inputs, sort_keys=True) for r in capture.resources}

    assert inputs() == inputs()
