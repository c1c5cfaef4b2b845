"""Any mix of `network` and `capacity_reservation` on any backend is refused with its paths
before anything is registered, or builds with arguments the SDK has; never anything else."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nodepools import GpuSpotPool, MachinePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError

from tests.conftest import EKS, OKE
from tests.engines.test_sdk_faithfulness import unfaithful

ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
CLUSTERS = {
    "eks-1": ({**EKS, "subnet_ids": ["subnet-a"]}, ["p5.48xlarge", "g6e.12xlarge", "m5.large", "p3.2xlarge"]),
    "eks-2": (EKS, ["p4d.24xlarge", "g6e.48xlarge", "g5.xlarge"]),
    "oke": (OKE, ["BM.GPU.H100.8", "VM.GPU.A10.1"]),
    "rosa": (ROSA, ["p4d.24xlarge", "m5.xlarge"]),
}  # fmt: skip

NETWORK = st.none() | st.fixed_dictionaries(
    {},
    optional={
        "efa": st.booleans(),
        "placement_group": st.sampled_from(["cluster", "ring", ""]),
        "subnet_id": st.sampled_from(["subnet-b"]),
        "vpc_id": st.sampled_from(["vpc-1"]),
        "security_group_ids": st.sampled_from([[], ["sg-0c1a57e4"]]),
    },
)
RESERVATION = st.none() | st.fixed_dictionaries(
    {"type": st.sampled_from(["capacity_block", "on_demand", "spot"])},
    optional={
        "ids": st.sampled_from(
            [
                ["cr-02168da1478b509e0"],
                ["cr-02168da1478b509e0", "cr-0123456789abcdef0"],
                ["ocid1.capacityreservation.oc1.phx.aaaa1"],
                [],
            ]
        ),
        "resource_group_arn": st.sampled_from(
            ["arn:aws:resource-groups:us-east-1:123456789012:group/g", "g"]
        ),
    },
)


@st.composite
def pools(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    cluster, types = CLUSTERS[draw(st.sampled_from(sorted(CLUSTERS)))]
    args: dict[str, Any] = {"cluster": cluster, "instance_type": draw(st.sampled_from(types))}
    args["autoscaling"] = {"min_replicas": draw(st.sampled_from([0, 3])), "max_replicas": 3}
    if (network := draw(NETWORK)) is not None:
        args["network"] = network
    if (reservation := draw(RESERVATION)) is not None:
        args["capacity_reservation"] = reservation
    component = draw(st.sampled_from([MachinePool, GpuSpotPool]))
    if component is GpuSpotPool and draw(st.booleans()):
        args["spot"] = None
    return component, args


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pools())
def test_refused_with_paths_or_built_faithfully(pool: tuple[Any, dict[str, Any]]):
    component, args = pool
    try:
        component.preflight("pool", args)
    except SpecError as exc:
        assert exc.issues and all(issue.path and issue.message for issue in exc.issues)
        return
    capture = run(lambda: component("pool", args))
    problems, _ = unfaithful(capture)
    assert problems == []
