"""KarpenterNodePool: manifests, defaults, argument rules, determinism, fleet and plan."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from nodepools import KarpenterNodePool, MachinePool
from nodepools.backends.karpenter import render_manifests
from nodepools.fleet.deploy import SECTIONS, validate_fleet
from nodepools.offline import ProgramError, run
from nodepools.planning import plan_stack
from nodepools.planning.cli import main as cli_main
from nodepools.planning.sections import capacity_section
from nodepools.planning.validation_section import validation_section
from nodepools.pools.karpenter_node_pool import prepare_pool
from nodepools.specs import Budget, Disruption, NodeClassArgs, SpecError
from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
from nodepools.specs.karpenter.resolve import resolve_karpenter_pool
from nodepools.specs.karpenter.restrictions import (
    allowed_keys,
    label_rules,
    parse_key_rule,
    requirement_key_rules,
    restricted_label_problem,
    tag_rules,
)
from nodepools.validation import validate_manifest
from pydantic import ValidationError

from tests.golden import assert_golden

REPO = Path(__file__).resolve().parent.parent
STACKS = REPO / "stacks"
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
TYPE = "nodepools:index:KarpenterNodePool"
OUTPUTS = {
    "pool_name",
    "pool_id",
    "node_class_name",
    "scheduling_info",
    "scheduling_info_yaml",
    "manifests",
}


def node_class(**overrides: Any) -> dict[str, Any]:
    return {
        "role": "KarpenterNodeRole-ml",
        "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
        "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
        **overrides,
    }


def gpu_args(**overrides: Any) -> dict[str, Any]:
    """A GPU training pool: pinned 4-GPU instances, spot first, business-hours budget."""
    return {
        "node_class": node_class(
            boot_volume_gb=200, tags={"team": "ml", "cost-center": "research"}
        ),
        "capacity_types": ["spot", "on-demand"],
        "instance_types": ["g5.12xlarge", "g6.12xlarge"],
        "labels": {"team": "ml", "workload": "training"},
        "startup_taints": ["node.example.com/initializing:NoSchedule"],
        "limits": {"cpu": 1000, "memory": "4000Gi", "nvidia.com/gpu": 32},
        "disruption": {
            "budgets": [
                {"nodes": "10%"},
                {"nodes": 0, "schedule": "0 9 * * 1-5", "duration": "8h"},
            ]
        },
        "weight": 50,
        **overrides,
    }


def build(name: str, args: Any) -> Any:
    return run(lambda: KarpenterNodePool(name, args))


def component_of(capture: Any, name: str) -> Any:
    return capture.get(TYPE, name)


def problems(args: Any, name: str = "pool") -> dict[str, str]:
    """The issues a bad spec raises, by path; and proof that nothing was registered."""
    with pytest.raises(ProgramError) as raised:
        build(name, args)
    assert isinstance(raised.value.cause, SpecError), raised.value.cause
    assert raised.value.capture.resources == []
    return {issue.path: issue.message for issue in raised.value.cause.issues}


def kubernetes_inputs(capture: Any) -> list[dict[str, Any]]:
    # Objects of the cluster (not the stack's Helm release of the Neuron device plugin).
    return [
        r.inputs
        for r in capture.resources
        if r.type.startswith("kubernetes:") and not r.type.startswith("kubernetes:helm.sh/")
    ]


# --- golden manifests and the validator -------------------------------------------------


@pytest.fixture(scope="module")
def llm_plan() -> Any:
    result = plan_stack("eks-karpenter-llm", stacks_dir=STACKS)
    assert result.error is None, result.error
    return result


@pytest.mark.parametrize("pool", ["x86-cpu-karpenter", "trainium-trn1"])
def test_stack_pools_match_golden_manifests(llm_plan: Any, pool: str) -> None:
    capture = llm_plan.capture
    manifests = {
        "node_class": capture.get(NODE_CLASS, f"{pool}-node-class").inputs,
        "node_pool": capture.get(NODE_POOL, f"{pool}-node-pool").inputs,
    }
    assert_golden(f"karpenter/{pool}.json", manifests)


def test_gpu_pool_matches_golden() -> None:
    capture = build("gpu-training", gpu_args())
    pool = component_of(capture, "gpu-training")
    outputs = capture.outputs_of(pool)
    assert_golden(
        "karpenter/gpu-training.json",
        {
            "spec": pool.inputs["spec"],
            "manifests": outputs["manifests"],
            "scheduling_info": outputs["scheduling_info"],
        },
    )
    # What was registered is what the output says was rendered.
    assert (
        capture.get(NODE_POOL, "gpu-training-node-pool").inputs == outputs["manifests"]["node_pool"]
    )


def test_everything_emitted_passes_the_validator(llm_plan: Any) -> None:
    captures = [llm_plan.capture, build("gpu-training", gpu_args())]
    manifests = [m for capture in captures for m in kubernetes_inputs(capture)]
    assert len(manifests) == 6
    for manifest in manifests:
        assert validate_manifest(manifest) == [], manifest["metadata"]


def test_children_names_dependencies_and_outputs() -> None:
    capture = build("gpu-training", gpu_args())
    pool = component_of(capture, "gpu-training")
    children = {(r.type, r.name) for r in capture.children(pool.urn)}
    assert children == {
        (NODE_CLASS, "gpu-training-node-class"),
        (NODE_POOL, "gpu-training-node-pool"),
    }
    node_class = capture.get(NODE_CLASS, "gpu-training-node-class")
    node_pool = capture.get(NODE_POOL, "gpu-training-node-pool")
    assert node_class.urn in node_pool.dependencies
    outputs = capture.outputs_of(pool)
    assert set(outputs) == OUTPUTS
    assert outputs["pool_name"] == outputs["pool_id"] == "gpu-training"
    assert outputs["node_class_name"] == "gpu-training"
    assert node_pool.inputs["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "karpenter.k8s.aws",
        "kind": "EC2NodeClass",
        "name": "gpu-training",
    }


def test_pool_name_names_both_objects_and_the_identity_label() -> None:
    capture = build("gpu", gpu_args(pool_name="gpu-a"))
    node_pool = capture.get(NODE_POOL, "gpu-node-pool").inputs
    assert node_pool["metadata"] == {"name": "gpu-a"}
    assert capture.get(NODE_CLASS, "gpu-node-class").inputs["metadata"] == {"name": "gpu-a"}
    labels = node_pool["spec"]["template"]["metadata"]["labels"]
    assert labels["nodepools.dev/pool"] == "gpu-a"
    assert capture.outputs_of(component_of(capture, "gpu"))["pool_id"] == "gpu-a"


def test_node_annotations_go_on_the_node_template_not_the_node_pool() -> None:
    capture = build("gpu", gpu_args(node_annotations={"example.com/owner": "ml-platform"}))
    node_pool = capture.get(NODE_POOL, "gpu-node-pool").inputs
    template = node_pool["spec"]["template"]["metadata"]
    assert template["annotations"] == {"example.com/owner": "ml-platform"}
    assert "nodepools.dev/pool" in template["labels"]
    assert "annotations" not in node_pool["metadata"]


def test_a_bad_node_annotation_key_is_refused_with_its_path() -> None:
    with pytest.raises(ProgramError) as info:
        build("gpu", gpu_args(node_annotations={"bad key!": "x"}))
    assert info.value.capture.resources == []
    assert "`node_annotations`" in str(info.value) and "'bad key!'" in str(info.value)


def test_existing_node_class_is_referenced_not_created() -> None:
    args = gpu_args(node_class_name="shared-gpu")
    del args["node_class"]
    capture = build("gpu", args)
    assert capture.by_type(NODE_CLASS) == []
    node_pool = capture.get(NODE_POOL, "gpu-node-pool")
    assert node_pool.dependencies == ()
    assert node_pool.inputs["spec"]["template"]["spec"]["nodeClassRef"]["name"] == "shared-gpu"
    outputs = capture.outputs_of(component_of(capture, "gpu"))
    assert outputs["node_class_name"] == "shared-gpu"
    assert set(outputs["manifests"]) == {"node_pool"}


def test_role_may_come_from_another_resource() -> None:
    def program() -> None:
        role = pulumi.Output.from_input("KarpenterNodeRole-made-here")
        KarpenterNodePool("cpu", {"node_class": node_class(role=role)})

    capture = run(program)
    assert capture.get(NODE_CLASS, "cpu-node-class").inputs["spec"]["role"] == (
        "KarpenterNodeRole-made-here"
    )


def test_the_manifests_output_resolves_the_role_from_another_resource_too() -> None:
    """The walk made for validation found the Output: `manifests` still waits for it."""

    def program() -> None:
        role = pulumi.Output.from_input("KarpenterNodeRole-made-here")
        KarpenterNodePool("cpu", {"node_class": node_class(role=role)})

    capture = run(program)
    outputs = capture.outputs_of(component_of(capture, "cpu"))
    assert outputs["manifests"]["node_class"]["spec"]["role"] == "KarpenterNodeRole-made-here"


def test_the_constructor_registers_the_render_its_preflight_validated(monkeypatch) -> None:
    import nodepools.backends.karpenter as backend
    import nodepools.pools.karpenter_node_pool as component

    renders: list[str] = []
    original = backend.render_manifests

    def counted(pool: Any) -> Any:
        renders.append(pool.pool_name)
        return original(pool)

    monkeypatch.setattr(component, "render_manifests", counted)
    monkeypatch.setattr(backend, "render_manifests", counted)
    checked, manifests = prepare_pool({"node_class": node_class()}, "cpu", "test")
    assert checked.manifests is manifests and checked.manifests_plain
    capture = run(lambda: KarpenterNodePool("cpu", {"node_class": node_class()}))
    assert renders == ["cpu", "cpu"]  # once by prepare_pool above, once by the preflight
    outputs = capture.outputs_of(component_of(capture, "cpu"))
    assert outputs["manifests"] == manifests


def test_validating_a_copy_in_place_finds_what_validating_the_original_does() -> None:
    _, manifests = prepare_pool({"node_class": node_class()}, "cpu", "test")
    bad = copy.deepcopy(manifests["node_pool"])
    bad["spec"]["weight"] = 1000
    bad["spec"]["bogus"] = ("a", "tuple")
    bad["spec"]["template"]["spec"]["requirements"].append({"key": "k", "operator": "In"})
    for manifest in (*manifests.values(), bad):
        kept = copy.deepcopy(manifest)
        found = validate_manifest(manifest)
        assert validate_manifest(copy.deepcopy(manifest), owned=True) == found
        assert manifest == kept  # only the validator's own copy is normalized
    assert len(validate_manifest(bad)) >= 2


# --- GPU defaults -------------------------------------------------------------------------


def node_pool_spec(args: dict[str, Any], name: str = "pool") -> dict[str, Any]:
    pool, _ = prepare_pool(args, name, "test")
    return render_manifests(pool)["node_pool"]["spec"]


def requirement(spec: dict[str, Any], key: str) -> dict[str, Any] | None:
    found = [r for r in spec["template"]["spec"]["requirements"] if r["key"] == key]
    return found[0] if found else None


def test_accelerator_only_pool_gets_when_empty_and_the_accelerator_taint() -> None:
    spec = node_pool_spec(gpu_args())
    assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
    assert spec["disruption"]["consolidateAfter"] == "10m"
    assert spec["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ]


def test_cpu_pool_keeps_karpenters_defaults_and_no_taint() -> None:
    # No `disruption` block: Karpenter's CRD defaults (WhenEmptyOrUnderutilized after 0s,
    # 10% of nodes at a time) apply, as in upstream's examples; `{}` writes them out.
    args = {"node_class": node_class(), "instance_families": ["m5", "c5"]}
    spec = node_pool_spec(args)
    assert "disruption" not in spec
    assert "taints" not in spec["template"]["spec"]
    assert node_pool_spec({**args, "disruption": {}})["disruption"] == {
        "consolidateAfter": "0s",
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
    }


def test_when_empty_of_an_accelerator_pool_is_overridden_by_disruption() -> None:
    spec = node_pool_spec(
        {
            **gpu_args(),
            "disruption": {
                "consolidation_policy": "WhenEmptyOrUnderutilized",
                "consolidate_after": "1h",
                "budgets": [{"nodes": "1"}],
            },
        }
    )
    assert spec["disruption"] == {
        "budgets": [{"nodes": "1"}],
        "consolidateAfter": "1h",
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
    }
    # Only the policy given: the accelerator pool's 10m stays.
    spec = node_pool_spec({**gpu_args(), "disruption": {"consolidation_policy": "Balanced"}})
    assert spec["disruption"] == {"consolidateAfter": "10m", "consolidationPolicy": "Balanced"}
    spec = node_pool_spec({**gpu_args(), "disruption": {"consolidate_after": "Never"}})
    assert spec["disruption"] == {"consolidateAfter": "Never", "consolidationPolicy": "WhenEmpty"}


def test_pool_that_may_launch_cpu_instances_is_not_accelerator_only() -> None:
    # It may still launch GPU instances, so it must say how they are isolated and bounded;
    # the taint then is the user's, the defaults stay those of a general pool.
    spec = node_pool_spec(
        {
            "node_class": node_class(),
            "instance_types": ["m5.large", "g5.xlarge"],
            "taints": ["nvidia.com/gpu=true:NoSchedule"],
            "limits": {"nvidia.com/gpu": 4},
        }
    )
    assert spec["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ]
    assert "disruption" not in spec  # a general pool's defaults: Karpenter's
    assert requirement(spec, "karpenter.k8s.aws/instance-gpu-manufacturer") is None


MIXED_POOLS = [
    # (case, requirements); each may launch nvidia.com/gpu instances next to CPU-only ones
    ("types", {"instance_types": ["m5.large", "g5.xlarge"]}),
    ("families", {"instance_families": ["g5", "m5"]}),
    ("pinned and open", {"instance_types": ["m5.large"], "instance_families": ["g5", "m5"]}),
]


@pytest.mark.parametrize(
    "requirements", [m[1] for m in MIXED_POOLS], ids=[m[0] for m in MIXED_POOLS]
)
def test_pool_that_may_launch_gpus_next_to_cpus_needs_the_taint(
    requirements: dict[str, Any],
) -> None:
    found = problems({"node_class": node_class(), **requirements, "limits": {"cpu": 64}})
    [path] = [p for p in found if p.startswith("instance_")]
    assert "lets the pool launch nvidia.com/gpu instances" in found[path]
    assert "add the taint `nvidia.com/gpu=true:NoSchedule` to `taints`" in found[path]
    assert "limits" not in found  # a missing GPU limit is the policy pack's advisory
    # PreferNoSchedule does not keep other pods off; NoExecute does.
    soft = {**requirements, "taints": ["nvidia.com/gpu=true:PreferNoSchedule"]}
    assert path in problems({"node_class": node_class(), **soft, "limits": {"nvidia.com/gpu": 2}})
    hard = {**requirements, "taints": ["nvidia.com/gpu:NoExecute"]}
    build("ok", {"node_class": node_class(), **hard, "limits": {"nvidia.com/gpu": 2}})


def test_given_disruption_and_taints_override_the_defaults() -> None:
    spec = node_pool_spec(
        gpu_args(
            taints=["nvidia.com/gpu=training:NoSchedule"],
            disruption={"consolidation_policy": "WhenEmptyOrUnderutilized"},
        )
    )
    assert spec["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "training", "effect": "NoSchedule"}
    ]
    assert spec["disruption"] == {
        "consolidateAfter": "10m",
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
    }


def test_neuron_requirements_make_a_neuron_pool() -> None:
    spec = node_pool_spec(
        {
            "node_class": node_class(),
            "neuron_names": ["trainium"],
            "limits": {"aws.amazon.com/neuron": 4},
        }
    )
    assert spec["template"]["spec"]["taints"][0]["key"] == "aws.amazon.com/neuron"
    assert requirement(spec, "karpenter.k8s.aws/instance-accelerator-name")["values"] == [
        "trainium"
    ]


def test_open_gpu_maker_is_narrowed_to_nvidia() -> None:
    # A GPU count or the `g` category allows NVIDIA and AMD GPUs; the taint and scheduling
    # info name one resource, so the pool is narrowed to NVIDIA explicitly.
    limits = {"limits": {"nvidia.com/gpu": 8}}
    for args in ({"gpu_count": 1}, {"instance_categories": ["g"]}):
        spec = node_pool_spec({"node_class": node_class(), **args, **limits})
        assert requirement(spec, "karpenter.k8s.aws/instance-gpu-manufacturer") == {
            "key": "karpenter.k8s.aws/instance-gpu-manufacturer",
            "operator": "In",
            "values": ["nvidia"],
        }
        assert spec["template"]["spec"]["taints"][0]["key"] == "nvidia.com/gpu"
    spec = node_pool_spec(
        {
            "node_class": node_class(),
            "gpu_count": 1,
            "gpu_manufacturers": ["amd"],
            "limits": {"amd.com/gpu": 8},
        }
    )
    assert spec["template"]["spec"]["taints"][0]["key"] == "amd.com/gpu"


def test_scheduling_info_selects_the_node_pool_and_requests_the_smallest_count() -> None:
    capture = build("gpu", gpu_args(instance_types=["g5.xlarge", "g5.12xlarge"]))
    info = capture.outputs_of(component_of(capture, "gpu"))["scheduling_info"]
    assert info["nodeSelector"] == {"karpenter.sh/nodepool": "gpu", "nodepools.dev/pool": "gpu"}
    assert info["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    ]
    assert info["resources"] == {"limits": {"nvidia.com/gpu": 1}}


def test_taint_without_value_is_emitted_without_value() -> None:
    spec = node_pool_spec(
        gpu_args(
            taints=["dedicated:NoSchedule", {"key": "team", "value": "", "effect": "NoExecute"}]
        )
    )
    taints = {t["key"]: t for t in spec["template"]["spec"]["taints"]}
    assert taints["dedicated"] == {"key": "dedicated", "effect": "NoSchedule"}
    assert taints["team"] == {"key": "team", "effect": "NoExecute"}
    assert spec["template"]["spec"]["startupTaints"] == [
        {"key": "node.example.com/initializing", "effect": "NoSchedule"}
    ]


def test_block_devices_follow_the_ami_family() -> None:
    def devices(alias: str) -> list[dict[str, Any]]:
        _, manifests = prepare_pool(
            {"node_class": node_class(ami_alias=alias, boot_volume_gb=100)}, "p", "test"
        )
        return manifests["node_class"]["spec"]["blockDeviceMappings"]

    assert [(d["deviceName"], d.get("rootVolume")) for d in devices("al2023@latest")] == [
        ("/dev/xvda", True)
    ]
    bottlerocket = devices("bottlerocket@latest")
    assert [(d["deviceName"], d["ebs"]["volumeSize"]) for d in bottlerocket] == [
        ("/dev/xvda", "4Gi"),
        ("/dev/xvdb", "100Gi"),
    ]
    assert devices("windows2022@latest")[0]["deviceName"] == "/dev/sda1"


# --- argument rules: path and message, nothing registered --------------------------------

RULES: list[tuple[str, dict[str, Any], str, str]] = [
    # (case, overrides of gpu_args (None deletes), path, part of the message)
    ("neither node class", {"node_class": None}, "node_class_name", "one of `node_class` or `node_class_name` is required"),
    ("both node classes", {"node_class_name": "x"}, "node_class_name", "only one of `node_class` or `node_class_name` can be provided"),
    ("role and profile", {"node_class": node_class(instance_profile="p")}, "node_class.instance_profile", "only one of `role` or `instance_profile` can be provided"),
    ("no identity", {"node_class": node_class(role=None)}, "node_class.instance_profile", "one of `role` or `instance_profile` is required"),
    ("role is a user ARN", {"node_class": node_class(role="arn:aws:iam::123456789012:user/x")}, "node_class.role", "'arn:aws:iam::123456789012:user/x' is not an IAM role name"),
    ("role ARN", {"node_class": node_class(role="arn:aws:iam::123456789012:role/ml/nodes")}, "node_class.role", "is a role ARN; give the role's name ('nodes')"),
    ("alias family", {"node_class": node_class(ami_alias="ubuntu@latest")}, "node_class.ami_alias", "family 'ubuntu' is not one of"),
    ("alias shape", {"node_class": node_class(ami_alias="al2023")}, "node_class.ami_alias", "'al2023' is not an AMI alias"),
    ("windows version", {"node_class": node_class(ami_alias="windows2022@v1")}, "node_class.ami_alias", "only take version 'latest'"),
    ("alias and selector terms", {"node_class": node_class(ami_alias="al2023@latest", ami_selector_terms=[{"id": "ami-1"}], ami_family="AL2023")}, "node_class.ami_selector_terms", "set `ami_alias` ('al2023@latest') or `ami_selector_terms`, not both"),
    ("family of the alias", {"node_class": node_class(ami_family="Bottlerocket")}, "node_class.ami_family", "'Bottlerocket' is not the family of `ami_alias` 'al2023@latest' ('al2023'); use 'AL2023' or 'Custom'"),
    ("boot volume and mappings", {"node_class": node_class(boot_volume_gb=100, block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"volume_size": 100}}])}, "node_class.block_device_mappings", "set `boot_volume_gb` (100) or `block_device_mappings`, not both"),
    ("two root volumes", {"node_class": node_class(block_device_mappings=[{"device_name": d, "root_volume": True, "ebs": {"volume_size": 20}} for d in ("/dev/xvda", "/dev/xvdb")])}, "node_class.block_device_mappings[1].root_volume", "must have only one blockDeviceMappings with rootVolume ('/dev/xvda', '/dev/xvdb' have it)"),
    ("volume without size", {"node_class": node_class(block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"volume_type": "gp3"}}])}, "node_class.block_device_mappings[0].ebs.volume_size", "snapshotID or volumeSize must be defined"),
    ("ami id and name", {"node_class": node_class(ami_family="Custom", ami_selector_terms=[{"id": "ami-1", "name": "my-ami"}])}, "node_class.ami_selector_terms[0].id", "'ami-1' is mutually exclusive with the other fields of a term (got `name` too)"),
    ("empty selector term", {"node_class": node_class(subnet_selector_tags={})}, "node_class.subnet_selector_tags[0]", "at least one tag"),
    ("no selector terms", {"node_class": node_class(subnet_selector_tags=[])}, "node_class.subnet_selector_tags", "at least one selector term"),
    ("empty selector value", {"node_class": node_class(security_group_selector_tags={"k": ""})}, "node_class.security_group_selector_tags[0]", "tag 'k' needs a value"),
    ("boot volume 0", {"node_class": node_class(boot_volume_gb=0)}, "node_class.boot_volume_gb", "greater than or equal to 1"),
    ("boot volume too big", {"node_class": node_class(boot_volume_gb=20000)}, "node_class.boot_volume_gb", "less than or equal to 16384"),
    ("reserved tag", {"node_class": node_class(tags={"kubernetes.io/cluster/ml": "owned"})}, "node_class.tags", "tag contains a restricted tag matching kubernetes.io/cluster/"),
    ("aws: tag", {"node_class": node_class(tags={"aws:team": "ml"})}, "node_class.tags", "'aws:' prefix"),
    ("capacity type", {"capacity_types": ["cheap"]}, "capacity_types[0]", "'spot', 'on-demand' or 'reserved'"),
    ("spot max price", {"spot": {"max_price": 1.5}}, "spot.max_price", "1.5 can't be used: Karpenter can't cap the spot price"),
    ("spot without spot capacity", {"capacity_types": ["on-demand"], "spot": {}}, "spot", "has no 'spot'"),
    ("empty instance types", {"instance_types": []}, "instance_types", "must not be empty"),
    ("instance type syntax", {"instance_types": ["g5/xl"]}, "instance_types[0]", "'g5/xl' is not an EC2 instance type"),
    ("requirement value syntax", {"instance_types": None, "instance_families": ["g5", "g 6"]}, "instance_families[1]", "label value 'g 6' must be empty or alphanumerics"),
    ("empty requirement value", {"instance_types": None, "instance_categories": ["g", ""]}, "instance_categories[1]", "values must not be empty strings (got '')"),
    ("architecture", {"architectures": ["x86"]}, "architectures[0]", "'amd64' or 'arm64'"),
    ("gpu count 0", {"gpu_count": 0}, "gpu_count", "greater than or equal to 1"),
    ("gpu name case", {"gpu_names": ["a10g", "A10G"]}, "gpu_names[1]", "'A10G' would never match: Karpenter publishes these names in lowercase (use 'a10g')"),
    ("gpu maker", {"gpu_manufacturers": ["intel"]}, "gpu_manufacturers[0]", "'nvidia' or 'amd'"),
    ("identity label", {"labels": {"nodepools.dev/pool": "x"}}, "labels", "set by the pool itself"),
    ("too many labels", {"labels": {f"l{i}": "x" for i in range(100)}}, "labels", "at most 99 labels"),
    ("taint syntax", {"taints": ["no-effect"]}, "taints[0]", "must look like 'key=value:Effect'"),
    ("unknown limit", {"limits": {"cpus": 1}}, "limits.cpus", "unknown limit 'cpus'"),
    ("negative limit", {"limits": {"cpu": -1}}, "limits.cpu", "-1 is negative"),
    ("quantity syntax", {"limits": {"memory": "lots"}}, "limits.memory", "'lots' is not a non-negative quantity"),
    ("boolean limit", {"limits": {"cpu": True}}, "limits.cpu", "True is not a quantity"),
    ("fractional gpus", {"limits": {"nvidia.com/gpu": "1.5"}}, 'limits["nvidia.com/gpu"]', "'1.5' must be a whole number of nvidia.com/gpu"),
    ("policy", {"disruption": {"consolidation_policy": "Sometimes"}}, "disruption.consolidation_policy", "'WhenEmpty'"),
    ("consolidate after", {"disruption": {"consolidate_after": "5 minutes"}}, "disruption.consolidate_after", "'5 minutes' is not a duration"),
    ("schedule without duration", {"disruption": {"budgets": [{"schedule": "0 9 * * 1-5"}]}}, "disruption.budgets[0].duration", "`schedule` and `duration` must be set together (only `schedule` is set, to '0 9 * * 1-5')"),
    ("duration without schedule", {"disruption": {"budgets": [{"duration": "8h"}]}}, "disruption.budgets[0].duration", "(only `duration` is set, to '8h')"),
    ("budget nodes", {"disruption": {"budgets": [{"nodes": "110%"}]}}, "disruption.budgets[0].nodes", "'110%' is not a node count"),
    ("budget schedule", {"disruption": {"budgets": [{"schedule": "every day", "duration": "8h"}]}}, "disruption.budgets[0].schedule", "'every day' is not a cron expression"),
    ("budget duration", {"disruption": {"budgets": [{"schedule": "@daily", "duration": "30s"}]}}, "disruption.budgets[0].duration", "'30s' is not a duration in hours and minutes"),
    ("weight 0", {"weight": 0}, "weight", "greater than or equal to 1"),
    ("weight 101", {"weight": 101}, "weight", "less than or equal to 100"),
    ("expire after", {"expire_after": "30d"}, "expire_after", "'30d' is not a duration"),
    ("grace period", {"termination_grace_period": "Never"}, "termination_grace_period", "'Never' is not a duration"),
    ("pool name", {"pool_name": "GPU_Pool"}, "pool_name", "'GPU_Pool' is not a valid pool name"),
    ("unknown field", {"instance_type": "g5.xlarge"}, "instance_type", "unknown field"),
    # Rules across fields, checked once every field is valid.
    ("mixed instance types", {"instance_types": ["g5.xlarge", "trn1.2xlarge"]}, "instance_types", "mixes accelerator resources: g5.xlarge (nvidia.com/gpu), trn1.2xlarge (aws.amazon.com/neuron)"),
    ("mixed families", {"instance_types": None, "instance_families": ["g5", "g4ad"]}, "instance_families", "mixes accelerator resources"),
    ("mixed categories", {"instance_types": None, "instance_categories": ["p", "inf"]}, "instance_categories", "mixes accelerator resources"),
    ("two gpu makers", {"gpu_manufacturers": ["nvidia", "amd"]}, "gpu_manufacturers", "mixes accelerator resources"),
    ("contradiction", {"neuron_count": 1}, "neuron_count", "1 allows only aws.amazon.com/neuron instances but `instance_types` allows only nvidia.com/gpu: no instance type satisfies both"),
    ("count not offered", {"gpu_count": 8}, "gpu_count", "8 matches none of `instance_types` (g5.12xlarge has 4, g6.12xlarge has 4)"),
    ("limit not a multiple", {"limits": {"nvidia.com/gpu": 6}}, 'limits["nvidia.com/gpu"]', "6 is not a multiple of 4, the nvidia.com/gpu count per instance (g5.12xlarge has 4, g6.12xlarge has 4)"),
    ("limit on another accelerator", {"limits": {"nvidia.com/gpu": 8, "aws.amazon.com/neuron": 2}}, 'limits["aws.amazon.com/neuron"]', "the only accelerator the pool launches is nvidia.com/gpu"),
    ("gpus beside cpus", {"instance_types": ["g5.12xlarge", "m5.large"]}, "instance_types", "['g5.12xlarge', 'm5.large'] lets the pool launch nvidia.com/gpu instances: g5.12xlarge (nvidia.com/gpu) as well as CPU-only ones (m5.large)"),
    ("two accelerators beside cpus", {"instance_types": None, "instance_categories": ["g", "m"]}, "instance_categories", "['g', 'm'] lets the pool launch amd.com/gpu and nvidia.com/gpu instances: g (amd.com/gpu, nvidia.com/gpu) as well as CPU-only ones (m); a pool's taint and limits name one accelerator resource"),
    ("neuron and gpus beside cpus", {"instance_types": ["g5.xlarge", "trn1.2xlarge", "m5.large"]}, "instance_types", "lets the pool launch aws.amazon.com/neuron and nvidia.com/gpu instances"),
    ("accelerator another requirement excludes", {"instance_types": ["g5.xlarge", "inf2.xlarge", "m5.large"], "gpu_count": 1}, "instance_types", "lists inf2.xlarge (aws.amazon.com/neuron), which `gpu_count` excludes"),
]  # fmt: skip


def _with(overrides: dict[str, Any]) -> dict[str, Any]:
    args = gpu_args()
    for key, value in overrides.items():
        if value is None:
            args.pop(key, None)
        else:
            args[key] = value
    return args


@pytest.mark.parametrize(
    ("overrides", "path", "message"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_each_rule_names_its_path_and_quotes_the_value(
    overrides: dict[str, Any], path: str, message: str
) -> None:
    found = problems(_with(overrides))
    assert path in found, found
    assert message in found[path], found[path]


def test_every_problem_is_reported_at_once() -> None:
    found = problems(
        _with({"weight": 0, "spot": {"max_price": 2.0}, "labels": {"karpenter.sh/team": "ml"}})
    )
    assert {"weight", "spot.max_price", "labels"} <= set(found)


def test_multiple_of_count_applies_to_a_pinned_gpu_count() -> None:
    args = {"node_class": node_class(), "gpu_count": 8, "limits": {"nvidia.com/gpu": 12}}
    found = problems(args)
    assert found['limits["nvidia.com/gpu"]'].startswith(
        "12 is not a multiple of 8, the nvidia.com/gpu count per instance (`gpu_count` is 8)"
    )
    build("ok", {**args, "limits": {"nvidia.com/gpu": 16}})


def test_invalid_component_name_is_reported_when_pool_name_is_unset() -> None:
    found = problems({"node_class": node_class()}, name="CPU_Pool")
    assert "the component name is used when `pool_name` is unset" in found["pool_name"]


# --- restricted label keys ---------------------------------------------------------------

RESTRICTED = [
    "karpenter.sh/nodepool",
    "karpenter.sh/team",
    "nodes.karpenter.sh/team",
    "karpenter.k8s.aws/instance-colour",
    "kubernetes.io/hostname",
]
ALLOWED = [
    "karpenter.sh/capacity-type",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-gpu-count",
    "kubernetes.io/arch",
    "example.com/team",
    "team",
]


@pytest.mark.parametrize("key", RESTRICTED)
def test_restricted_label_keys_are_rejected_at_construction(key: str) -> None:
    found = problems(_with({"labels": {key: "x"}}))
    assert found["labels"].startswith(f"label {key!r} is restricted by Karpenter (")


@pytest.mark.parametrize("key", RESTRICTED + ALLOWED)
def test_restrictions_agree_with_the_crd_rules(key: str) -> None:
    """The derived restriction and the CEL rules of the CRD give the same verdict."""
    manifest = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "p"},
        "spec": {
            "template": {
                "metadata": {"labels": {key: "x"}},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "c"},
                    "requirements": [{"key": key, "operator": "Exists"}],
                },
            }
        },
    }  # fmt: skip
    rejected_by_crd = bool(validate_manifest(manifest))
    assert (restricted_label_problem(key) is not None) == rejected_by_crd


def test_allowed_keys_are_derived_from_the_packaged_crd() -> None:
    aws = allowed_keys("karpenter.k8s.aws")
    assert {
        "karpenter.k8s.aws/instance-family",
        "karpenter.k8s.aws/instance-gpu-count",
        "karpenter.k8s.aws/instance-accelerator-name",
    } <= aws
    assert allowed_keys("karpenter.sh") == {"karpenter.sh/capacity-type"}
    assert len(label_rules()) == len(requirement_key_rules()) == 4
    assert {rule.message for rule in tag_rules()} >= {
        "tag contains a restricted tag matching eks:eks-cluster-name"
    }


def test_an_unknown_rule_shape_is_an_error_not_ignored() -> None:
    with pytest.raises(ValueError, match="unrecognised Karpenter key rule"):
        parse_key_rule("self.all(x, x.size() < 10)", "too long")


REQUIREMENT_LABELS = [
    ("karpenter.sh/capacity-type", "capacity_types"),
    ("karpenter.k8s.aws/instance-family", "instance_families"),
    ("karpenter.k8s.aws/instance-category", "instance_categories"),
    ("karpenter.k8s.aws/instance-gpu-count", "gpu_count"),
    ("karpenter.k8s.aws/instance-gpu-manufacturer", "gpu_manufacturers"),
    ("karpenter.k8s.aws/instance-gpu-name", "gpu_names"),
    ("karpenter.k8s.aws/instance-accelerator-count", "neuron_count"),
    ("karpenter.k8s.aws/instance-accelerator-name", "neuron_names"),
    ("node.kubernetes.io/instance-type", "instance_types"),
    ("kubernetes.io/arch", "architectures"),
]


@pytest.mark.parametrize(("key", "arg"), REQUIREMENT_LABELS, ids=[k for k, _ in REQUIREMENT_LABELS])
def test_requirement_keys_are_refused_as_labels_pointing_at_their_arg(key: str, arg: str) -> None:
    found = problems(_with({"labels": {key: "x", "team": "ml"}}))
    assert found["labels"].startswith(f"label {key!r} is a requirement: set `{arg}` instead")


def test_a_capacity_type_label_cant_contradict_capacity_types() -> None:
    found = problems(
        _with({"capacity_types": ["on-demand"], "labels": {"karpenter.sh/capacity-type": "spot"}})
    )
    assert "set `capacity_types` instead" in found["labels"]


# Keys the NodePool CRD accepts as labels but the pack's `restricted-label-domains` does not.
RESERVED_LABELS = [
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/capacity-reservation-id",
    "kubernetes.io/role",
    "node-role.kubernetes.io/gpu",
    "k8s.io/team",
    "kops.k8s.io/instancegroup",
]
# Keys both accept (and that have no arg of their own).
POOL_LABELS = [
    "kubernetes.io/os",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/exclude-from-external-load-balancers",
    "kubelet.kubernetes.io/team",
    "example.com/team",
    "team",
]


def test_reserved_domains_are_refused_and_other_labels_pass_the_crd_and_the_pack() -> None:
    from nodepools.planning.policy_section import policy_inputs
    from nodepools.policies.runner import run_policies

    for key in RESERVED_LABELS:
        found = problems(_with({"labels": {key: "x"}}))
        assert key in found["labels"], found["labels"]
    capture = build("gpu", gpu_args(labels=dict.fromkeys(POOL_LABELS, "x")))
    for manifest in kubernetes_inputs(capture):
        assert validate_manifest(manifest) == []
    found = run_policies(policy_inputs(capture))
    assert [v.policy_name for v in found if v.enforcement_level.value == "mandatory"] == []


@pytest.mark.parametrize(
    "key",
    [k for k, _ in REQUIREMENT_LABELS] + RESERVED_LABELS + POOL_LABELS + RESTRICTED + ALLOWED,
)
def test_label_verdicts_agree_with_the_policy_pack(key: str) -> None:
    """A label the component accepts is one `restricted-label-domains` lets through."""
    from nodepools.policies.label_policies import restricted_domain

    try:
        KarpenterNodePoolArgs.model_validate({**gpu_args(), "labels": {key: "x"}})
    except ValidationError:
        return
    assert restricted_domain(key) is None


# --- the manifest backstop ---------------------------------------------------------------


def test_invalid_manifest_becomes_a_spec_error_naming_the_manifest_path(monkeypatch) -> None:
    import nodepools.pools.karpenter_node_pool as module

    def broken(pool: Any) -> dict[str, Any]:
        manifests = render_manifests(pool)
        del manifests["node_pool"]["spec"]["disruption"]["consolidateAfter"]
        return manifests

    monkeypatch.setattr(module, "render_manifests", broken)
    found = problems(gpu_args())
    assert found["manifests.node_pool.spec.disruption.consolidateAfter"] == "Required value"


# --- determinism -------------------------------------------------------------------------


def _registered(capture: Any) -> str:
    return json.dumps(
        [(r.type, r.name, r.inputs, r.dependencies) for r in capture.resources], sort_keys=True
    )


def test_same_input_in_another_order_registers_identical_inputs() -> None:
    args = gpu_args(
        instance_families=None,
        taints=["b:NoSchedule", "a=1:NoExecute"],
        architectures=["arm64", "amd64"],
        node_class=node_class(
            tags={"b": "2", "a": "1"},
            security_group_selector_tags=[{"x": "1", "a": "2"}, {"karpenter.sh/discovery": "ml"}],
        ),
    )
    shuffled = copy.deepcopy(args)
    shuffled["labels"] = dict(reversed(list(args["labels"].items())))
    shuffled["taints"] = list(reversed(args["taints"]))
    shuffled["instance_types"] = list(reversed(args["instance_types"]))
    shuffled["capacity_types"] = list(reversed(args["capacity_types"]))
    shuffled["architectures"] = list(reversed(args["architectures"]))
    shuffled["limits"] = dict(reversed(list(args["limits"].items())))
    shuffled["node_class"]["tags"] = {"a": "1", "b": "2"}
    shuffled["node_class"]["security_group_selector_tags"] = [
        {"karpenter.sh/discovery": "ml"},
        {"a": "2", "x": "1"},
    ]
    shuffled = dict(reversed(list(shuffled.items())))
    first, again, reordered = (build("gpu", a) for a in (args, args, shuffled))
    assert _registered(first) == _registered(again) == _registered(reordered)
    # Lists carry order: requirements are sorted by key, values sorted.
    spec = first.get(NODE_POOL, "gpu-node-pool").inputs["spec"]["template"]["spec"]
    keys = [r["key"] for r in spec["requirements"]]
    assert keys == sorted(keys)
    assert requirement(first.get(NODE_POOL, "gpu-node-pool").inputs["spec"], "kubernetes.io/arch")[
        "values"
    ] == ["amd64", "arm64"]


# --- fleet, plan and the validation section ----------------------------------------------


def test_fleet_knows_karpenter_pools_and_checks_them_before_building() -> None:
    assert "KarpenterNodePool" in SECTIONS["pools"]
    good = {"component": "KarpenterNodePool", "name": "cpu", "node_class_name": "default"}
    bad = {
        **good,
        "name": "gpu",
        "instance_types": ["g5.12xlarge"],
        "limits": {"nvidia.com/gpu": 6},
    }
    with pytest.raises(SpecError) as raised:
        validate_fleet({"pools": [good, bad]})
    paths = [issue.path for issue in raised.value.issues]
    assert paths == ['nodepools:pools[1].limits["nvidia.com/gpu"]']
    entries, _ = validate_fleet({"pools": [good]})
    assert isinstance(entries[0].args, KarpenterNodePoolArgs)


def test_llm_stack_plans_offline_and_writes_manifests(tmp_path: Path) -> None:
    result = plan_stack("eks-karpenter-llm", stacks_dir=STACKS, out_dir=tmp_path)
    assert result.ok, result.render()
    titles = {section.title: section for section in result.sections}
    assert titles["Validation of custom resources"].lines == ["4 manifests validated, all valid"]
    names = sorted(path.name for path in result.artifacts)
    assert names == [
        "capacity.svg",
        "plan.json",
        "trainium-software-neuron.yaml",  # the Neuron device plugin's Helm release
        "trainium-trn1-node-class.yaml",
        "trainium-trn1-node-pool.yaml",
        "x86-cpu-karpenter-node-class.yaml",
        "x86-cpu-karpenter-node-pool.yaml",
    ]
    node_pool = yaml.safe_load(
        (tmp_path / "manifests" / "trainium-trn1-node-pool.yaml").read_text()
    )
    assert node_pool["kind"] == "NodePool"
    assert node_pool["spec"]["limits"] == {"aws.amazon.com/neuron": 2, "cpu": 16, "memory": "64Gi"}
    node_class_doc = yaml.safe_load(
        (tmp_path / "manifests" / "x86-cpu-karpenter-node-class.yaml").read_text()
    )
    assert node_class_doc["kind"] == "EC2NodeClass"
    assert validate_manifest(node_pool) == validate_manifest(node_class_doc) == []


def test_llm_stack_follows_the_scenario(llm_plan: Any) -> None:
    capture = llm_plan.capture
    head = capture.get(NODE_POOL, "x86-cpu-karpenter-node-pool").inputs["spec"]
    labels = head["template"]["metadata"]["labels"]
    assert labels["type"] == "karpenter" and labels["instanceType"] == "mixed-x86"
    assert requirement(head, "karpenter.k8s.aws/instance-family")["values"] == ["c5", "m5", "r5"]
    assert requirement(head, "karpenter.sh/capacity-type")["values"] == ["on-demand"]
    assert set(head["limits"]) == {"cpu", "memory"}
    workers = capture.get(NODE_POOL, "trainium-trn1-node-pool").inputs["spec"]
    assert requirement(workers, "node.kubernetes.io/instance-type")["values"] == ["trn1.2xlarge"]
    assert workers["template"]["spec"]["taints"] == [
        {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}
    ]
    labels = workers["template"]["metadata"]["labels"]
    assert labels["provisionerType"] == "Karpenter" and labels["instanceType"] == "trn1.2xlarge"
    volumes = {
        pool: capture.get(NODE_CLASS, f"{pool}-node-class").inputs["spec"]["blockDeviceMappings"][
            0
        ]["ebs"]["volumeSize"]
        for pool in ("x86-cpu-karpenter", "trainium-trn1")
    }
    assert volumes == {"x86-cpu-karpenter": "200Gi", "trainium-trn1": "500Gi"}


def test_capacity_table_shows_limits_for_karpenter_next_to_node_pools() -> None:
    def program() -> None:
        MachinePool(
            "cpu",
            {
                "cluster": {
                    "kind": "eks",
                    "cluster_name": "ml",
                    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
                    "subnet_ids": ["subnet-1"],
                },
                "instance_type": "m5.large",
                "replicas": 2,
            },
        )
        KarpenterNodePool("gpu", gpu_args())
        KarpenterNodePool("any", {"node_class_name": "default"})

    lines = capacity_section(run(program)).lines
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["cpu"][1:] == ["eks", "m5.large", "2", "-", "0", "0"]
    assert rows["gpu"][1:] == [
        "karpenter",
        "g5.12xlarge,g6.12xlarge",
        "limits",
        "cpu=1000,memory=4000Gi,nvidia.com/gpu=32",
        "nvidia.com/gpu",
        "4",
        "32",
    ]
    assert rows["any"][1:] == ["karpenter", "any", "unbounded", "-", "-", "-"]


def _bad_node_pool_program() -> None:
    from pulumi_kubernetes.apiextensions import CustomResource

    CustomResource(
        "hand-made",
        api_version="karpenter.sh/v1",
        kind="NodePool",
        metadata={"name": "hand-made"},
        spec={
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "x"},
                    "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []}],
                }
            },
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
            "weight": 500,
        },
    )  # fmt: skip


def test_validation_section_reports_an_invalid_hand_made_custom_resource() -> None:
    section = validation_section(run(_bad_node_pool_program))
    assert section.failures == 2
    assert section.lines[:2] == [
        "INVALID NodePool/hand-made (hand-made) spec.weight: Invalid value: 500: should be "
        "less than or equal to 100",
        "INVALID NodePool/hand-made (hand-made) spec.template.spec.requirements: requirements "
        "with operator 'In' must have a value defined",
    ]
    assert section.lines[-1] == "2 violations in 1 manifest"


def test_plan_fails_on_an_invalid_custom_resource(tmp_path: Path, capsys) -> None:
    (tmp_path / "__main__.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from tests.test_karpenter_node_pool import _bad_node_pool_program\n"
        "_bad_node_pool_program()\n"
    )
    (tmp_path / "Pulumi.bad.yaml").write_text("config: {}\n")
    assert cli_main(["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)]) == 1
    # Two schema violations; the policy pack's `karpenter-limits` only advises.
    out = capsys.readouterr().out
    assert "Plan FAILED (2 problems)" in out
    assert "[advisory] karpenter-limits" in out


def test_importing_components_loads_no_kubernetes_sdk() -> None:
    code = (
        "import sys, nodepools, nodepools.specs.karpenter.args; "
        "assert 'pulumi_kubernetes' not in sys.modules; "
        "assert 'nodepools.validation.validator' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_resolved_pool_summary_is_plain_data() -> None:
    args = KarpenterNodePoolArgs.model_validate(gpu_args())
    summary = resolve_karpenter_pool(args, "gpu").summary()
    assert json.loads(json.dumps(summary)) == summary
    assert summary["acceleratorsPerNode"] == 4 and summary["limits"]["nvidia.com/gpu"] == 32


def test_spot_selects_spot_capacity_by_default() -> None:
    spec = node_pool_spec({"node_class": node_class(), "spot": {}})
    assert requirement(spec, "karpenter.sh/capacity-type")["values"] == ["spot"]
    spec = node_pool_spec({"node_class": node_class()})
    assert requirement(spec, "karpenter.sh/capacity-type")["values"] == ["on-demand"]
    spec = node_pool_spec(
        {"node_class": node_class(), "spot": {}, "capacity_types": ["on-demand", "spot"]}
    )
    assert requirement(spec, "karpenter.sh/capacity-type")["values"] == ["on-demand", "spot"]


def test_args_model_and_dict_register_the_same_inputs() -> None:
    model = KarpenterNodePoolArgs.model_validate(gpu_args())
    assert _registered(build("gpu", model)) == _registered(build("gpu", gpu_args()))


@pytest.mark.parametrize(
    "model", [KarpenterNodePoolArgs, NodeClassArgs, Disruption, Budget], ids=lambda m: m.__name__
)
def test_every_field_describes_its_default(model: type) -> None:
    for name, field in model.model_fields.items():
        description = field.description or ""
        assert "default" in description.lower() or "required" in description.lower(), name
