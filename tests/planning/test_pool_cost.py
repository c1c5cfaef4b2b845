"""One pricing function for the plan and the budget policy: both price the same pools alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from nodepools.planning import plan_stack
from nodepools.planning.plan_document import plan_document
from nodepools.policies.budget import pool_cost_of
from nodepools.policies.resources import pool_view
from nodepools.policies.runner import PolicyResourceInput, run_policies
from nodepools.specs.catalog.pool_cost import karpenter_nodes, pool_cost, priced_as_spot
from nodepools.specs.catalog.prices import node_price

from tests.policies.fixtures import karpenter_node_pool, oke_node_pool, requirement

ROOT = Path(__file__).resolve().parents[2]


def _policy_costs(result) -> dict[str, float | None]:
    """Each pool component's hourly maximum as the budget policy prices its resource."""
    capture = result.capture
    costs: dict[str, float | None] = {}
    for component in capture.resources:
        if component.custom:
            continue
        for child in capture.descendants(component.urn):
            view = pool_view(child.type, child.inputs, child.name)
            if view is not None:
                costs[component.name] = pool_cost_of(view).hourly_max
    return costs


def _with_extra_pools(tmp_path: Path) -> Path:
    """The example stacks plus an OKE flexible-shape pool and a Karpenter pool sized by limits."""
    stacks = tmp_path / "stacks"
    shutil.copytree(ROOT / "stacks", stacks)
    path = stacks / "Pulumi.dev.yaml"
    document = yaml.safe_load(path.read_text())
    document["config"]["nodepools:pools"] += [
        {
            "component": "MachinePool",
            "name": "oke-flex",
            "cluster": "ml-oke",
            "instance_type": "VM.Standard.E4.Flex",
            "ocpus": 4,
            "memory_gb": 32,
            "spot": {},
            "autoscaling": {"min_replicas": 1, "max_replicas": 5},
        },
        {
            "component": "KarpenterNodePool",
            "name": "h100",
            "capacity_types": ["spot"],
            "instance_types": ["p5.48xlarge"],
            "limits": {"nvidia.com/gpu": 24, "cpu": 1000, "memory": "8000Gi"},
            "node_class": {
                "role": "KarpenterNodeRole-ml",
                "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
                "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
            },
        },
    ]
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return stacks


@pytest.mark.parametrize(
    "stack", ["dev", "eks-karpenter-llm", "eks-training", "oke-shared-mi300x", "rosa-gpu"]
)
def test_the_plan_and_the_budget_policy_price_every_pool_alike(stack, tmp_path):
    stacks = _with_extra_pools(tmp_path) if stack == "dev" else ROOT / "stacks"
    result = plan_stack(stack, stacks_dir=stacks)
    document = plan_document(result)
    policy = _policy_costs(result)

    planned = {
        p["resource_name"]: p["cost"]["hourly"]["max"] if p["cost"]["known"] else None
        for p in document["pools"]
    }
    assert planned == policy
    if stack == "dev":
        # 4 OCPU x $0.025 + 32 GB x $0.0015 = $0.148/h, preemptible half, 5 nodes.
        assert planned["oke-flex"] == pytest.approx(0.37)
        # 24 GPUs / 8 per p5.48xlarge: 3 nodes at the typical spot price.
        spot = node_price("p5.48xlarge", spot=True)
        assert spot is not None and planned["h100"] == round(spot.hourly * 3, 2)
    if stack == "eks-training":
        # Paid up front for its term: no per node-hour price in either.
        [block] = [p for p in document["pools"] if p["name"] == "h100-block"]
        assert block["capacity_types"] == ["reserved"] and planned["h100-block"] is None
        assert "Capacity Block is paid up front" in block["cost"]["reason"]
        assert planned["inference-mix"] is not None
    if stack == "eks-karpenter-llm":
        # Limits allow 2 trn1.2xlarge; the CPU pool of three families has no price.
        assert planned["trainium-trn1"] is not None
        assert planned["x86-cpu-karpenter"] is None


def test_unpriced_pools_say_why():
    flex = pool_cost(["VM.Standard.E4.Flex"], spot=False, min_nodes=0, max_nodes=3)
    assert flex.reason == (
        "unknown price: no price for VM.Standard.E4.Flex "
        "(a flexible shape is priced by its OCPUs and memory)"
    )
    unknown = pool_cost(["x9.nothing"], spot=True, min_nodes=0, max_nodes=3)
    assert unknown.reason == "unknown price: no spot price for x9.nothing"
    assert pool_cost([], spot=False, min_nodes=0, max_nodes=1).reason == (
        "unknown price: no instance type named"
    )


def test_a_mix_of_capacity_types_is_priced_on_demand():
    assert priced_as_spot(["spot"]) is True
    assert priced_as_spot(["on-demand", "spot"]) is False
    assert priced_as_spot([]) is False


def test_karpenter_nodes_take_the_tightest_limit():
    # p5.48xlarge: 192 vCPU, 8 GPUs. cpu 1000 -> 5, gpu 24 -> 3, nodes 2 -> 2.
    limits = {"cpu": "1000", "nvidia.com/gpu": 24, "nodes": "2"}
    assert karpenter_nodes(None, limits, ["p5.48xlarge"]) == (0, 2)
    assert karpenter_nodes(None, {"cpu": 1000}, ["p5.48xlarge"]) == (0, 5)
    assert karpenter_nodes(None, {"cpu": 1000}, ["p5.48xlarge", "p4d.24xlarge"]) == (0, None)
    assert karpenter_nodes(None, {"nodes": 7}, []) == (0, 7)
    assert karpenter_nodes(4.0, {"nodes": 7}, ["p5.48xlarge"]) == (4, 4)
    assert karpenter_nodes(None, None, ["p5.48xlarge"]) == (0, None)


def _budget(resource, ceiling: float) -> list[str]:
    found = run_policies(
        [PolicyResourceInput(resource.urn, resource.type, resource.name, resource.props)],
        config={"pool-hourly-budget": {"maxPoolHourlyCost": ceiling}},
    )
    return [v.message for v in found if v.policy_name == "pool-hourly-budget"]


def test_the_budget_prices_karpenter_pools_by_their_limits_and_oke_flex_by_size():
    pool = karpenter_node_pool(
        requirements=[
            requirement("node.kubernetes.io/instance-type", "In", "p5.48xlarge"),
            requirement("karpenter.sh/capacity-type", "In", "on-demand"),
        ],
        limits={"cpu": "1000", "nvidia.com/gpu": 16.0},
    )
    [message] = _budget(pool, 10.0)
    assert message.startswith("`spec.limits`: pool 'llm' costs up to ")
    assert "at its maximum of 2 p5.48xlarge nodes (on-demand list price" in message

    flex = oke_node_pool(
        "cpu",
        shape="VM.Standard.E4.Flex",
        boot_volume_gb="100",
        kubelet_taints=None,
        max_nodes="10",
    )
    flex.props["nodeShapeConfig"] = {"ocpus": 8.0, "memoryInGbs": 64.0}
    # 8 x 0.025 + 64 x 0.0015 = 0.296/h per node, 10 nodes.
    [message] = _budget(flex, 2.0)
    assert message.startswith(
        "`freeformTags.nodepools.dev/max-nodes`: pool 'cpu' costs up to 2.96 USD/hour at its "
        "maximum of 10 VM.Standard.E4.Flex nodes"
    )
    assert _budget(flex, 3.0) == []
