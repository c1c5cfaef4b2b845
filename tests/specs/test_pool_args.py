"""MachinePoolArgs / GpuSpotPoolArgs: every rule, with its path and a message quoting the value."""

from __future__ import annotations

import pytest
from nodepools.specs import GpuSpotPoolArgs, MachinePoolArgs, SpecError, parse_spec
from nodepools.specs.pools.resolve import resolve_gpu_spot_pool, resolve_pool

from tests.conftest import EKS, OKE


def problems(model, data) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        parse_spec(model, data, "pool 'p'")
    return {issue.path: issue.message for issue in caught.value.issues}


def test_replicas_and_autoscaling_are_exclusive():
    found = problems(
        MachinePoolArgs,
        {
            "cluster": EKS,
            "instance_type": "m5.large",
            "replicas": 2,
            "autoscaling": {"min_replicas": 1, "max_replicas": 2},
        },
    )
    assert found == {"autoscaling": "only one of `replicas` or `autoscaling` can be provided"}


def test_one_of_replicas_or_autoscaling_required():
    found = problems(MachinePoolArgs, {"cluster": EKS, "instance_type": "m5.large"})
    assert found == {"autoscaling": "one of `replicas` or `autoscaling` is required"}


def test_many_problems_reported_at_once():
    found = problems(
        MachinePoolArgs,
        {
            "cluster": EKS,
            "instance_type": "g4dn.xlarge",
            "autoscaling": {"min_replicas": 5, "max_replicas": 3},
            "labels": {"bad key": "x", "ok": "a" * 64},
            "taints": [{"key": "a", "effect": "NoSchedul"}],
            "boot_volume_gb": -1,
            "spot": {"max_price": 0.5},
            "unknown_field": True,
        },
    )
    assert set(found) == {
        "autoscaling.max_replicas",
        'labels["bad key"]',
        "labels.ok",
        "taints[0].effect",
        "boot_volume_gb",
        "spot.max_price",
        "unknown_field",
    }
    assert (
        found["autoscaling.max_replicas"]
        == "`min_replicas` 5 can't be greater than `max_replicas` 3"
    )
    assert "'NoSchedul'" in found["taints[0].effect"]
    assert "(got -1)" in found["boot_volume_gb"]
    assert "EKS managed node groups can't cap the spot price" in found["spot.max_price"]
    assert "0.5" in found["spot.max_price"]
    assert found["unknown_field"] == "unknown field (got True)"


def test_spot_max_price_unsupported_on_oke():
    found = problems(
        MachinePoolArgs,
        {
            "cluster": OKE,
            "instance_type": "VM.GPU.A10.1",
            "replicas": 1,
            "spot": {"max_price": 1.0},
        },
    )
    assert "OKE node pools can't cap the spot price" in found["spot.max_price"]


def test_boot_volume_range_per_cloud():
    found = problems(
        MachinePoolArgs,
        {"cluster": OKE, "instance_type": "VM.GPU.A10.1", "replicas": 1, "boot_volume_gb": 40},
    )
    assert found == {"boot_volume_gb": "40 is outside 50..32768 GiB for OKE node pools"}


def test_identity_label_is_reserved_and_pool_name_checked():
    found = problems(
        MachinePoolArgs,
        {
            "cluster": EKS,
            "instance_type": "m5.large",
            "replicas": 1,
            "labels": {"nodepools.dev/pool": "x"},
            "pool_name": "Bad_Name",
        },
    )
    assert "set by the pool itself" in found["labels"]
    assert "'Bad_Name' is not a valid pool name" in found["pool_name"]


def test_default_pool_name_from_component_name_is_checked():
    args = parse_spec(
        MachinePoolArgs, {"cluster": EKS, "instance_type": "m5.large", "replicas": 1}, "p"
    )
    with pytest.raises(SpecError) as caught:
        resolve_pool(args, "Not_Valid")
    assert caught.value.paths() == ["pool_name"]
    assert "component name is used" in str(caught.value)


def test_unknown_cluster_kind():
    found = problems(
        MachinePoolArgs, {"cluster": {"kind": "gke"}, "instance_type": "x", "replicas": 1}
    )
    assert "unknown kind 'gke'" in found["cluster"]


def test_gpu_spot_pool_needs_an_accelerator():
    found = problems(GpuSpotPoolArgs, {"cluster": EKS, "instance_type": "m5.large"})
    assert "'m5.large' has no accelerator" in found["accelerator"]
    # A type the catalog lacks takes the accelerator it is given (one it knows must agree).
    custom = parse_spec(
        GpuSpotPoolArgs,
        {
            "cluster": EKS,
            "instance_type": "f9.2xlarge",
            "accelerator": {"resource": "example.com/fpga", "count": 2},
        },
        "p",
    )
    pool = resolve_gpu_spot_pool(custom, "fpga")
    assert [str(t) for t in pool.taints] == [
        "example.com/fpga=true:NoSchedule",
        "spot=true:PreferNoSchedule",
    ]


