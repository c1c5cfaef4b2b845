"""Identifiers that can't be right are refused with their path and value before anything is
registered (issue 29 item 8): EKS cluster names, EC2 subnet / security group / VPC ids, OCIDs
of OKE clusters, compartments, images, subnets and node pools. A value resolved from an
Output is not held to the format: under a user's mocks it needn't look like a real id."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import MachinePool, OkeClusterAutoscaler
from nodepools.offline import run
from nodepools.specs import SpecError

from tests.conftest import EKS, OKE

OKE_POOL = {"instance_type": "VM.GPU.A10.1", "replicas": 1}
EKS_POOL = {"instance_type": "m5.large", "replicas": 1}
EFA = {"efa": True, "subnet_id": "subnet-0a1b", "vpc_id": "vpc-0a1b", "security_group_ids": ["sg-0a1b"]}  # fmt: skip


def _refused(args: dict[str, Any], path: str, fragment: str) -> None:
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight("p", args)
    found = {issue.path: issue.message for issue in raised.value.issues}
    assert path in found, found
    assert fragment in found[path], found[path]


@pytest.mark.parametrize(
    ("cluster", "path", "fragment"),
    [
        ({**EKS, "cluster_name": ""}, "cluster.cluster_name", "'' is not an EKS cluster name"),
        ({**EKS, "cluster_name": "-ml"}, "cluster.cluster_name", "'-ml' is not an EKS cluster name"),
        ({**EKS, "cluster_name": "ml.platform"}, "cluster.cluster_name", "'ml.platform'"),
        ({**EKS, "cluster_name": "a" * 101}, "cluster.cluster_name", "1 to 100"),
        ({**EKS, "subnet_ids": ["subnet-a", ""]}, "cluster.subnet_ids[1]", "'' is not a subnet id"),
        ({**EKS, "subnet_ids": ["sg-0a1b"]}, "cluster.subnet_ids[0]", "'sg-0a1b' is not a subnet id"),
        ({**OKE, "cluster_id": ""}, "cluster.cluster_id", "'' is not a cluster OCID"),
        ({**OKE, "cluster_id": "ocid1.subnet.oc1..a"}, "cluster.cluster_id", "is not a cluster OCID"),
        ({**OKE, "compartment_id": "ml-team"}, "cluster.compartment_id", "'ml-team' is not a compartment OCID"),
        ({**OKE, "image_id": "oracle-linux-8"}, "cluster.image_id", "is not an image OCID"),
        ({**OKE, "placements": [{"availability_domain": "Uocm:PHX-AD-1", "subnet_id": ""}]}, "cluster.placements[0].subnet_id", "'' is not a subnet OCID"),
    ],
)  # fmt: skip
def test_cluster_identifiers(cluster: dict[str, Any], path: str, fragment: str):
    pool = EKS_POOL if cluster["kind"] == "eks" else OKE_POOL
    _refused({"cluster": cluster, **pool}, path, fragment)


@pytest.mark.parametrize(
    ("network", "path", "fragment"),
    [
        ({"subnet_id": ""}, "network.subnet_id", "'' is not a subnet id"),
        ({**EFA, "vpc_id": "main"}, "network.vpc_id", "'main' is not a VPC id"),
        ({**EFA, "security_group_ids": ["sg-0a1b", "cluster"]}, "network.security_group_ids[1]", "'cluster' is not a security group id"),
    ],
)  # fmt: skip
def test_network_identifiers(network: dict[str, Any], path: str, fragment: str):
    _refused({"cluster": EKS, "instance_type": "p5.48xlarge", "replicas": 1, "network": network}, path, fragment)  # fmt: skip


def test_the_root_compartment_is_the_tenancy():
    MachinePool.preflight(
        "p", {"cluster": {**OKE, "compartment_id": "ocid1.tenancy.oc1..aaaa"}, **OKE_POOL}
    )


def test_oke_autoscaler_identifiers():
    args = {
        "cluster_id": "cluster-1",
        "pools": [{"name": "a", "node_pool_id": "np-1", "min_nodes": 0, "max_nodes": 2}],
    }
    with pytest.raises(SpecError) as raised:
        OkeClusterAutoscaler.preflight("a", args)
    assert {i.path for i in raised.value.issues} == {"cluster_id", "pools[0].node_pool_id"}


def test_a_resolved_output_is_not_held_to_the_format():
    # The mocks give the node group's subnet an id of their own ("nodes_id"): a user's unit
    # test of a program wiring Outputs must still run.
    def program() -> None:
        import pulumi_aws as aws

        subnet = aws.ec2.Subnet("nodes", vpc_id="vpc-1", cidr_block="10.0.0.0/24")
        MachinePool("p", {"cluster": {**EKS, "subnet_ids": [subnet.id]}, **EKS_POOL})

    run(program)
