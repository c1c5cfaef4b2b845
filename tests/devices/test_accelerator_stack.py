"""AcceleratorStack: pinned charts, values derived from the served pools, errors with paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nodepools
import pytest
from nodepools.devices.accelerator_stack import AcceleratorStack
from nodepools.offline import ProgramError, run
from nodepools.specs import SpecError
from nodepools.specs.catalog.accelerators import lookup_accelerator
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.devices.args import MIG_PROFILES, AcceleratorStackArgs
from nodepools.specs.devices.placement import advertised, release_daemons
from nodepools.specs.devices.releases import cluster_prerequisites, plan_addons, plan_releases

RELEASE = "kubernetes:helm.sh/v3:Release"
KEYS = json.loads(
    (Path(nodepools.__file__).parent / "specs/devices/data/chart_values_keys.json").read_text()
)
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def pool(name: str, instance_type: str | None, *taints: dict[str, Any]) -> dict[str, Any]:
    acc = lookup_accelerator(instance_type) if instance_type else None
    return {"name": name, "accelerator": acc, "taints": list(taints)}


def spec(**kw: Any) -> AcceleratorStackArgs:
    base: dict[str, Any] = {
        "platform": "eks",
        "pools": [pool("gpu", "p5.48xlarge", GPU_TAINT), pool("cpu", "m5.large")],
    }
    return parse_spec(AcceleratorStackArgs, {**base, **kw}, "AcceleratorStack 't'")


def leaf_paths(values: dict[str, Any], prefix: str = "") -> list[str]:
    """Paths we set, down to where the chart's own schema stops (config maps are data)."""
    out: list[str] = []
    for key, value in values.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and key not in (
            "data",
            "map",
            "affinity",
            "node_selector",
            "nodeSelector",
        ):
            out.extend(leaf_paths(value, path))  # pyright: ignore[reportUnknownArgumentType]
        else:
            out.append(path)
    return out


def test_operator_on_rosa_installs_driver_keeps_chart_tolerations_and_uses_driver_toolkit():
    extra = {"key": "team", "value": "ml", "effect": "NoExecute"}
    s = spec(platform="rosa", pools=[pool("gpu", "p5.48xlarge", GPU_TAINT, extra)])
    (plan,) = plan_releases("acc", s)
    assert (plan.repository, plan.chart, plan.version) == (
        "https://helm.ngc.nvidia.com/nvidia",
        "gpu-operator",
        "v26.7.0",
    )
    assert plan.values["driver"] == {"enabled": True}
    assert plan.values["operator"] == {"use_ocp_driver_toolkit": True}
    # OpenShift: the chart's SCC for its operator pod, and not its upstream NFD subchart
    # (no SCC for its hostPath DaemonSet, and no OSTREE_VERSION label for the Driver Toolkit).
    assert plan.values["platform"] == {"openshift": True}
    assert plan.values["nfd"] == {"enabled": False}
    assert plan.values["daemonsets"]["tolerations"] == [
        # The chart's own default first: setting the list would otherwise drop it.
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
    ]
    nfd = plan.values["node-feature-discovery"]["worker"]["tolerations"]
    assert nfd[:2] == KEYS["gpu-operator"]["defaults"]["node-feature-discovery.worker.tolerations"]


def test_driver_default_off_on_eks_and_oke_charts():
    for platform, extra in (("eks", {}), ("oke", {"oke_addons": False})):
        (plan,) = plan_releases("acc", spec(platform=platform, **extra))
        assert plan.values["driver"] == {"enabled": False}, platform
        assert "operator" not in plan.values
        # Off OpenShift the chart's defaults stand: its bundled NFD, no OpenShift SCC.
        assert "platform" not in plan.values and "nfd" not in plan.values


