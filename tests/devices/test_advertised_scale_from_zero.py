"""A pool an AcceleratorStack partitions (MIG, time slicing) advertises what its nodes will:
its scheduling info and the EKS cluster-autoscaler node-template tags name the MIG resource
(or the time-sliced count), so a pending pod asking for it scales the pool from zero."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from nodepools.devices.accelerator_stack import AcceleratorStack
from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import Capture, ProgramError
from nodepools.pools.gpu_spot_pool import GpuSpotPool
from nodepools.specs import SpecError

from tests.engines.mocks import run_on

EKS = {
    "kind": "eks",
    "cluster_name": "ml",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-0a1b2c3d4e5f60001"],
}
TEMPLATE = "k8s.io/cluster-autoscaler/node-template/resources/"


def fleet(nvidia: dict[str, Any]) -> dict[str, Any]:
    return {
        "clusters": {"eks": EKS},
        "pools": [
            {
                "component": "GpuSpotPool",
                "name": "h100",
                "cluster": "eks",
                "instance_type": "p5.48xlarge",
                "spot": None,
                "autoscaling": {"min_replicas": 0, "max_replicas": 2},
            },
            {
                "component": "GpuSpotPool",
                "name": "l4",
                "cluster": "eks",
                "instance_type": "g6.12xlarge",
                "autoscaling": {"min_replicas": 0, "max_replicas": 2},
            },
        ],
        "devices": [{"component": "AcceleratorStack", "name": "gpu-software", "nvidia": nvidia}],
    }


MIG = {"mig": {"strategy": "mixed", "profile": {"h100": "1g.10gb"}}}
SLICED = {"time_slicing": {"replicas": {"l4": 4}}}


def resource_tags(capture: Capture, pool: str) -> dict[str, str]:
    return {
        r.inputs["tag"]["key"][len(TEMPLATE) :]: r.inputs["tag"]["value"]
        for r in capture.by_type("aws:autoscaling/tag:Tag")
        if r.name.startswith(f"{pool}-") and r.inputs["tag"]["key"].startswith(TEMPLATE)
    }


def scheduling_limits(capture: Capture, pool: str) -> dict[str, Any]:
    (component,) = [r for r in capture.components() if r.name == pool]
    info = capture.outputs_of(component)["scheduling_info"]
    return info["resources"]["limits"]


def advertised_of(capture: Capture) -> dict[str, Any]:
    (stack,) = [r for r in capture.components() if r.type == AcceleratorStack.TYPE]
    return stack.inputs["advertised"]


@pytest.mark.parametrize("engine", ["plain", "preview", "offline"])
def test_a_mig_pool_scales_from_zero_on_its_mig_resource(engine: str):
    capture = run_on(engine, lambda: deploy_fleet(fleet(MIG)))
    # 8 H100 x 7 `1g.10gb` slices; no whole GPU is left to advertise.
    assert resource_tags(capture, "h100") == {"nvidia.com/mig-1g.10gb": "56"}
    assert scheduling_limits(capture, "h100") == {"nvidia.com/mig-1g.10gb": 56}
    adv = advertised_of(capture)["h100"]
    assert (adv["resource"], adv["count"]) == ("nvidia.com/mig-1g.10gb", 56)
    # The other pool keeps its hardware's resource.
    assert resource_tags(capture, "l4") == {"nvidia.com/gpu": "4"}


def test_time_slicing_multiplies_the_gpus_a_node_offers():
    capture = run_on("offline", lambda: deploy_fleet(fleet(SLICED)))
    assert resource_tags(capture, "l4") == {"nvidia.com/gpu": "16"}
    assert scheduling_limits(capture, "l4") == {"nvidia.com/gpu": 16}
    assert advertised_of(capture)["l4"]["count"] == 16
    assert resource_tags(capture, "h100") == {"nvidia.com/gpu": "8"}


def test_single_strategy_keeps_the_gpu_resource_with_the_slice_count():
    single = {"mig": {"strategy": "single", "profile": {"h100": "3g.40gb"}}}
    capture = run_on("offline", lambda: deploy_fleet(fleet(single)))
    assert resource_tags(capture, "h100") == {"nvidia.com/gpu": "16"}


def test_a_program_gives_its_pool_what_the_stack_says():
    stack_args: dict[str, Any] = {
        "platform": "eks",
        "pools": [
            {
                "name": "h100",
                "accelerator": GpuSpotPool.resolve(
                    "h100", {"cluster": EKS, "instance_type": "p5.48xlarge", "spot": None}
                ).accelerator,
            }
        ],
        "nvidia": MIG,
    }
    offered = AcceleratorStack.required_advertised(stack_args)
    assert offered == {"h100": {"resource": "nvidia.com/mig-1g.10gb", "count": 56}}
    labels = AcceleratorStack.required_labels(stack_args)

    def program() -> None:
        GpuSpotPool(
            "h100",
            {
                "cluster": EKS,
                "instance_type": "p5.48xlarge",
                "spot": None,
                "labels": labels["h100"],
                "advertised": offered["h100"],
            },
        )
        AcceleratorStack("devices", stack_args)

    capture = run_on("plain", program)
    assert resource_tags(capture, "h100") == {"nvidia.com/mig-1g.10gb": "56"}
    assert scheduling_limits(capture, "h100") == {"nvidia.com/mig-1g.10gb": 56}


def test_advertised_on_a_cpu_pool_is_an_error_with_its_path():
    from nodepools.pools.machine_pool import MachinePool

    args = {
        "cluster": EKS,
        "instance_type": "m5.large",
        "replicas": 1,
        "advertised": {"resource": "nvidia.com/gpu", "count": 4},
    }
    with pytest.raises(ProgramError) as err:
        run_on("offline", lambda: MachinePool("cpu", args))
    assert isinstance(err.value.cause, SpecError)
    assert "advertised" in err.value.cause.paths()
    assert "no accelerators to partition" in str(err.value.cause)
    assert err.value.capture.resources == []


def test_a_pool_advertising_something_else_than_its_stack_is_an_error_with_its_path():
    config = copy.deepcopy(fleet(MIG))
    config["pools"][0]["advertised"] = {"resource": "nvidia.com/gpu", "count": 8}
    with pytest.raises(SpecError) as err:
        validate_fleet(config)
    assert any(p.endswith("advertised") for p in err.value.paths())
    assert "nvidia.com/mig-1g.10gb" in str(err.value)


def test_karpenter_keeps_the_hardware_resource_and_the_plan_says_why():
    from nodepools.planning.sections import scheduling_section

    node_class = {
        "role": "KarpenterNodeRole-ml",
        "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
        "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
    }
    config: dict[str, Any] = {
        "pools": [
            {
                "component": "KarpenterNodePool",
                "name": "k-h100",
                "node_class": node_class,
                "instance_types": ["p5.48xlarge"],
                "limits": {"nvidia.com/gpu": 16},
            }
        ],
        "devices": [
            {
                "component": "AcceleratorStack",
                "name": "gpu-software",
                "nvidia": {"mig": {"strategy": "mixed", "profile": {"k-h100": "1g.10gb"}}},
            }
        ],
    }
    capture = run_on("offline", lambda: deploy_fleet(config))
    # Karpenter can't learn MIG resources: the pool's own info stays the instance type's.
    assert scheduling_limits(capture, "k-h100") == {"nvidia.com/gpu": 8}
    assert advertised_of(capture)["k-h100"]["resource"] == "nvidia.com/mig-1g.10gb"
    text = "\n".join(scheduling_section(capture).lines)
    assert "one node advertises nvidia.com/mig-1g.10gb: 56" in text
    assert "won't launch a node" in text


def test_the_plan_warns_about_cluster_autoscaler_and_mixed_mig_on_eks():
    from nodepools.planning.sections import capacity_section, scheduling_section

    capture = run_on("offline", lambda: deploy_fleet(fleet(MIG)))
    text = "\n".join(scheduling_section(capture).lines)
    assert "nvidia.com/mig-1g.10gb: 56" in text
    assert "kubernetes/autoscaler#8095" in text
    capacity = "\n".join(capacity_section(capture).lines)
    (row,) = [line for line in capacity.splitlines() if line.startswith("h100")]
    assert "nvidia.com/mig-1g.10gb" in row and row.split()[-2:] == ["56", "112"]
