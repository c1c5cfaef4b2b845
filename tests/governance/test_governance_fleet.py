"""Governance in stack config: fleet references, offline plans, and the policy pack."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from nodepools.fleet.deploy import validate_fleet
from nodepools.offline import Capture, ProgramError, run
from nodepools.planning import plan_stack
from nodepools.policies.runner import PolicyResourceInput, run_policies
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.labels import POOL_LABEL

from tests.governance.osmo_seed import seed_kwargs
from tests.governance.stacks import EKS, KARPENTER_GPU, KUBERNETES_PLATFORMS, STACKS, stack_config
from tests.governance.stacks import GPU_SPOT as SPOT_ARGS

PROGRAM = STACKS / "__main__.py"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"


def policy_inputs(capture: Capture) -> list[PolicyResourceInput]:
    """Captured registrations as the engine would hand them to the policy pack."""
    return [
        PolicyResourceInput(
            r.urn,
            r.type,
            r.name,
            r.inputs,
            parent=r.parent,
            dependencies=r.dependencies,
            property_dependencies=r.property_dependencies,
        )
        for r in capture.resources
    ]


def fleet(governance: list[dict[str, Any]], **pools: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodepools:clusters": {"ml": EKS, "other": {**EKS, "cluster_name": "other"}},
        "nodepools:pools": [
            {"component": "GpuSpotPool", "name": name, **args} for name, args in pools.items()
        ],
        "nodepools:governance": governance,
    }


GPU_SPOT = {"cluster": "ml", **SPOT_ARGS}


def quotas_entry(pools: list[Any], quota: int = 8, pool: str = "gpu-spot") -> dict[str, Any]:
    return {
        "component": "PoolQuotas",
        "name": "quotas",
        "pools": pools,
        "departments": [
            {"name": "research", "projects": [{"name": "vision", "quotas": {pool: {"gpu": quota}}}]}
        ],
    }


def fleet_problems(config: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ProgramError) as info:
        run(PROGRAM, config=config)
    assert info.value.capture.resources == []
    assert isinstance(info.value.cause, SpecError)
    return [(issue.path, issue.message) for issue in info.value.cause.issues]


# --- the example stacks --------------------------------------------------------------


@pytest.mark.parametrize("stack", ["org-quotas", "osmo-platforms"])
def test_stack_plans_offline(stack: str, tmp_path: Path):
    result = plan_stack(stack, stacks_dir=STACKS, out_dir=tmp_path)
    assert result.ok, result.render()
    assert result.artifacts


def test_org_plan_totals_match_the_organisation():
    text = plan_stack("org-quotas", stacks_dir=STACKS).render()
    lines = [line.split() for line in text.splitlines()]
    # Per pool: capacity / total nominal quota.
    assert ["default", "80/40", "640/320", "4880Gi/2440Gi"] in lines
    assert ["a100-40gb", "20/20", "320/320", "2560Gi/2560Gi"] in lines
    assert ["a100-80gb", "20/20", "320/320", "2560Gi/2560Gi"] in lines
    # Each department owns 20 V100 GPUs, ML-Ops the A100-40GB pool, R&D the A100-80GB one.
    assert ["rnd", "default", "20", "160", "1220Gi"] in lines
    assert ["ml-ops", "default", "20", "160", "1220Gi"] in lines
    assert ["ml-ops", "a100-40gb", "20", "320", "2560Gi"] in lines
    assert ["rnd", "a100-80gb", "20", "320", "2560Gi"] in lines
    # Two departments of four projects, each project listed on every pool, borrowing open.
    rows = [line for line in lines if line[:1] in (["rnd"], ["ml-ops"]) and len(line) == 7]
    assert len(rows) == 2 * 4 * 3
    assert all(cell.endswith("/unlimited") for row in rows for cell in row[4:])


def test_osmo_plan_lists_the_osmo_documents():
    text = plan_stack("osmo-platforms", stacks_dir=STACKS).render()
    assert "shared-pool: pool shared_simulation_training_pool (namespaces: )" in text
    for line in (
        "  OSMO POD_TEMPLATE a100: osmo/POD_TEMPLATE/a100.json",
        "  OSMO POD_TEMPLATE l40s: osmo/POD_TEMPLATE/l40s.json",
        "  OSMO POOL shared_simulation_training_pool: "
        "osmo/POOL/shared_simulation_training_pool.json",
        "  OSMO ROLE osmo-shared: osmo/ROLE/osmo-shared.json",
    ):
        assert line in text.splitlines()


def test_kubernetes_plan_lists_the_platforms(tmp_path: Path):
    # Our own platform model of the same pool, planned as a stack of its own.
    shutil.copy(STACKS / "__main__.py", tmp_path / "__main__.py")
    shutil.copy(KUBERNETES_PLATFORMS, tmp_path / "Pulumi.kubernetes-platforms.yaml")
    text = plan_stack("kubernetes-platforms", stacks_dir=tmp_path).render()
    assert "  l40s_platform (default): PodTemplate l40s-platform" in text
    assert '    node selector: {"nvidia.com/gpu.product":"NVIDIA-A100"}' in text
    assert "    default variables: USER_CPU=1 USER_GPU=0 USER_MEMORY=1Gi USER_STORAGE=1Gi" in text
    assert "USER_GPU <= 8" in text and "USER_GPU <= 4" in text
    assert "  role osmo-shared (pools shared*): groups osmo-shared" in text


@pytest.mark.parametrize("stack", ["org-quotas", "osmo-platforms"])
def test_policy_pack_is_quiet_on_the_example_stacks(stack: str):
    capture = run(PROGRAM, stack=stack, config=stack_config(stack))
    assert run_policies(policy_inputs(capture)) == []


# --- fleet references ---------------------------------------------------------------


def test_fleet_pools_are_named_and_resolved():
    config = fleet(
        [quotas_entry(["gpu-spot", {"name": "default", "gpus": 0}])], **{"gpu-spot": GPU_SPOT}
    )
    capture = run(PROGRAM, config=config)
    flavor = capture.get(f"{KUEUE}:ResourceFlavor", "quotas-flavor-gpu-spot").inputs["spec"]
    assert flavor["nodeLabels"] == {POOL_LABEL: "gpu-spot"}
    assert run_policies(policy_inputs(capture)) == []


def test_unknown_fleet_pool_is_refused_before_anything_is_created():
    config = fleet([quotas_entry(["gpu-spotty"])], **{"gpu-spot": GPU_SPOT})
    assert fleet_problems(config) == [
        ("nodepools:governance[0].pools[0]", "unknown fleet pool 'gpu-spotty' (pools: gpu-spot)")
    ]


def test_fleet_quota_above_capacity_is_refused_with_its_config_path():
    # g5.12xlarge: 4 GPUs a node, at most 2 nodes.
    config = fleet([quotas_entry(["gpu-spot"], quota=9)], **{"gpu-spot": GPU_SPOT})
    [(path, message)] = fleet_problems(config)
    assert path == 'nodepools:governance[0].departments[0].projects[0].quotas["gpu-spot"].gpu'
    assert "holds 8 (`pools[0].gpus`)" in message


def test_fleet_render_problems_carry_the_config_path():
    entry = quotas_entry(["gpu-spot"])
    entry["departments"][0]["name"] = "quotas"  # the organisation's Cohort is the entry name
    config = fleet([entry], **{"gpu-spot": GPU_SPOT})
    [(path, _)] = fleet_problems(config)
    assert path == "nodepools:governance[0].departments[0].name"


def test_pools_of_two_clusters_in_one_pool_quotas_are_refused():
    config = fleet(
        [quotas_entry(["gpu-spot", "elsewhere"])],
        **{"gpu-spot": GPU_SPOT, "elsewhere": {**GPU_SPOT, "cluster": "other"}},
    )
    [(path, message)] = fleet_problems(config)
    assert path == "nodepools:governance[0].pools[1]"
    assert "one PoolQuotas governs the pools of one cluster" in message


def karpenter_fleet(governance: list[dict[str, Any]]) -> dict[str, Any]:
    config = fleet(governance, **{"gpu-spot": GPU_SPOT})
    config["nodepools:pools"].append(
        {"component": "KarpenterNodePool", "name": "gpu-karpenter", **KARPENTER_GPU}
    )
    return config


def test_fleet_governance_may_name_a_karpenter_pool():
    entry = quotas_entry(["gpu-karpenter", "gpu-spot"], quota=16, pool="gpu-karpenter")
    platforms = {
        "component": "PoolPlatforms",
        "name": "platforms",
        "pool": "gpu-karpenter",
        "common_pod_template": {"containers": [{"name": "user", "image": "x"}]},
        "platforms": {"a10g": {"resource_validations": ["default_gpu"]}},
    }
    capture = run(PROGRAM, config=karpenter_fleet([entry, platforms]))
    flavor = capture.get(f"{KUEUE}:ResourceFlavor", "quotas-flavor-gpu-karpenter").inputs["spec"]
    assert flavor["nodeLabels"] == {POOL_LABEL: "gpu-karpenter"}
    [component] = capture.components("nodepools:index:PoolQuotas")
    summary = capture.outputs_of(component)["summary"]
    assert summary["gpu-karpenter"]["capacity"] == {"gpu": 16, "cpu": 192, "memory": "768Gi"}
    pod_template = capture.get(
        "kubernetes:core/v1:PodTemplate", "platforms-podtemplate-gpu-karpenter-a10g"
    ).inputs
    assert pod_template["template"]["spec"]["nodeSelector"] == {POOL_LABEL: "gpu-karpenter"}
    # A spot NodePool: clean once Karpenter's interruption queue is declared.
    declared = {"karpenter-spot-interruption": {"interruptionQueueConfigured": True}}
    assert run_policies(policy_inputs(capture), config=declared) == []


def test_fleet_quota_above_a_karpenter_pools_limit_is_refused_with_its_config_path():
    config = karpenter_fleet([quotas_entry(["gpu-karpenter"], quota=20, pool="gpu-karpenter")])
    [(path, message)] = fleet_problems(config)
    assert path == 'nodepools:governance[0].departments[0].projects[0].quotas["gpu-karpenter"].gpu'
    assert "holds 16 (`pools[0].gpus`)" in message


def test_platforms_on_a_fleet_pool_select_it():
    entry = {
        "component": "PoolPlatforms",
        "name": "platforms",
        "pool": "gpu-spot",
        "common_pod_template": {"containers": [{"name": "user", "image": "x"}]},
        "platforms": {"a10g": {"node_selector": {"nvidia.com/gpu.product": "NVIDIA-A10G"}}},
    }
    capture = run(PROGRAM, config=fleet([entry], **{"gpu-spot": GPU_SPOT}))
    pod_template = capture.get(
        "kubernetes:core/v1:PodTemplate", "platforms-podtemplate-gpu-spot-a10g"
    ).inputs
    assert pod_template["template"]["spec"]["nodeSelector"][POOL_LABEL] == "gpu-spot"
    assert run_policies(policy_inputs(capture)) == []


def test_osmo_documents_compiled_for_a_fleet_pool():
    kwargs = seed_kwargs()
    kwargs["pod_templates"]["user"] = {"spec": {"containers": [{"name": "user", "image": "x"}]}}
    kwargs["pool"]["common_pod_template"].append("user")
    entry = {
        "component": "PoolPlatforms",
        "name": "osmo",
        **kwargs,
        "target": "both",
        "kubernetes": {
            "pool": "gpu-spot",
            "node_resources": {
                p: {"cpu": 48, "memory": "192Gi", "storage": "500Gi"}
                for p in ("l40s_platform", "a100_platform")
            },
        },
    }
    capture = run(PROGRAM, config=fleet([entry], **{"gpu-spot": GPU_SPOT}))
    template = capture.get(
        "kubernetes:core/v1:PodTemplate", "osmo-podtemplate-gpu-spot-a100-platform"
    ).inputs["template"]["spec"]
    assert template["nodeSelector"][POOL_LABEL] == "gpu-spot"
    assert template["nodeSelector"]["nvidia.com/gpu.product"] == "NVIDIA-A100"
    assert len(capture.by_type("pulumi-python:dynamic/osmo:Config")) == 5  # with `user`
    entry["pool"]["default_platform"] = "h100_platform"
    assert fleet_problems(fleet([entry], **{"gpu-spot": GPU_SPOT})) == [
        (
            "nodepools:governance[0].pool.default_platform",
            "'h100_platform' is not a platform of the pool ('l40s_platform', 'a100_platform')",
        )
    ]


def test_fleet_platform_problems_carry_the_config_path():
    entry = {
        "component": "PoolPlatforms",
        "name": "platforms",
        "pool": "osmo_pool",
        "default_platform": "missing",
        "platforms": {"a": {"pod_template": {"containers": [{"name": "u", "image": "x"}]}}},
    }
    with pytest.raises(SpecError) as info:
        validate_fleet({"governance": [entry]})
    assert info.value.paths() == ["nodepools:governance[0].default_platform"]
    # A template problem is reported with it, not after it is fixed.
    entry["platforms"]["a"]["pod_template"]["hostNetwork"] = True
    with pytest.raises(SpecError) as info:
        validate_fleet({"governance": [entry]})
    assert info.value.paths() == [
        "nodepools:governance[0].default_platform",
        "nodepools:governance[0].platforms.a.pod_template.hostNetwork",
    ]


# --- the policy pack catches what a description hides --------------------------------


def test_policy_reports_a_quota_above_the_real_pools_capacity():
    # The description claims 16 GPUs; the stack's GpuSpotPool can hold 8 at most. The
    # component trusts the description, the pack checks the pool it can see.
    described = {
        "name": "gpu-spot",
        "node_labels": {POOL_LABEL: "gpu-spot"},
        "taints": ["nvidia.com/gpu=true:NoSchedule"],
        "gpus": 16,
    }
    config = fleet(
        [quotas_entry([described, {"name": "default"}], quota=12)], **{"gpu-spot": GPU_SPOT}
    )
    capture = run(PROGRAM, config=config)
    violations = run_policies(policy_inputs(capture))
    assert [(v.policy_name, v.urn) for v in violations] == [
        (
            "kueue-quota-within-capacity",
            capture.get(f"{KUEUE}:ClusterQueue", "quotas-clusterqueue-vision").urn,
        )
    ]
    assert "guarantees 12 nvidia.com/gpu" in violations[0].message
    assert "can offer at most 8" in violations[0].message