def test_rosa_gpu_operator_names_red_hats_nfd_operator_as_a_prerequisite():
    no_execute = {"key": "team", "value": "ml", "effect": "NoExecute"}
    rosa = spec(platform="rosa", pools=[pool("gpu", "p5.48xlarge", GPU_TAINT)])
    (needed,) = cluster_prerequisites(rosa)
    assert "Node Feature Discovery Operator" in needed and "`nfd`" in needed
    assert "workerTolerations" not in needed  # nfd-worker tolerates NoSchedule itself
    tainted = spec(platform="rosa", pools=[pool("gpu", "p5.48xlarge", GPU_TAINT, no_execute)])
    (needed,) = cluster_prerequisites(tainted)
    assert "`spec.operand.workerTolerations`" in needed and "team=ml:NoExecute" in needed
    # Only the GPU Operator on ROSA relies on it.
    assert cluster_prerequisites(spec()) == []
    assert cluster_prerequisites(spec(platform="rosa", nvidia={"mode": "device-plugin"})) == []
    assert cluster_prerequisites(spec(platform="rosa", pools=[pool("cpu", "m5.large")])) == []

    capture = run(lambda: AcceleratorStack("acc", tainted))
    (stack,) = capture.components()
    assert stack.inputs["prerequisites"] == [needed]
    assert (
        "prerequisites" not in run(lambda: AcceleratorStack("acc", spec())).components()[0].inputs
    )


def test_mig_strategy_none_is_sent_as_none():
    (plan,) = plan_releases("acc", spec())
    assert plan.values["mig"] == {"strategy": "none"}


def test_untainted_pools_keep_the_charts_default_tolerations():
    s = spec(
        platform="generic",
        pools=[
            pool("gpu", "p5.48xlarge"),
            pool("mi", "BM.GPU.MI300X.8"),
            pool("trn", "trn1.2xlarge"),
        ],
    )
    nvidia, amd, neuron = plan_releases("acc", s)
    assert (
        nvidia.values["daemonsets"]["tolerations"]
        == KEYS["gpu-operator"]["defaults"]["daemonsets.tolerations"]
    )
    assert amd.values["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    assert (
        neuron.values["devicePlugin"]["tolerations"]
        == KEYS["neuron-helm-chart"]["defaults"]["devicePlugin.tolerations"]
    )


def test_device_plugin_mode_selects_only_accelerator_pools():
    (plan,) = plan_releases("acc", spec(nvidia={"mode": "device-plugin"}))
    assert plan.chart == "nvidia-device-plugin"
    assert plan.repository == "https://nvidia.github.io/k8s-device-plugin"
    terms = plan.values["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert terms == [
        {"matchExpressions": [{"key": "nodepools.dev/pool", "operator": "In", "values": ["gpu"]}]}
    ]
    assert plan.values["tolerations"][0] == {"key": "CriticalAddonsOnly", "operator": "Exists"}


def test_one_amd_release_serves_every_amd_pool_with_the_chart_selector_defaults_removed():
    amd_taint = {"key": "amd.com/gpu", "value": "true", "effect": "NoSchedule"}
    s = spec(
        platform="generic",
        pools=[pool("mi-a", "BM.GPU.MI300X.8", amd_taint), pool("mi-b", "BM.GPU.MI300X.8")],
    )
    (amd,) = plan_releases("acc", s)
    assert (amd.name, amd.chart, amd.version, amd.pools) == (
        "acc-amd",
        "amd-gpu",
        "0.21.0",
        ("mi-a", "mi-b"),
    )
    assert amd.values["node_selector"] == {
        "feature.node.kubernetes.io/pci-0300_1002.present": None,
        "kubernetes.io/arch": None,
        "nodepools.dev/device-software": "amd-gpu",
    }
    # What Helm renders: the chart's map with ours merged in, nulls removed.
    (daemon,) = release_daemons(amd.name, amd.chart, amd.values)
    assert daemon.node_selector == {"nodepools.dev/device-software": "amd-gpu"}
    assert [t["key"] for t in daemon.tolerations] == ["CriticalAddonsOnly", "amd.com/gpu"]
    # ... and both pools' nodes carry that label.
    assert AcceleratorStack.required_labels(s) == {
        "mi-a": {"nodepools.dev/device-software": "amd-gpu"},
        "mi-b": {"nodepools.dev/device-software": "amd-gpu"},
    }


