"""SharedNodePool on OKE (and EKS): node pool, labels, taints, outputs and argument errors."""

from __future__ import annotations

import base64

import pytest
from nodepools import SharedNodePool, SpecError
from nodepools.offline import ProgramError, run

from tests.golden import assert_golden

OKE_NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
TYPE = "nodepools:index:SharedNodePool"

OKE = {
    "kind": "oke",
    "cluster_id": "ocid1.cluster.oc1.iad.example",
    "compartment_id": "ocid1.compartment.oc1..example",
    "image_id": "ocid1.image.oc1.iad.example",
    "placements": [
        {"availability_domain": "Uocm:US-ASHBURN-AD-1", "subnet_id": "ocid1.subnet.oc1.iad.a"}
    ],
}
EKS = {
    "kind": "eks",
    "cluster_name": "ml",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-1"],
}
MI300X = {
    "cluster": OKE,
    "shape": "BM.GPU.MI300X.8",
    "size": 1,
    "boot_volume_gb": 500,
    "selector": "selector_1",
}


def build(name: str, args: dict):
    return run(lambda: SharedNodePool(name, args))


def spec_error(args: dict, name: str = "pool") -> SpecError:
    with pytest.raises(ProgramError) as caught:
        build(name, args)
    assert caught.value.capture.resources == [], "nothing may be registered"
    assert isinstance(caught.value.cause, SpecError)
    return caught.value.cause


def registered(capture) -> list:
    # Registrations race on the engine's threads: compare them in a stable order.
    return sorted(((r.type, r.name, r.inputs) for r in capture.resources), key=lambda x: x[:2])


def issues(error: SpecError) -> dict[str, str]:
    return {issue.path: issue.message for issue in error.issues}


def test_mi300x_pool_on_oke_golden():
    capture = build("mi300x-a", MI300X)
    node_pool = capture.get(OKE_NODE_POOL, "mi300x-a-node-pool")
    component = capture.get(TYPE, "mi300x-a")
    assert node_pool.parent == component.urn
    assert_golden("shared/oke_mi300x_node_pool.json", node_pool.inputs)
    assert_golden("shared/oke_mi300x_component.json", component.inputs)
    assert_golden("shared/oke_mi300x_outputs.json", capture.outputs_of(component))


def test_nodes_carry_identity_shared_and_selector_labels_and_the_accelerator_taint():
    capture = build("mi300x-a", {**MI300X, "labels": {"team": "research"}})
    node_pool = capture.get(OKE_NODE_POOL, "mi300x-a-node-pool")
    labels = {label["key"]: label["value"] for label in node_pool.inputs["initialNodeLabels"]}
    assert labels == {
        "nodepools.dev/pool": "mi300x-a",
        "nodepools.dev/pool-selector": "selector_1",
        "nodepools.dev/shared-pool": "true",
        "team": "research",
    }
    script = base64.b64decode(node_pool.inputs["nodeMetadata"]["user_data"]).decode()
    assert '--register-with-taints=amd.com/gpu=true:NoSchedule"' in script
    assert node_pool.inputs["nodeSourceDetails"]["bootVolumeSizeInGbs"] == "500"
    assert node_pool.inputs["nodeConfigDetails"]["size"] == 1
    # A fixed size: nothing for the autoscaler to own, so no drift is ignored.
    assert node_pool.options["ignoreChanges"] == []


def test_without_selector_there_is_no_selector_label():
    capture = build("open", {**MI300X, "selector": None})
    node_pool = capture.get(OKE_NODE_POOL, "open-node-pool")
    keys = {label["key"] for label in node_pool.inputs["initialNodeLabels"]}
    assert keys == {"nodepools.dev/pool", "nodepools.dev/shared-pool"}
    outputs = capture.outputs_of(capture.get(TYPE, "open"))
    assert "selector" not in outputs or outputs["selector"] is None


def test_outputs_are_exactly_the_pool_outputs_and_the_shared_ones():
    capture = build("mi300x-a", {**MI300X, "size": 2})
    outputs = capture.outputs_of(capture.get(TYPE, "mi300x-a"))
    assert set(outputs) == {
        "pool_name",
        "pool_id",
        "scheduling_info",
        "scheduling_info_yaml",
        "shape",
        "selector",
        "gpus_per_node",
        "total_gpus",
    }
    assert outputs.get("node_role_arn") is None  # an OKE pool has no node IAM role
    assert (outputs["shape"], outputs["selector"]) == ("BM.GPU.MI300X.8", "selector_1")
    assert (outputs["gpus_per_node"], outputs["total_gpus"]) == (8, 16)
    # Shared: the paste-ready info asks for one accelerator, not the whole node.
    assert outputs["scheduling_info"]["resources"] == {"limits": {"amd.com/gpu": 1}}
    assert outputs["scheduling_info"]["nodeSelector"] == {"nodepools.dev/pool": "mi300x-a"}


