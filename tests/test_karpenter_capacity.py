"""KarpenterNodePool: reserved capacity (capacity reservations, capacity blocks), EFA, the
capacity-type and GPU-maker keys left to the user's requirements, `taints: []`, an IAM role
from another resource, annotations.

Reservation terms follow the EC2NodeClass CRD (v1.14.1) and Karpenter's docs
(aws/karpenter-provider-aws@1d927085, website/content/en/v1.14/concepts/nodeclasses.md
"spec.capacityReservationSelectorTerms" and tasks/odcrs.md).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
import yaml
from nodepools import KarpenterNodePool
from nodepools.backends.karpenter import render_manifests
from nodepools.offline import run
from nodepools.pools.karpenter_node_pool import karpenter_scheduling, prepare_pool
from nodepools.specs.core.base import SpecError
from nodepools.validation import validate_manifest

NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}
CAPACITY_TYPE = "karpenter.sh/capacity-type"


def _manifests(args: dict[str, Any], name: str = "pool") -> dict[str, dict[str, Any]]:
    pool, manifests = prepare_pool(args, name, "test")
    assert render_manifests(pool) == manifests
    for manifest in manifests.values():
        assert validate_manifest(manifest) == []
    return manifests


def _problems(args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        prepare_pool(args, "pool", "test")
    return {issue.path: issue.message for issue in raised.value.issues}


def _requirements(manifests: dict[str, dict[str, Any]], key: str) -> list[dict[str, Any]]:
    requirements = manifests["node_pool"]["spec"]["template"]["spec"]["requirements"]
    return [r for r in requirements if r["key"] == key]


# Karpenter's documented term forms, as our args and as the CRD writes them.
RESERVATION_TERMS = [
    ([{"id": "cr-123"}, {"id": "cr-456"}], [{"id": "cr-123"}, {"id": "cr-456"}]),
    (
        [{"tags": {"key1": "foo", "key2": "bar"}}, {"tags": {"key3": "foobar"}}],
        [{"tags": {"key1": "foo", "key2": "bar"}}, {"tags": {"key3": "foobar"}}],
    ),
    (
        [{"tags": {"key": "foo"}, "owner_id": "012345678901"}],
        [{"tags": {"key": "foo"}, "ownerID": "012345678901"}],
    ),
    ([{"instance_match_criteria": "open"}], [{"instanceMatchCriteria": "open"}]),
    (
        [{"instance_match_criteria": "targeted", "tags": {"key": "foo"}}],
        [{"instanceMatchCriteria": "targeted", "tags": {"key": "foo"}}],
    ),
]


@pytest.mark.parametrize(("terms", "written"), RESERVATION_TERMS)
def test_a_reserved_pool_selects_reservations_as_karpenters_docs_do(terms, written):
    manifests = _manifests(
        {
            "node_class": {**NODE_CLASS, "capacity_reservation_selector_terms": terms},
            "capacity_types": ["reserved", "on-demand"],
            "instance_types": ["p5.48xlarge"],
            "limits": {"nvidia.com/gpu": 16},
        }
    )
    assert manifests["node_class"]["spec"]["capacityReservationSelectorTerms"] == written
    assert _requirements(manifests, CAPACITY_TYPE) == [
        {"key": CAPACITY_TYPE, "operator": "In", "values": ["on-demand", "reserved"]}
    ]


def test_reserved_only_pool_on_capacity_blocks():
    manifests = _manifests(
        {
            "node_class": {
                **NODE_CLASS,
                "capacity_reservation_selector_terms": [{"id": "cr-0a1b2c3d4e5f60001"}],
            },
            "capacity_types": ["reserved"],
            "instance_types": ["p5.48xlarge"],
            "limits": {"nvidia.com/gpu": 16},
        }
    )
    assert _requirements(manifests, CAPACITY_TYPE)[0]["values"] == ["reserved"]


@pytest.mark.parametrize(
    ("args", "path", "message"),
    [
        (
            {"node_class": NODE_CLASS, "capacity_types": ["reserved"]},
            "capacity_types",
            "selects none, so it could never launch a node",
        ),
        (
            {
                "node_class": {
                    **NODE_CLASS,
                    "capacity_reservation_selector_terms": [{"id": "cr-1"}],
                },
                "capacity_types": ["on-demand"],
            },
            "node_class.capacity_reservation_selector_terms",
            "capacity types ['on-demand'] (`capacity_types`) have no 'reserved'",
        ),
        (
            {
                "node_class": {
                    **NODE_CLASS,
                    "capacity_reservation_selector_terms": [{"id": "cr-1"}],
                },
                "capacity_types": ["reserved"],
                "spot": {},
            },
            "spot",
            "`capacity_types` ['reserved'] has no 'spot'",
        ),
        (
            {
                "node_class": {
                    **NODE_CLASS,
                    "capacity_reservation_selector_terms": [{"id": "cr-1"}],
                },
                "capacity_types": [],
                "requirements": [{"key": CAPACITY_TYPE, "operator": "In", "values": ["spot"]}],
            },
            "node_class.capacity_reservation_selector_terms",
            "['spot'] (`requirements[0].values`) have no 'reserved'",
        ),
        (
            {
                "node_class": {
                    **NODE_CLASS,
                    "capacity_reservation_selector_terms": [{"id": "cr-1", "tags": {"a": "b"}}],
                },
                "capacity_types": ["reserved"],
            },
            "node_class.capacity_reservation_selector_terms[0].id",
            "'id' ('cr-1') is mutually exclusive",
        ),
        (
            {
                "node_class": {
                    **NODE_CLASS,
                    "capacity_reservation_selector_terms": [{"owner_id": "012345678901"}],
                },
                "capacity_types": ["reserved"],
            },
            "node_class.capacity_reservation_selector_terms[0]",
            "expected at least one, got none",
        ),
        (
            {
                "node_class": {
                    **NODE_CLASS,
                    "capacity_reservation_selector_terms": [{"id": "r-1"}],
                },
                "capacity_types": ["reserved"],
            },
            "node_class.capacity_reservation_selector_terms[0].id",
            "'r-1' is not a capacity reservation id",
        ),
        (
            {
                "node_class": {
                    **NODE_CLASS,
                    "capacity_reservation_selector_terms": [{"tags": {"a": "b"}, "owner_id": "12"}],
                },
                "capacity_types": ["reserved"],
            },
            "node_class.capacity_reservation_selector_terms[0].owner_id",
            "'12' is not a 12-digit AWS account id",
        ),
    ],
)
def test_reservation_contradictions_are_refused_at_their_path(args, path, message):
    found = _problems(args)
    assert path in found, found
    assert message in found[path], found[path]


def test_empty_capacity_types_leave_the_key_to_the_users_requirement():
    requirement = {"key": CAPACITY_TYPE, "operator": "In", "values": ["reserved", "on-demand"]}
    manifests = _manifests(
        {
            "node_class": {**NODE_CLASS, "capacity_reservation_selector_terms": [{"id": "cr-1"}]},
            "capacity_types": [],
            "requirements": [requirement],
        }
    )
    assert _requirements(manifests, CAPACITY_TYPE) == [requirement]
    # Said by both a non-empty `capacity_types` and a requirement: one place only.
    found = _problems(
        {"node_class_name": "default", "capacity_types": ["spot"], "requirements": [requirement]}
    )
    assert "set by `capacity_types` (['spot'])" in found["requirements[0].key"]


def test_a_users_gpu_maker_requirement_replaces_the_nvidia_default():
    args = {"node_class_name": "default", "instance_categories": ["g"], "limits": {}}
    maker = "karpenter.k8s.aws/instance-gpu-manufacturer"
    assert _requirements(_manifests(args), maker) == [
        {"key": maker, "operator": "In", "values": ["nvidia"]}
    ]
    own = {"key": maker, "operator": "NotIn", "values": ["amd"]}
    assert _requirements(_manifests({**args, "requirements": [own]}), maker) == [own]


def test_explicit_empty_taints_remove_the_accelerator_taint():
    args = {"node_class_name": "default", "instance_types": ["g5.xlarge"]}
    pool, manifests = prepare_pool(args, "pool", "test")
    assert manifests["node_pool"]["spec"]["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ]
    pool, manifests = prepare_pool({**args, "taints": []}, "pool", "test")
    assert "taints" not in manifests["node_pool"]["spec"]["template"]["spec"]
    assert pool.taints == () and karpenter_scheduling(pool).tolerations == ()


def test_efa_pool_requests_the_efa_device_and_its_class_places_the_instances():
    manifests = _manifests(
        {
            "node_class": {
                **NODE_CLASS,
                "placement_group": {"name": "training-cluster-pg"},
                "network_interfaces": [
                    {"network_card_index": 0, "device_index": 0, "interface_type": "interface"},
                    {"network_card_index": 0, "device_index": 1, "interface_type": "efa-only"},
                    {"network_card_index": 1, "device_index": 0, "interface_type": "efa-only"},
                ],
            },
            "instance_types": ["p5.48xlarge"],
            "limits": {"nvidia.com/gpu": 16},
            "efa": True,
        }
    )
    spec = manifests["node_class"]["spec"]
    assert spec["placementGroupSelector"] == {"name": "training-cluster-pg"}
    assert spec["networkInterfaces"] == [
        {"deviceIndex": 0, "interfaceType": "interface", "networkCardIndex": 0},
        {"deviceIndex": 1, "interfaceType": "efa-only", "networkCardIndex": 0},
        {"deviceIndex": 0, "interfaceType": "efa-only", "networkCardIndex": 1},
    ]
    pool, _ = prepare_pool(
        {"node_class_name": "default", "instance_types": ["p5.48xlarge"], "efa": True}, "p", "t"
    )
    assert karpenter_scheduling(pool).to_dict()["resources"] == {
        "limits": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 1}
    }


@pytest.mark.parametrize(
    ("node_class", "path", "message"),
    [
        (
            {"placement_group": {"id": "pg-0123", "name": "pg"}},
            "node_class.placement_group",
            "exactly one of `id` or `name`",
        ),
        ({"placement_group": {"id": "group-1"}}, "node_class.placement_group.id", "'group-1'"),
        (
            {
                "network_interfaces": [
                    {"network_card_index": 0, "device_index": 1, "interface_type": "efa-only"}
                ]
            },
            "node_class.network_interfaces",
            "must include a primary interface with interfaceType='interface' (network card 0, "
            "device 0); got card 0 device 1 'efa-only'",
        ),
        (
            {
                "network_interfaces": [
                    {"network_card_index": 0, "device_index": 0, "interface_type": "interface"},
                    {"network_card_index": 1, "device_index": 0, "interface_type": "efa-only"},
                    {"network_card_index": 1, "device_index": 1, "interface_type": "efa-only"},
                ]
            },
            "node_class.network_interfaces[2]",
            "at most one efa device per network card (card 1, device 1)",
        ),
        (
            {"annotations": {"bad key!": "x"}},
            "node_class.annotations",
            "annotation key 'bad key!'",
        ),
    ],
)
def test_efa_and_metadata_rules_of_the_crd(node_class, path, message):
    found = _problems({"node_class": {**NODE_CLASS, **node_class}})
    assert path in found, found
    assert message in found[path], found[path]


def test_role_from_another_resource_is_written_when_known():
    # e.g. `NodeRole(...).role_name`: an Output, validated once known.
    def program() -> None:
        role = pulumi.Output.from_input("ml-karpenter-node")
        KarpenterNodePool(
            "gpu",
            {
                "node_class": {**NODE_CLASS, "role": role},
                "instance_types": ["g5.xlarge"],
                "annotations": {"kubernetes.io/description": "GPU pool"},
            },
        )

    capture = run(program)
    node_class = capture.get("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "gpu-node-class")
    assert node_class.inputs["spec"]["role"] == "ml-karpenter-node"
    node_pool = capture.get("kubernetes:karpenter.sh/v1:NodePool", "gpu-node-pool")
    assert node_pool.inputs["metadata"]["annotations"] == {"kubernetes.io/description": "GPU pool"}


# The reserved-capacity pool proposed for stacks/Pulumi.eks-training.yaml (as a stack
# config gives it): it plans, with a capacity-type requirement of `reserved` only.
EKS_TRAINING = """
config:
  nodepools:pools:
    # H100 through Karpenter on reserved capacity: the On-Demand Capacity Reservations and
    # Capacity Blocks tagged for training (Karpenter's ReservedCapacity feature gate on).
    # Reserved only: when the reservations are used up, pods wait rather than run at
    # on-demand prices. EFA pods; the instances share one cluster placement group.
    - component: KarpenterNodePool
      name: h100-karpenter-reserved
      annotations:
        kubernetes.io/description: "H100 training nodes on capacity reservations and blocks"
      capacity_types: [reserved]
      instance_types: [p5.48xlarge]
      efa: true                      # scheduling info requests vpc.amazonaws.com/efa
      labels: {workload: training}
      limits: {nvidia.com/gpu: 32}   # 4 nodes of 8 GPUs: what the reservations hold
      disruption:
        consolidation_policy: WhenEmpty
        consolidate_after: 30m       # a reserved node is paid for: keep it for the next job
        budgets: [{nodes: "0", reasons: [Drifted]}]  # no AMI drift replacement mid-training
      expire_after: Never            # capacity blocks end on their own schedule
      node_class:
        role: KarpenterNodeRole-training
        ami_alias: al2023@latest
        boot_volume_gb: 500
        instance_store_policy: RAID0  # p5's local NVMe for images and scratch
        capacity_reservation_selector_terms:
          - tags: {karpenter.sh/discovery: training, workload: training}
        placement_group: {name: training-h100}
        subnet_selector_tags: {karpenter.sh/discovery: training}
        security_group_selector_tags: {karpenter.sh/discovery: training}
        tags: {team: ml-training}