def test_one_neuron_release_in_the_chosen_namespace_lists_trn2():
    trn_taint = {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}
    s = spec(
        pools=[pool("trn1", "trn1.32xlarge", trn_taint), pool("trn2", "trn2.48xlarge", trn_taint)],
        namespace="accelerators",
    )
    (neuron,) = plan_releases("acc", s)
    assert neuron.repository == "oci://public.ecr.aws/neuron"
    assert neuron.namespace == "accelerators"
    assert neuron.values["devicePlugin"]["namespaceOverride"] == "accelerators"
    assert "fullnameOverride" not in neuron.values["devicePlugin"]
    instances = neuron.values["neuronInstances"]
    assert {"trn2.48xlarge", "trn2u.48xlarge", "trn1.2xlarge", "inf2e.32xlarge"} <= set(instances)
    assert "trn2.48xlarge" not in KEYS["neuron-helm-chart"]["defaults"]["neuronInstances"]
    assert neuron.values["devicePlugin"]["tolerations"][-1]["key"] == "aws.amazon.com/neuron"


def test_time_slicing_and_mig_label_their_pools():
    s = spec(
        pools=[pool("gpu", "p5.48xlarge", GPU_TAINT), pool("shared", "g5.2xlarge", GPU_TAINT)],
        nvidia={
            "mig": {"strategy": "mixed", "profile": {"gpu": "1g.10gb"}},
            "time_slicing": {"replicas": {"shared": 4}},
        },
    )
    assert AcceleratorStack.required_labels(s) == {
        "gpu": {"nvidia.com/mig.config": "all-1g.10gb"},
        "shared": {"nvidia.com/device-plugin.config": "shared"},
    }
    (plan,) = plan_releases("acc", s)
    config = plan.values["devicePlugin"]["config"]
    assert config["default"] == "default" and sorted(config["data"]) == ["default", "shared"]
    assert json.loads(config["data"]["shared"])["sharing"]["timeSlicing"]["resources"] == [
        {"name": "nvidia.com/gpu", "replicas": 4}
    ]
    assert json.loads(config["data"]["default"]) == {
        "flags": {"migStrategy": "mixed"},
        "version": "v1",
    }
    assert plan.values["mig"] == {"strategy": "mixed"}


def test_oke_gets_the_gpu_plugin_add_ons_with_tolerations_and_affinity():
    amd_taint = {"key": "amd.com/gpu", "value": "true", "effect": "NoSchedule"}
    s = spec(
        platform="oke",
        oke_cluster_id="ocid1.cluster.oc1..x",
        pools=[pool("a10", "BM.GPU.A10.4", GPU_TAINT), pool("mi", "BM.GPU.MI300X.8", amd_taint)],
    )
    assert plan_releases("acc", s) == []
    nvidia, amd = plan_addons("acc", s)
    assert (nvidia.addon_name, amd.addon_name) == ("NvidiaGpuPlugin", "AmdGpuPlugin")
    assert json.loads(amd.configurations["tolerations"]) == [
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "amd.com/gpu", "operator": "Exists"},
        {"effect": "NoSchedule", "key": "amd.com/gpu", "operator": "Equal", "value": "true"},
    ]
    affinity = json.loads(amd.configurations["affinity"])
    assert affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ] == [{"matchExpressions": [{"key": "nodepools.dev/pool", "operator": "In", "values": ["mi"]}]}]
    capture = run(lambda: AcceleratorStack("acc", s))
    addons = capture.by_type("oci:ContainerEngine/addon:Addon")
    assert sorted(a.inputs["addonName"] for a in addons) == ["AmdGpuPlugin", "NvidiaGpuPlugin"]
    assert {a.inputs["clusterId"] for a in addons} == {"ocid1.cluster.oc1..x"}
    assert all(a.inputs["removeAddonResourcesOnDelete"] for a in addons)
    assert capture.by_type(RELEASE) == []


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {
            "platform": "rosa",
            "nvidia": {"mig": {"strategy": "mixed", "profile": {"gpu": "1g.10gb"}}},
        },
        {"nvidia": {"time_slicing": {"replicas": {"gpu": 4}}}},
        {"nvidia": {"mode": "device-plugin", "time_slicing": {"replicas": {"gpu": 4}}}},
    ],
)
def test_every_value_we_set_exists_in_the_pinned_chart(kw: dict[str, Any]):
    amd = pool("mi", "BM.GPU.MI300X.8")
    trn = pool("trn", "trn1.32xlarge")
    s = spec(pools=[pool("gpu", "p5.48xlarge", GPU_TAINT), amd, trn], **kw)
    for plan in plan_releases("acc", s):
        facts = KEYS[plan.chart]
        assert facts["version"] == plan.version
        missing = [p for p in leaf_paths(plan.values) if p not in facts["keys"]]
        assert missing == [], (plan.chart, missing)


