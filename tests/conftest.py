"""Shared fixtures: cluster targets as stack YAML would give them."""

from __future__ import annotations

import pytest

EKS = {
    "kind": "eks",
    "cluster_name": "ml-platform",
    "node_role_arn": "arn:aws:iam::123456789012:role/ml-nodes",
    "subnet_ids": ["subnet-a", "subnet-b"],
}
OKE = {
    "kind": "oke",
    "cluster_id": "ocid1.cluster.oc1..example",
    "compartment_id": "ocid1.compartment.oc1..example",
    "image_id": "ocid1.image.oc1..example",
    "placements": [{"availability_domain": "Uocm:PHX-AD-1", "subnet_id": "ocid1.subnet.oc1..a"}],
}


@pytest.fixture
def eks_cluster() -> dict:
    return dict(EKS)


@pytest.fixture
def oke_cluster() -> dict:
    return dict(OKE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep the real control-plane tests on one xdist worker: they share one session cluster
    (etcd + kube-apiserver + kube-scheduler), which every other worker would start again."""
    for item in items:
        if "controlplane" in item.path.parts:
            item.add_marker(pytest.mark.xdist_group("controlplane"))
