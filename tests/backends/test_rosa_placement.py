"""ROSA single-AZ pools and extra security groups (issue 14): `availability_zone`,
`subnet_id`, `additional_security_group_ids` from the spec to the OCM body, through the
dynamic provider to the fake OCM, and what EKS and OKE do with them."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import MachinePool, SharedNodePool
from nodepools.backends.rosa.machine_pool import OcmMachinePoolProvider
from nodepools.backends.rosa.request_body import machine_pool_body
from nodepools.offline import run
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.args import MachinePoolArgs
from nodepools.specs.pools.resolve import resolve_pool

from tests.backends.ocm_testing import MULTI_AZ, inputs
from tests.conftest import EKS, OKE
from tests.fake_ocm import running_fake_ocm
from tests.golden import assert_golden

ROSA_1AZ = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
ROSA_3AZ = {**ROSA_1AZ, "multi_az": True}
SG = ["sg-0a1b2c3d4e5f60718", "sg-01234567"]


def body(args: dict[str, Any]) -> dict[str, Any]:
    spec = parse_spec(MachinePoolArgs, {"instance_type": "g5.12xlarge", **args}, "pool")
    return machine_pool_body(resolve_pool(spec, "gpu"))


def problems(args: dict[str, Any], cluster: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        MachinePool.preflight(
            "gpu", {"cluster": cluster, "instance_type": "g5.12xlarge", "replicas": 2, **args}
        )
    return {issue.path: issue.message for issue in raised.value.issues}


def test_one_zone_of_a_multi_az_cluster_with_security_groups():
    sent = body(
        {
            "cluster": ROSA_3AZ,
            "availability_zone": "us-east-1b",
            "additional_security_group_ids": SG,
            "autoscaling": {"min_replicas": 1, "max_replicas": 2},  # no multiple of 3 needed
            "spot": {},
        }
    )
    assert sent["availability_zones"] == ["us-east-1b"]
    assert sent["aws"] == {
        "spot_market_options": {},
        "additional_security_group_ids": sorted(SG),
    }
    assert_golden("rosa/single-az-security-groups.json", sent)


def test_one_subnet_of_a_byo_vpc_cluster():
    sent = body({"cluster": ROSA_1AZ, "subnet_id": "subnet-0123456789abcdef0", "replicas": 2})
    assert sent["subnets"] == ["subnet-0123456789abcdef0"] and "availability_zones" not in sent
    assert "aws" not in sent
    assert_golden("rosa/single-subnet.json", sent)


def test_a_multi_az_pool_still_needs_multiples_of_3():
    found = problems({}, ROSA_3AZ)
    assert "multiple of 3" in found["replicas"]


@pytest.mark.parametrize(
    ("args", "cluster", "path", "fragment"),
    [
        (
            {"availability_zone": "us-east-1a", "subnet_id": "subnet-01234567"},
            ROSA_3AZ,
            "subnet_id",
            "not both",
        ),
        ({"availability_zone": "us-east-1a"}, ROSA_1AZ, "availability_zone", "multi-AZ"),
        ({"availability_zone": "east"}, ROSA_3AZ, "availability_zone", "east"),
        ({"subnet_id": "vpc-1"}, ROSA_1AZ, "subnet_id", "vpc-1"),
        (
            {"additional_security_group_ids": ["sg-1", "group"]},
            ROSA_1AZ,
            "additional_security_group_ids[0]",
            "sg-1",
        ),
        ({"additional_security_group_ids": []}, ROSA_1AZ, "additional_security_group_ids", "[]"),
        (
            {"additional_security_group_ids": [SG[0], SG[0]]},
            ROSA_1AZ,
            "additional_security_group_ids",
            "twice",
        ),
        ({"availability_zone": "us-east-1a"}, EKS, "availability_zone", "EKS"),
        ({"additional_security_group_ids": SG}, EKS, "additional_security_group_ids", "EKS"),
        ({"availability_zone": "us-east-1a"}, OKE, "availability_zone", "OKE"),
        ({"subnet_id": "subnet-01234567"}, OKE, "subnet_id", "OKE"),
        ({"additional_security_group_ids": SG}, OKE, "additional_security_group_ids", "OKE"),
    ],
)
def test_refused_with_the_path(args, cluster, path, fragment):
    if cluster is OKE:
        args = {**args, "instance_type": "VM.GPU.A10.1"}
    found = problems(args, cluster)
    assert path in found, found
    assert fragment in found[path], found[path]


def test_eks_points_subnet_id_to_its_network_subnet():
    found = problems({"subnet_id": "subnet-0123abcd"}, EKS)
    assert "`network.subnet_id`" in found["subnet_id"]


def test_a_shared_pool_takes_the_same_fields_on_rosa():
    capture = run(
        lambda: SharedNodePool(
            "h100",
            {
                "cluster": ROSA_3AZ,
                "shape": "p5.48xlarge",
                "size": 1,
                "availability_zone": "us-east-1c",
                "additional_security_group_ids": SG[:1],
            },
        )
    )
    [pool] = capture.by_type("pulumi-python:dynamic/ocm:MachinePool")
    assert pool.inputs["body"]["availability_zones"] == ["us-east-1c"]
    assert pool.inputs["body"]["replicas"] == 1
    assert pool.inputs["body"]["aws"] == {"additional_security_group_ids": SG[:1]}


# -- through the provider to OCM -----------------------------------------------------------


@pytest.fixture
def provider(client_options: dict[str, Any]) -> OcmMachinePoolProvider:
    return OcmMachinePoolProvider(client_options)


def _single_az_body(**aws: Any) -> dict[str, Any]:
    return {
        "id": "gpu",
        "instance_type": "g5.12xlarge",
        "replicas": 1,
        "availability_zones": ["us-east-1a"],
        **({"aws": aws} if aws else {}),
    }


def test_created_in_one_zone_with_groups_and_replaced_when_they_change(provider, fake_ocm):
    props = inputs(
        fake_ocm, cluster_id=MULTI_AZ, body=_single_az_body(additional_security_group_ids=SG)
    )
    checked = provider.check({}, props)
    assert checked.failures == []
    created = provider.create(checked.inputs)
    live = fake_ocm.pools(MULTI_AZ)["gpu"]
    assert live["availability_zones"] == ["us-east-1a"] and live["replicas"] == 1
    assert live["aws"]["additional_security_group_ids"] == sorted(SG)

    same = provider.diff(created.id, created.outs, checked.inputs)
    assert not same.changes
    other = inputs(
        fake_ocm, cluster_id=MULTI_AZ, body=_single_az_body(additional_security_group_ids=SG[:1])
    )
    diff = provider.diff(created.id, created.outs, provider.check({}, other).inputs)
    assert diff.replaces == ["body.aws.additional_security_group_ids"]
    assert diff.delete_before_replace  # the same pool id: OCM refuses two
    dropped = provider.diff(
        created.id,
        created.outs,
        provider.check({}, inputs(fake_ocm, cluster_id=MULTI_AZ, body=_single_az_body())).inputs,
    )
    assert dropped.replaces == ["body.aws.additional_security_group_ids"]


def test_the_fake_refuses_what_ocm_refuses(client_options):
    with running_fake_ocm("offline-token", **{"byo": False, "three": True}) as fake:
        fake.add_cluster("byo", subnets=("subnet-0aaaaaaa",))
        provider = OcmMachinePoolProvider(client_options)
        cases = [
            ("three", {**_single_az_body(), "availability_zones": ["eu-west-1a"]}, "zones"),
            (
                "byo",
                {**_single_az_body(), "availability_zones": None, "subnets": ["subnet-0bbbbbbb"]},
                "subnets",
            ),
            ("three", _single_az_body(additional_security_group_ids=["group-1"]), "sg-"),
        ]
        for cluster_id, sent, fragment in cases:
            sent = {k: v for k, v in sent.items() if v is not None}
            props = {
                **inputs(fake, cluster_id=cluster_id, body=sent),
                "multi_az": cluster_id == "three",
                "token": "offline-token",
            }
            with pytest.raises(Exception, match=fragment):
                provider.create(props)
        assert fake.pools("three") == {} and fake.pools("byo") == {}