def test_advertised_after_mig_and_time_slicing():
    assert MIG_PROFILES["H100"]["1g.10gb"] == 7
    mixed = spec(nvidia={"mig": {"strategy": "mixed", "profile": {"gpu": "1g.10gb"}}})
    (a,) = advertised(mixed)
    assert (a.resource, a.count) == ("nvidia.com/mig-1g.10gb", 56)
    single = spec(nvidia={"mig": {"strategy": "single", "profile": {"gpu": "3g.40gb"}}})
    assert (advertised(single)[0].resource, advertised(single)[0].count) == ("nvidia.com/gpu", 16)
    shared = spec(nvidia={"time_slicing": {"replicas": {"gpu": 4}}})
    assert (advertised(shared)[0].resource, advertised(shared)[0].count) == ("nvidia.com/gpu", 32)


@pytest.mark.parametrize(
    ("kw", "path", "fragment"),
    [
        (
            {"nvidia": {"mig": {"strategy": "mixed", "profile": {"gpu": "1g.5gb"}}}},
            "nvidia.mig.profile.gpu",
            "'1g.5gb' is not a MIG profile of 'H100'",
        ),
        (
            {
                "nvidia": {
                    "mig": {"strategy": "mixed", "profile": {"gpu": "1g.10gb"}},
                    "time_slicing": {"replicas": {"gpu": 2}},
                }
            },
            "nvidia.mig.profile.gpu",
            "'1g.10gb' can't be used on pool 'gpu', which is also time-sliced",
        ),
        ({"amd": {}}, "amd", "no served pool has amd accelerators"),
        (
            {
                "nvidia": {
                    "mode": "device-plugin",
                    "mig": {"strategy": "single", "profile": {"gpu": "1g.10gb"}},
                }
            },
            "nvidia.mig.profile.gpu",
            "needs the GPU Operator's mig-manager",
        ),
        ({"platform": "oke"}, "oke_cluster_id", "is required"),
        (
            {
                "platform": "oke",
                "oke_cluster_id": "ocid1.cluster.oc1..x",
                "nvidia": {"time_slicing": {"replicas": {"gpu": 2}}},
            },
            "nvidia.time_slicing.replicas",
            "OKE's NvidiaGpuPlugin add-on",
        ),
        (
            {"nvidia": {"time_slicing": {"replicas": {"gpu": 1}}}},
            "nvidia.time_slicing.replicas.gpu",
            "below 2",
        ),
    ],
)
def test_bad_input_is_an_error_with_its_path_and_nothing_registered(
    kw: dict[str, Any], path: str, fragment: str
):
    args: dict[str, Any] = {
        "platform": "eks",
        "pools": [pool("gpu", "p5.48xlarge", GPU_TAINT)],
        **kw,
    }
    with pytest.raises(ProgramError) as err:
        run(lambda: AcceleratorStack("acc", args))
    assert isinstance(err.value.cause, SpecError)
    assert path in err.value.cause.paths() and fragment in str(err.value.cause)
    assert err.value.capture.resources == []


