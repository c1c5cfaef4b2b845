"""Reading pools out of engine-shaped resources: accelerators, taints, Karpenter pins."""

from __future__ import annotations

import base64

import pytest
from nodepools.policies import pool_model
from nodepools.policies.cloud_pools import taints_from_kubelet_args
from nodepools.policies.label_policies import restricted_domain
from nodepools.policies.pool_model import Accelerator, Taint
from nodepools.policies.quantities import parse_quantity
from nodepools.policies.resources import is_rosa_machine_pool, pool_view
from nodepools.specs.catalog.accelerators import AMD_GPU, AWS_NEURON, NVIDIA_GPU

from tests.policies.fixtures import (
    karpenter_node_pool,
    oke_node_pool,
    requirement,
    rosa_machine_pool,
)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("g4dn.xlarge", Accelerator(NVIDIA_GPU, 1)),
        ("g5.48xlarge", Accelerator(NVIDIA_GPU, 8)),
        ("p3.2xlarge", Accelerator(NVIDIA_GPU, 1)),
        ("p4d.24xlarge", Accelerator(NVIDIA_GPU, 8)),
        ("p5.48xlarge", Accelerator(NVIDIA_GPU, 8)),
        ("g6.9xlarge", Accelerator(NVIDIA_GPU, None)),
        ("g4ad.64xlarge", Accelerator(AMD_GPU, None)),
        ("trn1.32xlarge", Accelerator(AWS_NEURON, 16)),
        ("inf2.xlarge", Accelerator(AWS_NEURON, 1)),
        ("VM.GPU.A10.1", Accelerator(NVIDIA_GPU, 1)),
        ("BM.GPU.A10.4", Accelerator(NVIDIA_GPU, 4)),
        ("BM.GPU.MI300X.8", Accelerator(AMD_GPU, 8)),
        ("m5.xlarge", None),
        ("c6a.large", None),
        ("BM.Standard.E5.192", None),
        ("VM.Standard.E4.Flex", None),
    ],
)
def test_accelerators_by_catalog_then_by_family(shape, expected):
    # Counts come from the components' catalog; a size it doesn't list is still recognised
    # by its family (count unknown), so it can't escape the taint rule.
    assert pool_model.accelerator_for(shape) == expected


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (
            'oke-init.sh --kubelet-extra-args "--register-with-taints=nvidia.com/gpu=true:NoSchedule,spot:PreferNoSchedule"',
            (
                Taint("nvidia.com/gpu", "true", "NoSchedule"),
                Taint("spot", None, "PreferNoSchedule"),
            ),
        ),
        (
            "oke-init.sh --kubelet-extra-args '--max-pods=31 --register-with-taints a=:NoExecute'",
            (Taint("a", "", "NoExecute"),),
        ),
        ('oke-init.sh --kubelet-extra-args "--max-pods=31"', ()),
    ],
)
def test_kubelet_taints(script, expected):
    assert taints_from_kubelet_args(script) == expected


def test_oke_user_data_may_be_plain_text():
    pool = oke_node_pool()
    pool.props["nodeMetadata"]["user_data"] = base64.b64decode(
        pool.props["nodeMetadata"]["user_data"]
    ).decode()

    view = pool_view(pool.type, pool.props, pool.name)

    assert view is not None and view.taints == (Taint(AMD_GPU, "true", "NoSchedule"),)


def test_oke_pool_reads_tags_boot_volume_and_preemption():
    pool = oke_node_pool(size=1.0, max_nodes="2", boot_volume_gb="500", preemptible=True)

    view = pool_view(pool.type, pool.props, pool.name)

    assert view is not None
    assert (view.min_nodes, view.max_nodes, view.boot_volume_gb) == (0.0, 2.0, 500.0)
    assert (view.spot, view.bare_metal, view.name) == (True, True, "mi300x")


def test_rosa_pool_reads_the_ocm_body():
    pool = rosa_machine_pool(spot_max_price=1.2, autoscaling=(3.0, 6.0))

    view = pool_view(pool.type, pool.props, pool.name)

    assert view is not None
    assert (view.min_nodes, view.max_nodes, view.max_price, view.spot) == (3.0, 6.0, 1.2, True)
    assert view.boot_volume_gb == 300.0


def test_dynamic_resources_other_than_machine_pools_are_not_pools():
    pool = rosa_machine_pool()
    pool.props["resource_type"] = "ocm:clusters_mgmt/v1:IdentityProvider"

    assert pool_view(pool.type, pool.props, pool.name) is None


