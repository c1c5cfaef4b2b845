"""`capacity_reservation` (issue 14): EC2 Capacity Blocks and On-Demand Capacity
Reservations on EKS, OCI capacity reservations on OKE; what each backend refuses."""

from __future__ import annotations

import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS, OKE

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"
ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
BLOCK = {"type": "capacity_block", "ids": ["cr-02168da1478b509e0"]}
ONE_SUBNET = {**EKS, "subnet_ids": ["subnet-a"]}
GROUP_ARN = "arn:aws:resource-groups:us-east-1:123456789012:group/training-odcrs"


def _eks(reservation, **args):
    spec = {
        "cluster": ONE_SUBNET,
        "instance_type": "p5.48xlarge",
        "autoscaling": {"min_replicas": 0, "max_replicas": 4},
        "capacity_reservation": reservation,
        **args,
    }
    capture = run(lambda: MachinePool("train", spec))
    [template] = capture.by_type(TEMPLATE)
    return capture.get(NODE_GROUP, "train-node-group").inputs, template.inputs


def test_a_capacity_block_is_the_node_groups_capacity_type_and_the_templates_market():
    group, template = _eks(BLOCK)
    assert group["capacityType"] == "CAPACITY_BLOCK"
    # EKS takes a Capacity Block's type from the launch template, and refuses it in both.
    assert "instanceTypes" not in group
    assert template["instanceType"] == "p5.48xlarge"
    assert template["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-02168da1478b509e0"}
    }


def test_an_on_demand_reservation_is_targeted_by_id_or_resource_group():
    group, template = _eks({"type": "on_demand", "ids": ["cr-0123456789abcdef0"]})
    assert group["capacityType"] == "ON_DEMAND"
    assert group["instanceTypes"] == ["p5.48xlarge"]
    assert "instanceType" not in template and "instanceMarketOptions" not in template
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}
    }
    group, template = _eks(
        {"type": "on_demand", "resource_group_arn": GROUP_ARN},
        cluster=EKS,  # an On-Demand reservation may span zones: several subnets are fine
        instance_type=None,
        instance_types=["g6e.12xlarge", "g6e.24xlarge"],
        autoscaling={"min_replicas": 2, "max_replicas": 4},
    )
    assert group["instanceTypes"] == ["g6e.12xlarge", "g6e.24xlarge"]
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationResourceGroupArn": GROUP_ARN}
    }


def test_oke_reservations_go_to_their_placements_in_order():
    placements = [
        {"availability_domain": "Uocm:PHX-AD-1", "subnet_id": "ocid1.subnet.oc1..a"},
        {"availability_domain": "Uocm:PHX-AD-2", "subnet_id": "ocid1.subnet.oc1..b"},
    ]
    ids = ["ocid1.capacityreservation.oc1.phx.aaaa1", "ocid1.capacityreservation.oc1.phx.aaaa2"]
    capture = run(
        lambda: MachinePool(
            "train",
            {
                "cluster": {**OKE, "placements": placements},
                "instance_type": "BM.GPU.H100.8",
                "replicas": 2,
                "capacity_reservation": {"type": "on_demand", "ids": ids},
            },
        )
    )
    [pool] = capture.by_type(OKE_POOL)
    configs = pool.inputs["nodeConfigDetails"]["placementConfigs"]
    assert [(c["availabilityDomain"], c["capacityReservationId"]) for c in configs] == [
        ("Uocm:PHX-AD-1", ids[0]),
        ("Uocm:PHX-AD-2", ids[1]),
    ]


def _refused(cluster, args, path, *fragments, component=MachinePool):
    spec = {"cluster": cluster, "instance_type": "p5.48xlarge", **args}
    if "replicas" not in spec and "autoscaling" not in spec:
        spec["autoscaling"] = {"min_replicas": 0, "max_replicas": 2}
    with pytest.raises(SpecError) as raised:
        component.preflight("train", spec)
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    for fragment in fragments:
        assert fragment in found[path], found[path]


OCI_ID = "ocid1.capacityreservation.oc1.phx.aaaa1"