def test_component_registers_pinned_releases_under_mocks():
    args = {
        "platform": "rosa",
        "pools": [pool("gpu", "p5.48xlarge", GPU_TAINT), pool("cpu", "m5.large")],
    }
    capture = run(lambda: AcceleratorStack("acc", args))
    (release,) = capture.by_type(RELEASE)
    assert release.inputs["chart"] == "gpu-operator"
    assert release.inputs["version"] == "v26.7.0"
    assert release.inputs["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    assert release.inputs["namespace"] == "gpu-operator"


def test_a_program_hands_the_advertised_resources_to_recipes_and_quotas():
    from nodepools import PoolQuotas, Recipe, SharedNodePool

    oke = {
        "kind": "oke",
        "cluster_id": "ocid1.cluster.oc1..x",
        "compartment_id": "ocid1.compartment.oc1..x",
        "image_id": "ocid1.image.oc1..x",
        "placements": [{"availability_domain": "AD-1", "subnet_id": "ocid1.subnet.oc1..x"}],
    }
    mig = {"strategy": "single", "profile": {"h100": "3g.40gb"}}
    limits: list[dict[str, int]] = []

    def program() -> None:
        labels = AcceleratorStack.required_labels(
            {
                "platform": "oke",
                "oke_addons": False,
                "pools": [pool("h100", "BM.GPU.H100.8")],
                "nvidia": {"mig": mig},
            }
        )
        h100 = SharedNodePool(
            "h100",
            {
                "cluster": oke,
                "shape": "BM.GPU.H100.8",
                "size": 1,
                "boot_volume_gb": 500,
                "labels": labels["h100"],
            },
        )
        stack = AcceleratorStack(
            "gpu",
            {
                "platform": "oke",
                "oke_addons": False,
                "pools": AcceleratorStack.served([h100]),
                "nvidia": {"mig": mig},
            },
        )
        limits.append(dict(stack.scheduling_for(h100).limits))
        Recipe(
            "r",
            {
                "image": "busybox",
                "node_shape": "BM.GPU.H100.8",
                "gpus": 16,
                "pools": [stack.shared_pool(h100)],
            },
        )
        PoolQuotas(
            "q",
            {
                "pools": [stack.governed_pool(h100)],
                "departments": [
                    {"name": "d", "projects": [{"name": "p", "quotas": {"h100": {"gpu": 16}}}]}
                ],
            },
        )

    capture = run(program)
    # The pool's own info asks for 1 GPU a pod (it is shared); with the stack, 2 slices.
    assert limits == [{"nvidia.com/gpu": 2}]
    (deployment,) = capture.by_type("kubernetes:apps/v1:Deployment")
    (container,) = deployment.inputs["spec"]["template"]["spec"]["containers"]
    # `single`: 8 GPUs x 2 slices of 3g.40gb, still called nvidia.com/gpu.
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "16"}
    (quotas,) = [r for r in capture.components() if r.type == "nodepools:index:PoolQuotas"]
    assert quotas.inputs["spec"]["pools"]["h100"]["capacity"]["gpu"] == 16
    (node_pool,) = capture.by_type("oci:ContainerEngine/nodePool:NodePool")
    labels = {kv["key"]: kv["value"] for kv in node_pool.inputs["initialNodeLabels"]}
    assert labels["nvidia.com/mig.config"] == "all-3g.40gb"


def test_the_rosa_plan_device_report_names_the_nfd_prerequisite(
    monkeypatch: pytest.MonkeyPatch,
):
    from nodepools.planning import plan_stack

    for name in ("RHCS_TOKEN", "OCM_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    stacks = Path(__file__).resolve().parents[2] / "stacks"
    result = plan_stack("rosa-gpu", stacks_dir=stacks)
    assert result.error is None and result.ok
    (section,) = [s for s in result.sections if s.title == "Device software"]
    assert section.lines[-1].startswith(
        "gpu-operator needs, installed beforehand: Red Hat's Node Feature Discovery Operator"
    )
    assert section.failures == 0  # a prerequisite is stated, not counted as a failure
