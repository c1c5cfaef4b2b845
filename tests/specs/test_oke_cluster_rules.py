"""What an OKE cluster refuses of a pool before anything is registered: scale from zero the
OCI cluster autoscaler can't do, and on a basic cluster (`cluster_type: basic`) the
enhanced-cluster features the library would otherwise create (the ClusterAutoscaler and GPU
plugin add-ons, node cycling, workload identity) and more than 1,000 nodes."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import AcceleratorStack, GpuSpotPool, MachinePool, SharedNodePool, SpecError
from nodepools.fleet.deploy import deploy_fleet
from nodepools.offline import ProgramError, run
from nodepools.pools.oke_autoscaler import OkeClusterAutoscaler
from nodepools.specs.clusters.targets import OkeCluster

from tests.conftest import OKE

BASIC = {**OKE, "cluster_type": "basic"}
BASIC_OWN_AUTOSCALER = {**BASIC, "cluster_autoscaler": None}
CPU = {"instance_type": "VM.Standard.E4.Flex", "ocpus": 2, "memory_gb": 16}
ADDON = "oci:ContainerEngine/addon:Addon"


def issues(component: type, args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        component.preflight("pool", args)
    return {issue.path: issue.message for issue in caught.value.issues}


# --- scale from zero -------------------------------------------------------------------


def test_scale_from_zero_is_refused_for_amd_gpus():
    found = issues(
        MachinePool,
        {
            "cluster": OKE,
            "instance_type": "BM.GPU.MI300X.8",
            "boot_volume_gb": 500,
            "autoscaling": {"min_replicas": 0, "max_replicas": 2},
        },
    )
    message = found["autoscaling.min_replicas"]
    assert message.startswith("0 (autoscaling 0..2) can't be used")
    assert "`amd.com/gpu`" in message and "`min_replicas` to at least 1" in message


def test_a_gpu_spot_pools_default_scaling_is_refused_for_amd_gpus_too():
    found = issues(
        GpuSpotPool,
        {"cluster": OKE, "instance_type": "BM.GPU.MI300X.8", "boot_volume_gb": 500, "spot": None},
    )
    assert "autoscaling 0..3" in found["autoscaling.min_replicas"]


def test_scale_from_zero_is_refused_for_mig_slices():
    found = issues(
        MachinePool,
        {
            "cluster": OKE,
            "instance_type": "BM.GPU.H100.8",
            "boot_volume_gb": 500,
            "autoscaling": {"min_replicas": 0, "max_replicas": 2},
            "advertised": {"resource": "nvidia.com/mig-1g.10gb", "count": 56},
        },
    )
    assert "`nvidia.com/mig-1g.10gb`" in found["autoscaling.min_replicas"]


@pytest.mark.parametrize(
    "args",
    [
        {"instance_type": "VM.GPU.A10.1", "autoscaling": {"min_replicas": 0, "max_replicas": 2}},
        {"instance_type": "BM.GPU.MI300X.8", "autoscaling": {"min_replicas": 1, "max_replicas": 2}},
        {**CPU, "autoscaling": {"min_replicas": 0, "max_replicas": 2}},
        {"instance_type": "BM.GPU.MI300X.8", "replicas": 0},
    ],
    ids=["nvidia-from-zero", "amd-from-one", "cpu-from-zero", "amd-fixed-zero"],
)
def test_what_the_autoscaler_can_scale_is_accepted(args: dict[str, Any]):
    MachinePool.preflight("pool", {"cluster": OKE, "boot_volume_gb": 500, **args})


# --- basic clusters ----------------------------------------------------------------------


def test_clusters_are_enhanced_unless_told():
    assert OkeCluster.model_validate(OKE).cluster_type == "enhanced"
    with pytest.raises(Exception, match="cluster_type"):
        OkeCluster.model_validate({**OKE, "cluster_type": "standard"})


def test_an_autoscaled_pool_on_a_basic_cluster_needs_its_own_autoscaler():
    message = issues(
        MachinePool,
        {"cluster": BASIC, **CPU, "autoscaling": {"min_replicas": 1, "max_replicas": 3}},
    )["autoscaling"]
    assert "basic clusters can't install" in message
    assert "`cluster_autoscaler: null`" in message
    MachinePool.preflight(
        "pool",
        {
            "cluster": BASIC_OWN_AUTOSCALER,
            **CPU,
            "autoscaling": {"min_replicas": 1, "max_replicas": 3},
        },
    )
    # A fixed pool needs no autoscaler.
    MachinePool.preflight("pool", {"cluster": BASIC, **CPU, "replicas": 2})


def test_node_cycling_is_refused_on_a_basic_cluster():
    update = {"max_unavailable_percent": 25}
    found = issues(MachinePool, {"cluster": BASIC, **CPU, "replicas": 2, "update": update})
    assert found["update"].startswith("{'max_unavailable_percent': 25} can't be used")
    assert "node cycling" in found["update"]
    shared = {"cluster": BASIC, "shape": "VM.Standard.E4.Flex", "ocpus": 2, "memory_gb": 16}
    assert "update" in issues(SharedNodePool, {**shared, "size": 1, "update": update})
    MachinePool.preflight("pool", {"cluster": OKE, **CPU, "replicas": 2, "update": update})


def test_workload_identity_is_refused_on_a_basic_cluster():
    with pytest.raises(Exception, match="workload identity needs an enhanced cluster"):
        OkeCluster.model_validate({**BASIC, "cluster_autoscaler": {"auth_type": "workload"}})


def test_a_basic_cluster_holds_1000_nodes():
    assert (
        "1,000 nodes"
        in issues(MachinePool, {"cluster": BASIC, **CPU, "replicas": 1500})["replicas"]
    )
    MachinePool.preflight("pool", {"cluster": OKE, **CPU, "replicas": 1500})


def test_gpu_plugin_add_ons_are_refused_on_a_basic_cluster():
    args = {
        "platform": "oke",
        "pools": [
            {
                "name": "a10",
                "accelerator": {"resource": "nvidia.com/gpu", "count": 1, "vendor": "nvidia"},
            }
        ],
        "oke_cluster_id": OKE["cluster_id"],
        "oke_cluster_type": "basic",
    }
    with pytest.raises(SpecError) as caught:
        AcceleratorStack.preflight("nv", args)
    [issue] = caught.value.issues
    assert issue.path == "oke_addons" and "`oke_addons: false`" in issue.message
    AcceleratorStack.preflight("nv", {**args, "oke_addons": False})


def test_a_fleet_tells_the_stack_its_clusters_type():
    config = {
        "clusters": {"oke": BASIC},
        "pools": [
            {
                "component": "MachinePool",
                "name": "a10",
                "cluster": "oke",
                "instance_type": "VM.GPU.A10.1",
                "replicas": 1,
            }
        ],
        "devices": [{"component": "AcceleratorStack", "name": "nv", "pools": ["a10"]}],
    }
    with pytest.raises(ProgramError) as caught:
        run(lambda: deploy_fleet(config))
    assert caught.value.capture.resources == []
    assert "oke_addons" in str(caught.value.cause)
    config["devices"][0]["oke_addons"] = False
    capture = run(lambda: deploy_fleet(config))
    assert capture.by_type(ADDON) == []


def test_a_fleet_on_a_basic_cluster_with_its_own_autoscaler_gets_no_add_on():
    pool = {"component": "MachinePool", "name": "cpu", "cluster": "oke", **CPU}
    pool["autoscaling"] = {"min_replicas": 1, "max_replicas": 3}
    capture = run(
        lambda: deploy_fleet({"clusters": {"oke": BASIC_OWN_AUTOSCALER}, "pools": [pool]})
    )
    assert capture.by_type(ADDON) == []


def test_the_add_on_component_refuses_pools_of_a_basic_cluster():
    def program():
        cpu = MachinePool(
            "cpu",
            {
                "cluster": BASIC_OWN_AUTOSCALER,
                **CPU,
                "autoscaling": {"min_replicas": 1, "max_replicas": 3},
            },
        )
        OkeClusterAutoscaler.for_pools("autoscaler", [cpu])

    with pytest.raises(ProgramError) as caught:
        run(program)
    assert isinstance(caught.value.cause, SpecError)
    assert "basic OKE cluster" in str(caught.value.cause)
    assert caught.value.capture.by_type(ADDON) == []