@pytest.mark.parametrize(
    ("cluster", "args", "path", "fragments"),
    [
        (ONE_SUBNET, {"capacity_reservation": {"type": "on_demand"}}, "capacity_reservation", ["exactly one of `ids` or `resource_group_arn`"]),
        (ONE_SUBNET, {"capacity_reservation": {"type": "on_demand", "ids": ["cr-0123456789abcdef0"], "resource_group_arn": GROUP_ARN}}, "capacity_reservation", ["exactly one of"]),
        (ONE_SUBNET, {"capacity_reservation": {"type": "reserved", "ids": ["cr-0123456789abcdef0"]}}, "capacity_reservation.type", []),
        (ONE_SUBNET, {"capacity_reservation": {"type": "on_demand", "resource_group_arn": "training"}}, "capacity_reservation.resource_group_arn", ["'training' is not a resource group ARN"]),
        (ONE_SUBNET, {"capacity_reservation": {"type": "on_demand", "ids": ["r-1"]}}, "capacity_reservation.ids[0]", ["'r-1' is not an EC2 capacity reservation id"]),
        (ONE_SUBNET, {"capacity_reservation": {"type": "on_demand", "ids": ["cr-0123456789abcdef0", "cr-0123456789abcdef1"]}}, "capacity_reservation.ids", ["targets one", "`resource_group_arn`"]),
        (ONE_SUBNET, {"spot": {}, "capacity_reservation": BLOCK}, "capacity_reservation", ["`spot` {'max_price': None} and `capacity_reservation`", "`spot: null`"]),
        (ONE_SUBNET, {"capacity_reservation": {"type": "capacity_block", "resource_group_arn": GROUP_ARN}}, "capacity_reservation.resource_group_arn", ["reservation id"]),
        (ONE_SUBNET, {"instance_type": None, "instance_types": ["p5.48xlarge", "p5en.48xlarge"], "capacity_reservation": {**BLOCK, "ids": None, "resource_group_arn": GROUP_ARN}}, "capacity_reservation.resource_group_arn", ["reservation id"]),
        (ONE_SUBNET, {"instance_type": None, "instance_types": ["p5.48xlarge", "p5en.48xlarge"], "capacity_reservation": BLOCK}, "capacity_reservation", ["`instance_types` ['p5.48xlarge', 'p5en.48xlarge']", "give `instance_type`"]),
        (ONE_SUBNET, {"instance_type": None, "instance_types": ["g6e.12xlarge", "g6.12xlarge"], "capacity_reservation": {"type": "on_demand", "ids": ["cr-0123456789abcdef0"]}}, "capacity_reservation.ids", ["reserves one instance type", "`resource_group_arn`"]),
        (EKS, {"capacity_reservation": {"type": "on_demand", "ids": ["cr-0123456789abcdef0"]}}, "capacity_reservation.ids", ["capacity reservation 'cr-0123456789abcdef0' needs", "`cluster.subnet_ids` lists 2 subnets", "`network.subnet_id`", "`resource_group_arn`"]),
        (EKS, {"capacity_reservation": BLOCK}, "capacity_reservation", ["a Capacity Block needs", "`cluster.subnet_ids` lists 2 subnets", "`network.subnet_id`"]),
        (ROSA, {"capacity_reservation": BLOCK}, "capacity_reservation", ["ROSA Classic machine pools"]),
        (OKE, {"instance_type": "BM.GPU.H100.8", "capacity_reservation": {"type": "capacity_block", "ids": [OCI_ID]}}, "capacity_reservation.type", ["EC2 purchase option"]),
        (OKE, {"instance_type": "BM.GPU.H100.8", "capacity_reservation": {"type": "on_demand", "resource_group_arn": GROUP_ARN}}, "capacity_reservation.resource_group_arn", ["OCI capacity reservation OCIDs"]),
        (OKE, {"instance_type": "BM.GPU.H100.8", "capacity_reservation": {"type": "on_demand", "ids": ["cr-0123456789abcdef0"]}}, "capacity_reservation.ids[0]", ["not an OCI capacity reservation OCID"]),
        (OKE, {"instance_type": "BM.GPU.H100.8", "capacity_reservation": {"type": "on_demand", "ids": [OCI_ID, OCI_ID + "2"]}}, "capacity_reservation.ids", ["one id per `cluster.placements` entry (1)"]),
    ],
)  # fmt: skip
def test_refused_with_its_path_before_anything_is_registered(cluster, args, path, fragments):
    _refused(cluster, args, path, *fragments)


def test_a_gpu_spot_pool_needs_spot_off_for_reserved_capacity():
    _refused(
        ONE_SUBNET, {"capacity_reservation": BLOCK}, "capacity_reservation", "GpuSpotPool",
        component=GpuSpotPool,
    )  # fmt: skip
    GpuSpotPool.preflight(
        "train",
        {"cluster": ONE_SUBNET, "instance_type": "p5.48xlarge", "spot": None, "capacity_reservation": BLOCK},
    )  # fmt: skip


def test_a_capacity_block_on_a_chosen_subnet_is_fine():
    MachinePool.preflight(
        "train",
        {
            "cluster": EKS,
            "instance_type": "p5.48xlarge",
            "autoscaling": {"min_replicas": 0, "max_replicas": 2},
            "network": {"subnet_id": "subnet-b"},
            "capacity_reservation": BLOCK,
        },
    )


def test_an_on_demand_reservation_by_id_on_a_chosen_subnet_is_fine():
    """A reservation serves one zone: one subnet, the pool's or the cluster's only one."""
    reservation = {"type": "on_demand", "ids": ["cr-0123456789abcdef0"]}
    for cluster, network in ((EKS, {"subnet_id": "subnet-b"}), (ONE_SUBNET, None)):
        MachinePool.preflight(
            "train",
            {
                "cluster": cluster,
                "instance_type": "p5.48xlarge",
                "replicas": 1,
                "network": network,
                "capacity_reservation": reservation,
            },
        )


@pytest.mark.parametrize(
    "size",
    [{"replicas": 2}, {"autoscaling": {"min_replicas": 2, "max_replicas": 2}}],
)
def test_a_capacity_block_of_a_fixed_size_is_accepted_with_what_an_update_needs(size):
    """AWS's EKS Blueprints ML capacity-block pattern holds min = max = desired = 2; EKS asks
    for desired size 0 only while a version update runs, which the plan says."""
    spec = {"cluster": ONE_SUBNET, "instance_type": "p5.48xlarge", "capacity_reservation": BLOCK}
    capture = run(lambda: MachinePool("train", {**spec, **size}))
    group = capture.get(NODE_GROUP, "train-node-group").inputs
    assert group["capacityType"] == "CAPACITY_BLOCK"
    assert group["scalingConfig"]["minSize"] == 2
    [note] = [m for level, m in capture.logs if level == "warning" and "Capacity Block" in m]
    assert "only at desired size 0" in note and "then restore the size" in note


def test_a_capacity_block_from_zero_has_no_update_note():
    capture = run(
        lambda: MachinePool(
            "train",
            {
                "cluster": ONE_SUBNET,
                "instance_type": "p5.48xlarge",
                "autoscaling": {"min_replicas": 0, "max_replicas": 2},
                "capacity_reservation": BLOCK,
            },
        )
    )
    assert not [m for _, m in capture.logs if "Capacity Block" in m]