def test_children_are_stable():
    capture = build("mi300x-a", MI300X)
    assert {(r.type, r.name) for r in capture.resources} == {
        (TYPE, "mi300x-a"),
        (OKE_NODE_POOL, "mi300x-a-node-pool"),
    }


def test_same_spec_in_another_order_registers_identical_inputs():
    first = build(
        "p",
        {
            **MI300X,
            "labels": {"b": "2", "a": "1"},
            "taints": ["z=1:NoExecute", "a=1:NoSchedule"],
        },
    )
    second = build(
        "p",
        {
            **MI300X,
            "labels": {"a": "1", "b": "2"},
            "taints": ["a=1:NoSchedule", "z=1:NoExecute"],
        },
    )
    assert registered(first) == registered(second)


def test_given_taints_are_added_to_the_default_and_can_replace_it():
    capture = build(
        "p",
        {**MI300X, "taints": ["amd.com/gpu=shared:NoSchedule", "team=ml:PreferNoSchedule"]},
    )
    spec = capture.get(TYPE, "p").inputs["spec"]
    assert spec["taints"] == ["amd.com/gpu=shared:NoSchedule", "team=ml:PreferNoSchedule"]


def test_bare_metal_without_boot_volume_is_rejected_with_its_path():
    error = spec_error({**MI300X, "boot_volume_gb": None})
    assert issues(error) == {
        "boot_volume_gb": "`boot_volume_gb` is required when `shape` is bare metal "
        "(BM.GPU.MI300X.8)"
    }
    assert "SharedNodePool 'pool' is invalid" in str(error)


def test_every_problem_is_reported_at_once():
    error = spec_error(
        {
            **MI300X,
            "boot_volume_gb": 20,
            "selector": "",
            "size": -1,
            "labels": {"nodepools.dev/pool-selector": "x"},
            "ocpus": 4,
        }
    )
    assert issues(error) == {
        "size": "input should be greater than or equal to 0 (got -1)",
        "boot_volume_gb": "20 is outside 50..32768 GiB for OKE node pools",
        "selector": "selector '' must not be empty; leave it out for no selector",
        "labels": "label 'nodepools.dev/pool-selector' is set by the pool itself (from its "
        "name and `selector`); remove it",
        "ocpus": "4.0 can't be used: `ocpus` is only for flexible `.Flex` shapes, and "
        "'BM.GPU.MI300X.8' has a fixed size",
    }


def test_flex_shape_needs_ocpus_and_memory():
    error = spec_error({"cluster": OKE, "shape": "VM.Standard.E4.Flex", "size": 2})
    assert issues(error) == {
        "ocpus": "`ocpus` is required when the shape is flexible (VM.Standard.E4.Flex)",
        "memory_gb": "`memory_gb` is required when the shape is flexible (VM.Standard.E4.Flex)",
    }


def test_flex_shape_sets_the_node_shape_config():
    capture = build(
        "cpu-shared",
        {"cluster": OKE, "shape": "VM.Standard.E4.Flex", "size": 2, "ocpus": 8, "memory_gb": 64},
    )
    node_pool = capture.get(OKE_NODE_POOL, "cpu-shared-node-pool")
    assert node_pool.inputs["nodeShapeConfig"] == {"ocpus": 8, "memoryInGbs": 64}
    # No accelerator: no taint, nothing to request. The user data is still sent (the plain
    # OKE init script), so a pool that once had taints never keeps registering them.
    script = base64.b64decode(node_pool.inputs["nodeMetadata"]["user_data"]).decode()
    assert "oke_init_script" in script and "--register-with-taints" not in script
    assert set(node_pool.inputs["nodeMetadata"]) == {"user_data"}
    outputs = capture.outputs_of(capture.get(TYPE, "cpu-shared"))
    assert (outputs["gpus_per_node"], outputs["total_gpus"]) == (0, 0)
    assert "resources" not in outputs["scheduling_info"]


def test_accelerator_override_counts_for_capacity():
    capture = build(
        "custom",
        {
            "cluster": OKE,
            "shape": "BM.GPU.NEXT.4",
            "size": 3,
            "boot_volume_gb": 200,
            "accelerator": {"resource": "nvidia.com/gpu", "count": 4},
        },
    )
    outputs = capture.outputs_of(capture.get(TYPE, "custom"))
    assert (outputs["gpus_per_node"], outputs["total_gpus"]) == (4, 12)