def test_gpu_spot_pool_defaults():
    args = parse_spec(GpuSpotPoolArgs, {"cluster": EKS, "instance_type": "trn1.2xlarge"}, "p")
    pool = resolve_gpu_spot_pool(args, "trainium")
    assert (pool.min_nodes, pool.max_nodes, pool.autoscaled) == (0, 3, True)
    assert pool.spot is not None and pool.spot.max_price is None
    assert [str(t) for t in pool.taints] == [
        "aws.amazon.com/neuron=true:NoSchedule",
        "spot=true:PreferNoSchedule",
    ]
    assert pool.labels == {"node-type": "gpu", "nodepools.dev/pool": "trainium"}


def test_gpu_spot_pool_with_fixed_replicas_and_no_spot():
    args = parse_spec(
        GpuSpotPoolArgs,
        {"cluster": EKS, "instance_type": "g5.xlarge", "replicas": 2, "spot": None},
        "p",
    )
    pool = resolve_gpu_spot_pool(args, "gpu")
    assert (pool.min_nodes, pool.max_nodes, pool.autoscaled) == (2, 2, False)
    assert [str(t) for t in pool.taints] == ["nvidia.com/gpu=true:NoSchedule"]


def test_flex_shapes_need_ocpus_and_memory():
    base = {"cluster": OKE, "instance_type": "VM.Standard.E4.Flex", "replicas": 1}
    found = problems(MachinePoolArgs, base)
    assert set(found) == {"ocpus", "memory_gb"}
    assert "required when the shape is flexible (VM.Standard.E4.Flex)" in found["ocpus"]
    args = parse_spec(MachinePoolArgs, {**base, "ocpus": 8, "memory_gb": 64}, "p")
    pool = resolve_pool(args, "flex")
    assert (pool.ocpus, pool.memory_gb) == (8, 64)
    fixed = problems(
        MachinePoolArgs, {**base, "instance_type": "VM.GPU.A10.1", "ocpus": 8, "memory_gb": 64}
    )
    assert "only for flexible `.Flex` shapes" in fixed["ocpus"]


@pytest.mark.parametrize(
    "key",
    [
        "node-role.kubernetes.io/gpu",
        "k8s.io/team",
        "node-restriction.kubernetes.io/gpu",
        "example.k8s.io/tier",
    ],
)
def test_labels_the_kubelet_refuses_are_rejected(key):
    found = problems(
        MachinePoolArgs,
        {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, "labels": {key: "x"}},
    )
    assert f'labels["{key}"]' in found
    assert "reserved" in found[f'labels["{key}"]']


def test_a_pool_wide_hostname_label_is_refused():
    found = problems(
        MachinePoolArgs,
        {
            "cluster": EKS,
            "instance_type": "m5.large",
            "replicas": 1,
            "labels": {"kubernetes.io/hostname": "x"},
        },
    )
    assert "same hostname label" in found['labels["kubernetes.io/hostname"]']


@pytest.mark.parametrize(
    "key", ["karpenter.sh/controller", "karpenter.sh/nodepool", "beta.kubernetes.io/arch"]
)
def test_labels_outside_the_kubelets_restricted_keys_are_allowed(key):
    # NodeRestriction (KEP-279) restricts kubernetes.io and k8s.io only: EKS blueprints
    # label the node group that runs Karpenter's controller `karpenter.sh/controller`.
    args = parse_spec(
        MachinePoolArgs,
        {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, "labels": {key: "true"}},
        "p",
    )
    assert args.labels[key] == "true"


def test_labels_the_kubelet_may_set_are_allowed():
    labels = {"node.kubernetes.io/lifecycle": "spot", "topology.kubernetes.io/zone": "a"}
    args = parse_spec(
        MachinePoolArgs,
        {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, "labels": labels},
        "p",
    )
    assert args.labels == labels


def test_a_label_key_spelling_a_union_tag_keeps_its_path():
    # `eks` is also the tag of the cluster union; as a user's label key it stays in the path.
    found = problems(
        MachinePoolArgs,
        {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, "labels": {"eks": "x" * 64}},
    )
    assert set(found) == {"labels.eks"}
    # ...while the tag pydantic inserts for the union is still left out.
    found = problems(
        MachinePoolArgs,
        {"cluster": {**EKS, "cluster_name": 5}, "instance_type": "m5.large", "replicas": 1},
    )
    assert set(found) == {"cluster.cluster_name"}
