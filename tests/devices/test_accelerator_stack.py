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
from nodepools.specs.accelerator_releases import plan_releases
from nodepools.specs.accelerator_stack import MIG_PROFILES, AcceleratorStackArgs
from nodepools.specs.device_placement import advertised
from nodepools.specs.accelerators import lookup_accelerator
from nodepools.specs.base import parse_spec

RELEASE = "kubernetes:helm.sh/v3:Release"
KEYS = json.loads(
    (Path(nodepools.__file__).parent / "specs/data/chart_values_keys.json").read_text()
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


def test_operator_on_rosa_installs_driver_and_tolerates_every_taint():
    extra = {"key": "team", "value": "ml", "effect": "NoExecute"}
    s = spec(platform="rosa", pools=[pool("gpu", "p5.48xlarge", GPU_TAINT, extra)])
    (plan,) = plan_releases("acc", s)
    assert (plan.repository, plan.chart, plan.version) == (
        "https://helm.ngc.nvidia.com/nvidia",
        "gpu-operator",
        "v26.7.0",
    )
    assert plan.values["driver"] == {"enabled": True}
    assert plan.values["daemonsets"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
    ]


def test_driver_default_off_on_eks_and_oke():
    for platform in ("eks", "oke"):
        (plan,) = plan_releases("acc", spec(platform=platform))
        assert plan.values["driver"] == {"enabled": False}, platform


def test_device_plugin_mode_selects_only_accelerator_pools():
    (plan,) = plan_releases("acc", spec(nvidia={"mode": "device-plugin"}))
    assert plan.chart == "nvidia-device-plugin"
    assert plan.repository == "https://nvidia.github.io/k8s-device-plugin"
    terms = plan.values["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["gpu"]


def test_amd_and_neuron_pools_get_their_charts_with_tolerations():
    amd_taint = {"key": "amd.com/gpu", "value": "true", "effect": "NoSchedule"}
    trn_taint = {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}
    s = spec(
        platform="generic",
        pools=[pool("mi", "BM.GPU.MI300X.8", amd_taint), pool("trn", "trn1.32xlarge", trn_taint)],
    )
    amd, neuron = plan_releases("acc", s)
    assert (amd.chart, amd.version) == ("amd-gpu", "0.21.0")
    assert amd.values["tolerations"][0]["key"] == "amd.com/gpu"
    assert amd.values["node_selector"] == {"nodepools.dev/pool": "mi"}
    assert neuron.repository == "oci://public.ecr.aws/neuron"
    assert neuron.values["devicePlugin"]["tolerations"][0]["key"] == "aws.amazon.com/neuron"


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
            "MIG and time slicing",
        ),
        ({"amd": {}}, "amd", "no served pool has amd accelerators"),
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
