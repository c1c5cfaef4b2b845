"""OKE taints every node on preemptible capacity `oci.oraclecloud.com/oke-is-preemptible`
(NoSchedule) itself: a spot pool's taints include it, so everything derived from them
tolerates it (scheduling info, recipes, Kueue flavors, device software), and the device
report proves it, while the pool never registers it with the kubelet."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import (
    AcceleratorStack,
    GpuSpotPool,
    MachinePool,
    PoolQuotas,
    Recipe,
    SharedNodePool,
)
from nodepools.offline import run
from nodepools.specs.devices import releases as accelerator_releases
from nodepools.specs.devices.args import AcceleratorStackArgs
from nodepools.specs.devices.placement import advertised
from nodepools.specs.devices.served_pools import served_pool
from nodepools.specs.pools.shared import (
    SharedNodePoolArgs,
    describe_shared_pool,
    resolve_shared_pool,
)

from tests.conftest import EKS, OKE

PREEMPTIBLE = {
    "key": "oci.oraclecloud.com/oke-is-preemptible",
    "operator": "Exists",
    "effect": "NoSchedule",
}
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"
A10 = "VM.GPU.A10.1"


def scheduling_info(component: type, args: dict[str, Any]) -> dict[str, Any]:
    capture = run(lambda: component("pool", args))
    [pool] = capture.components(component.TYPE)
    return capture.outputs_of(pool)["scheduling_info"]


@pytest.mark.parametrize(
    ("component", "args"),
    [
        (MachinePool, {"cluster": OKE, "instance_type": A10, "replicas": 1, "spot": {}}),
        (GpuSpotPool, {"cluster": OKE, "instance_type": A10}),
        (SharedNodePool, {"cluster": OKE, "shape": A10, "size": 1, "spot": {}}),
    ],
    ids=["MachinePool", "GpuSpotPool", "SharedNodePool"],
)
def test_oke_spot_pools_tolerate_the_preemptible_taint(component: type, args: dict[str, Any]):
    assert PREEMPTIBLE in scheduling_info(component, args)["tolerations"]


@pytest.mark.parametrize(
    ("component", "args"),
    [
        (MachinePool, {"cluster": OKE, "instance_type": A10, "replicas": 1}),
        (GpuSpotPool, {"cluster": EKS, "instance_type": "g5.xlarge"}),
    ],
    ids=["oke-on-demand", "eks-spot"],
)
def test_only_oke_spot_pools_carry_it(component: type, args: dict[str, Any]):
    keys = {t["key"] for t in scheduling_info(component, args)["tolerations"]}
    assert PREEMPTIBLE["key"] not in keys


def test_a_spot_shared_pools_description_has_it_for_recipes():
    args = SharedNodePoolArgs.model_validate(
        {"cluster": OKE, "shape": "VM.GPU.A10.2", "size": 1, "spot": {}}
    )
    description = describe_shared_pool(resolve_shared_pool(args, "a10"))
    assert "oci.oraclecloud.com/oke-is-preemptible:NoSchedule" in [
        str(t) for t in description.taints or []
    ]


def test_a_recipe_placed_on_an_oke_spot_shared_pool_tolerates_it():
    def program():
        pool = SharedNodePool(
            "a10", {"cluster": OKE, "shape": "VM.GPU.A10.2", "size": 1, "spot": {}}
        )
        Recipe("serve", {"image": "nginx", "node_shape": "VM.GPU.A10.2", "pools": [pool]})

    capture = run(program)
    deployment = capture.get("kubernetes:apps/v1:Deployment", "serve-deployment")
    assert PREEMPTIBLE in deployment.inputs["spec"]["template"]["spec"]["tolerations"]


def test_the_kueue_flavor_of_an_oke_spot_pool_tolerates_it():
    def program():
        pool = GpuSpotPool("a10-spot", {"cluster": OKE, "instance_type": A10})
        PoolQuotas(
            "org",
            {
                "pools": [pool],
                "departments": [
                    {"name": "d", "projects": [{"name": "p", "quotas": {"a10-spot": {"gpu": 1}}}]}
                ],
            },
        )

    capture = run(program)
    flavor = capture.get(f"{KUEUE}:ResourceFlavor", "org-flavor-a10-spot").inputs["spec"]
    assert PREEMPTIBLE in flavor["tolerations"]


def oke_stack(**extra: Any) -> AcceleratorStackArgs:
    resolved = GpuSpotPool.resolve("a10-spot", {"cluster": OKE, "instance_type": A10})
    return AcceleratorStackArgs.model_validate(
        {
            "platform": "oke",
            "pools": [served_pool(resolved)],
            "oke_cluster_id": OKE["cluster_id"],
            **extra,
        }
    )


def test_device_software_tolerates_it_and_the_report_says_so():
    def program():
        pool = GpuSpotPool("a10-spot", {"cluster": OKE, "instance_type": A10})
        AcceleratorStack(
            "nv",
            {
                "platform": "oke",
                "pools": AcceleratorStack.served([pool]),
                "oke_cluster_id": OKE["cluster_id"],
            },
        )

    capture = run(program)
    addon = capture.get("oci:ContainerEngine/addon:Addon", "nv-nvidia-addon").inputs
    configuration = {c["key"]: c["value"] for c in addon["configurations"]}
    assert '"key": "oci.oraclecloud.com/oke-is-preemptible"' in configuration["tolerations"]
    [stack] = capture.components(AcceleratorStack.TYPE)
    assert stack.inputs["advertised"]["a10-spot"]["tolerated"] is True
    # The Helm charts, too (`oke_addons: false`).
    [plan] = accelerator_releases.plan_releases("nv", oke_stack(oke_addons=False))
    assert PREEMPTIBLE in plan.values["daemonsets"]["tolerations"]


def test_the_report_says_not_covered_when_software_does_not_tolerate_it(monkeypatch):
    """Software tolerating only what it tolerates by default (the GPU taint) is not enough on
    a preemptible pool: the device report must say so."""
    monkeypatch.setattr(accelerator_releases, "tolerations", lambda defaults, pools: defaults)
    [row] = advertised(oke_stack())
    assert row.tolerated is False