"""


def test_the_eks_training_reserved_pool_plans():
    [entry] = yaml.safe_load(EKS_TRAINING)["config"]["nodepools:pools"]
    args = {k: v for k, v in entry.items() if k not in ("component", "name")}
    manifests = _manifests(args, entry["name"])
    assert _requirements(manifests, CAPACITY_TYPE)[0]["values"] == ["reserved"]
    assert manifests["node_class"]["spec"]["capacityReservationSelectorTerms"] == [
        {"tags": {"karpenter.sh/discovery": "training", "workload": "training"}}
    ]


def test_efa_pools_need_types_that_carry_efa():
    # g5.xlarge has no EFA; g5.48xlarge 1 interface, p5.48xlarge 32 (the instance catalog,
    # from Karpenter's generated instance-type list).
    found = _problems(
        {"node_class_name": "default", "instance_types": ["g5.xlarge", "p5.48xlarge"], "efa": True}
    )
    assert "`efa` is true but ['g5.xlarge'] offer no EFA interface" in found["instance_types"]
    requirement = {
        "key": "node.kubernetes.io/instance-type",
        "operator": "In",
        "values": ["g5.xlarge"],
    }
    found = _problems({"node_class_name": "default", "requirements": [requirement], "efa": True})
    assert "['g5.xlarge'] offer no EFA interface" in found["requirements[0].values"]
    efa_only = [
        {"network_card_index": card, "device_index": 0 if card else 1, "interface_type": "efa-only"}
        for card in range(2)
    ]
    primary = {"network_card_index": 0, "device_index": 0, "interface_type": "interface"}
    found = _problems(
        {
            "node_class": {**NODE_CLASS, "network_interfaces": [primary, *efa_only]},
            "instance_types": ["g5.48xlarge"],
            "efa": True,
        }
    )
    assert (
        "2 efa-only interfaces, but ['g5.48xlarge'] carry at most 1"
        in found["node_class.network_interfaces"]
    )