def test_invalid_component_name_is_reported_as_pool_name():
    error = spec_error(MI300X, name="Shared_Pool")
    assert list(issues(error)) == ["pool_name"]


def test_shared_pool_on_eks_is_a_fixed_size_node_group():
    capture = build("g5-shared", {"cluster": EKS, "shape": "g5.12xlarge", "size": 2})
    group = capture.get(EKS_NODE_GROUP, "g5-shared-node-group")
    assert group.inputs["scalingConfig"] == {"minSize": 2, "maxSize": 2, "desiredSize": 2}
    assert group.inputs["labels"] == {
        "nodepools.dev/pool": "g5-shared",
        "nodepools.dev/shared-pool": "true",
        # The cluster autoscaler's GPU label: a GPU node still starting is a GPU node.
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
    }
    assert group.inputs["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}
    ]
    # Not autoscaled: no scale-from-zero tags on the Auto Scaling group.
    assert {r.type for r in capture.resources} == {TYPE, EKS_NODE_GROUP}
    outputs = capture.outputs_of(capture.get(TYPE, "g5-shared"))
    assert outputs["total_gpus"] == 8


def test_pool_description_is_what_recipes_match():
    description = None

    def program():
        nonlocal description
        description = SharedNodePool("mi300x-a", {**MI300X, "pool_name": "mi300x-alpha"})
        description = description.pool_description

    run(program)
    assert description.model_dump() == {
        "name": "mi300x-alpha",
        "shape": "BM.GPU.MI300X.8",
        "size": 1,
        "selector": "selector_1",
        "gpus_per_node": 8,
        "accelerator_resource": "amd.com/gpu",
        "taints": [{"key": "amd.com/gpu", "value": "true", "effect": "NoSchedule"}],
        "spot": False,
    }


# --- network and capacity reservations (issue 14) -------------------------------------------

EFA_NETWORK = {
    "efa": True,
    "vpc_id": "vpc-0a1b2c3d4e5f60010",
    "security_group_ids": ["sg-0a1b2c3d4e5f60013"],
    "placement_group": "cluster",
}
H100_SHARED = {"cluster": EKS, "shape": "p5.48xlarge", "size": 2, "network": EFA_NETWORK}


def test_a_shared_eks_pool_takes_efa_and_an_on_demand_reservation():
    reservation = {"type": "on_demand", "ids": ["cr-0123456789abcdef0"]}
    capture = build("h100", {**H100_SHARED, "capacity_reservation": reservation})
    template = capture.get("aws:ec2/launchTemplate:LaunchTemplate", "h100-launch-template")
    interfaces = template.inputs["networkInterfaces"]
    assert len(interfaces) == 32  # one per network card of a p5.48xlarge
    assert {i["interfaceType"] for i in interfaces} == {"efa"}
    assert template.inputs["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}
    }
    assert capture.get("aws:ec2/placementGroup:PlacementGroup", "h100-placement-group")
    group = capture.get(EKS_NODE_GROUP, "h100-node-group")
    assert group.inputs["scalingConfig"] == {"minSize": 2, "maxSize": 2, "desiredSize": 2}
    # Shared: the paste-ready info still asks for one GPU; a pod that needs EFA asks for it.
    outputs = capture.outputs_of(capture.get(TYPE, "h100"))
    assert outputs["scheduling_info"]["resources"] == {"limits": {"nvidia.com/gpu": 1}}


def test_a_capacity_block_can_hold_a_fixed_size_shared_pool():
    # As AWS's EKS Blueprints ML capacity-block pattern does (min = max = desired = 2).
    block = {"type": "capacity_block", "ids": ["cr-0123456789abcdef0"]}
    SharedNodePool.preflight("h100", {**H100_SHARED, "capacity_reservation": block})


def test_a_shared_pool_shape_without_efa_is_refused_at_network():
    error = spec_error({**H100_SHARED, "shape": "m5.2xlarge"})
    assert "m5.2xlarge" in " ".join(f"{p} {m}" for p, m in issues(error).items() if "network" in p)


def test_a_shared_oke_pool_takes_a_reservation_per_placement_and_refuses_network():
    ocid = "ocid1.capacityreservation.oc1.iad.example"
    capture = build(
        "mi300x", {**MI300X, "capacity_reservation": {"type": "on_demand", "ids": [ocid]}}
    )
    pool = capture.get(OKE_NODE_POOL, "mi300x-node-pool")
    (placement,) = pool.inputs["nodeConfigDetails"]["placementConfigs"]
    assert placement["capacityReservationId"] == ocid
    error = spec_error({**MI300X, "network": {"efa": True}})
    assert any(path.startswith("network") for path in issues(error))
