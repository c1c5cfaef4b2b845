"""A Karpenter pool that launches accelerator instances gets the boot volume a managed
accelerator pool gets (issue 29 item 18), unless it sizes its volumes itself."""

from __future__ import annotations

from typing import Any

from nodepools.backends.karpenter import render_node_class
from nodepools.specs.clusters.capabilities import CAPABILITIES
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
from nodepools.specs.karpenter.resolve import resolve_karpenter_pool

NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def mappings(node_class: dict[str, Any] | None = None, **args: Any) -> Any:
    spec = parse_spec(
        KarpenterNodePoolArgs, {"node_class": {**NODE_CLASS, **(node_class or {})}, **args}, "p"
    )
    return render_node_class(resolve_karpenter_pool(spec, "p"))["spec"].get("blockDeviceMappings")


def test_an_accelerator_pool_gets_the_managed_pools_default():
    assert CAPABILITIES["eks"].accelerator_boot_volume_gb == 100
    [root] = mappings(instance_families=["g5", "g6"])
    assert (root["deviceName"], root["ebs"]["volumeSize"]) == ("/dev/xvda", "100Gi")
    # Bottlerocket: the data volume, the OS volume at Karpenter's 4 GiB.
    os_volume, data = mappings({"ami_alias": "bottlerocket@latest"}, instance_types=["p5.48xlarge"])
    assert (os_volume["ebs"]["volumeSize"], data["deviceName"], data["ebs"]["volumeSize"]) == (
        "4Gi", "/dev/xvdb", "100Gi",
    )  # fmt: skip
    # A pool that can launch accelerator instances among others (tainted) gets it too.
    mixed = mappings(instance_families=["g5", "m5"], taints=["nvidia.com/gpu=true:NoSchedule"])
    assert mixed[0]["ebs"]["volumeSize"] == "100Gi"


def test_explicit_volumes_win_and_cpu_pools_keep_karpenters_default():
    [root] = mappings({"boot_volume_gb": 60}, instance_families=["g5"])
    assert root["ebs"]["volumeSize"] == "60Gi"
    given = [{"device_name": "/dev/xvda", "ebs": {"volume_size": "40Gi"}}]
    [root] = mappings({"block_device_mappings": given}, instance_families=["g5"])
    assert root["ebs"] == {"volumeSize": "40Gi"}
    assert mappings(instance_families=["m5"]) is None