@pytest.mark.parametrize(
    ("resource_type", "is_pool"),
    [
        # What OcmMachinePool registers as (checked against a real registration in
        # tests/backends/test_rosa_backend.py).
        ("pulumi-python:dynamic/ocm:MachinePool", True),
        # The OCM provider used directly on the generic dynamic resource.
        ("pulumi-python:dynamic:Resource", True),
        # Someone else's dynamic resource that happens to carry the same marker input.
        ("pulumi-python:dynamic/other:MachinePool", False),
    ],
)
def test_rosa_pools_are_recognised_by_type_and_marker(resource_type, is_pool):
    pool = rosa_machine_pool()

    assert is_rosa_machine_pool(resource_type, pool.props) is is_pool
    assert (pool_view(resource_type, pool.props, pool.name) is not None) is is_pool


@pytest.mark.parametrize(
    ("requirements", "expected"),
    [
        ([requirement("karpenter.k8s.aws/instance-family", "In", "g5", "p4d")], {NVIDIA_GPU}),
        ([requirement("karpenter.k8s.aws/instance-family", "In", "g4ad")], {AMD_GPU}),
        ([requirement("karpenter.k8s.aws/instance-category", "In", "g", "p")], {NVIDIA_GPU}),
        ([requirement("karpenter.k8s.aws/instance-category", "In", "trn", "inf")], {AWS_NEURON}),
        ([requirement("karpenter.k8s.aws/instance-category", "In", "c", "m", "r")], set()),
        ([requirement("karpenter.k8s.aws/instance-category", "NotIn", "g", "p")], set()),
        ([requirement("node.kubernetes.io/instance-type", "In", "trn1.2xlarge")], {AWS_NEURON}),
        ([requirement("node.kubernetes.io/instance-type", "NotIn", "p5.48xlarge")], set()),
        ([requirement("karpenter.k8s.aws/instance-gpu-count", "Gt", "0")], {NVIDIA_GPU}),
        ([requirement("karpenter.k8s.aws/instance-gpu-count", "In", "0")], set()),
        ([requirement("karpenter.k8s.aws/instance-gpu-count", "Exists")], {NVIDIA_GPU}),
        (
            [
                requirement("karpenter.k8s.aws/instance-gpu-count", "Gt", "0"),
                requirement("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "amd"),
            ],
            {AMD_GPU},
        ),
        ([requirement("karpenter.k8s.aws/instance-gpu-name", "In", "a10g")], {NVIDIA_GPU}),
        (
            [requirement("karpenter.k8s.aws/instance-accelerator-name", "In", "inferentia")],
            {AWS_NEURON},
        ),
        ([requirement("karpenter.k8s.aws/instance-accelerator-count", "Gt", "0")], {AWS_NEURON}),
        ([requirement("karpenter.sh/capacity-type", "In", "spot")], set()),
    ],
)
def test_karpenter_accelerator_pins(requirements, expected):
    pool = karpenter_node_pool(requirements=requirements)

    view = pool_view(pool.type, pool.props, pool.name)

    assert view is not None and {a.resource for a in view.accelerators} == expected


def test_karpenter_instance_type_pin_keeps_the_per_node_count():
    pool = karpenter_node_pool(
        requirements=[
            requirement("karpenter.k8s.aws/instance-family", "In", "p4d"),
            requirement("node.kubernetes.io/instance-type", "In", "p4d.24xlarge"),
        ]
    )

    view = pool_view(pool.type, pool.props, pool.name)

    assert view is not None and view.accelerators == (Accelerator(NVIDIA_GPU, 8),)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (8.0, 8.0),
        ("8", 8.0),
        ("500m", 0.5),
        ("64Gi", 64 * 2.0**30),
        ("1k", 1000.0),
        ("1e3", 1000.0),
        ("+.5", 0.5),
        (True, None),
        ("lots", None),
        ("8 GPUs", None),
        (None, None),
    ],
)
def test_quantities(value, expected):
    assert parse_quantity(value) == expected


@pytest.mark.parametrize(
    ("key", "domain"),
    [
        ("team", None),
        ("example.com/team", None),
        ("nodepools.dev/pool", None),
        ("kubernetes.io/arch", None),
        ("node.kubernetes.io/instance-type", None),
        ("node.kubernetes.io/gpu-pool", None),
        ("topology.kubernetes.io/zone", None),
        ("kubernetes.io/hostname", "kubernetes.io"),
        ("kubernetes.io/role", "kubernetes.io"),
        ("node-role.kubernetes.io/gpu", "kubernetes.io"),
        ("node-restriction.kubernetes.io/gpu", "kubernetes.io"),
        ("example.k8s.io/tier", "k8s.io"),
        # Not the kubelet's business (KEP-279 restricts kubernetes.io and k8s.io only):
        ("karpenter.sh/controller", None),
        ("karpenter.k8s.aws/instance-family", None),
        ("beta.kubernetes.io/arch", None),
        ("failure-domain.beta.kubernetes.io/zone", None),
        ("kubelet.kubernetes.io/custom", None),
        ("x.node.kubernetes.io/custom", None),
        ("notkubernetes.io/x", None),
    ],
)
def test_restricted_label_domains(key, domain):
    assert restricted_domain(key) == domain
