"""Audit fixes (issue 14): EKS release versions of every AMI family, EBS performance bounds,
and `node_config.kubelet` checked against the real KubeletConfiguration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from nodepools import MachinePool, SharedNodePool
from nodepools.specs.core.base import SpecError
from nodepools.specs.pools.kubelet_config import kubelet_config_fields

from tests.conftest import EKS, OKE

REPO = Path(__file__).resolve().parents[2]


def issues(args: dict[str, Any], cluster: dict[str, Any] = EKS) -> dict[str, str]:
    try:
        MachinePool.preflight(
            "pool", {"cluster": cluster, "instance_type": "g5.xlarge", "replicas": 1, **args}
        )
    except SpecError as error:
        return {issue.path: issue.message for issue in error.issues}
    return {}


# -- release_version ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ami_type", "release"),
    [
        (None, "1.33.0-20250704"),
        ("AL2_x86_64_GPU", "1.29.15-20250403"),
        ("BOTTLEROCKET_x86_64_NVIDIA", "1.26.2-5d2b4b5e"),
        ("BOTTLEROCKET_x86_64", "1.47.0-6154605b"),
        ("BOTTLEROCKET_x86_64", "1.20.0-20250101"),  # a commit of digits only
    ],
)
def test_release_versions_of_each_family_are_taken(ami_type: str | None, release: str):
    cluster = {**EKS, "ami_type": ami_type} if ami_type else EKS
    assert issues({"release_version": release}, cluster) == {}


@pytest.mark.parametrize(
    ("ami_type", "release", "fragment"),
    [
        (None, "1.26.2-5d2b4b5e", "Bottlerocket release"),
        ("AL2023_x86_64_NVIDIA", "1.26.2-5d2b4b5e", "AL2023_x86_64_NVIDIA"),
        ("BOTTLEROCKET_x86_64", "1.26.2-5D2B4B5E", "should match pattern"),
        (None, "1.33.0", "should match pattern"),
        (None, "v1.33.0-20250704", "should match pattern"),
    ],
)
def test_release_versions_of_another_family_or_shape_are_refused(ami_type, release, fragment):
    cluster = {**EKS, "ami_type": ami_type} if ami_type else EKS
    found = issues({"release_version": release}, cluster)
    assert fragment in found["release_version"], found


# -- EBS performance ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "volume",
    [
        {"size_gb": 20, "iops": 3000, "throughput": 125},
        {"size_gb": 160, "iops": 80000, "throughput": 2000},
        {"size_gb": 100, "throughput": 750},  # 0.25 of the 3,000 baseline
        {"type": "io1", "size_gb": 100, "iops": 5000},
        {"type": "io2", "size_gb": 256, "iops": 256000},
        {"iops": 16000},  # no size: the per-GiB rule waits for one
    ],
)
def test_ebs_performance_within_aws_limits(volume: dict[str, Any]):
    assert issues({"boot_volume": volume}) == {}


@pytest.mark.parametrize(
    ("volume", "path", "fragment"),
    [
        ({"iops": 2999}, "boot_volume.iops", "3000..80000"),
        ({"iops": 80001}, "boot_volume.iops", "3000..80000"),
        ({"size_gb": 20, "iops": 12000}, "boot_volume.iops", "500 IOPS per GiB"),
        ({"throughput": 124}, "boot_volume.throughput", "125..2000"),
        ({"throughput": 2001, "iops": 9000}, "boot_volume.throughput", "125..2000"),
        ({"throughput": 1000}, "boot_volume.throughput", "3000 IOPS allow (750)"),
        ({"type": "io1", "iops": 64001}, "boot_volume.iops", "100..64000"),
        ({"type": "io1", "size_gb": 10, "iops": 501}, "boot_volume.iops", "50 IOPS per GiB"),
        ({"type": "io2", "iops": 99}, "boot_volume.iops", "100..256000"),
        ({"type": "io2", "size_gb": 10, "iops": 10001}, "boot_volume.iops", "1000 IOPS per GiB"),
    ],
)
def test_ebs_performance_outside_aws_limits_is_refused(volume, path, fragment):
    found = issues({"boot_volume": volume})
    assert fragment in found.get(path, ""), found


def test_both_iops_and_throughput_problems_are_reported_at_once():
    found = issues({"boot_volume": {"size_gb": 10, "iops": 9000, "throughput": 5000}})
    assert set(found) == {"boot_volume.iops", "boot_volume.throughput"}


# -- kubelet --------------------------------------------------------------------------------


def test_kubelet_settings_of_every_kind_pass():
    kubelet = {
        "cpuManagerPolicy": "static",
        "podsPerCore": 10,
        "serializeImagePulls": False,
        "memoryThrottlingFactor": 0.9,
        "imageMinimumGCAge": "2m0s",
        "shutdownGracePeriod": "1h30m",
        "evictionHard": {"memory.available": "5%"},
        "featureGates": {"KubeletTracing": True},
        "clusterDNS": ["10.100.0.10"],
        "logging": {"format": "json"},
    }
    assert issues({"node_config": {"kubelet": kubelet}}) == {}


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("registryPullQps", 10, "did you mean 'registryPullQPS'"),
        ("max_pods", 10, "camelCase"),
        ("notAField", 1, "not a KubeletConfiguration field"),
        ("podsPerCore", "10", "a whole number"),
        ("podsPerCore", True, "a whole number"),
        ("serializeImagePulls", "false", "true or false"),
        ("imageMinimumGCAge", "2 minutes", "a duration"),
        ("imageMinimumGCAge", 120, "a duration"),
        ("evictionHard", {"memory.available": 5}, "a map of strings to strings"),
        ("featureGates", {"KubeletTracing": "true"}, "true/false"),
        ("clusterDNS", "10.100.0.10", "a list"),
        ("logging", "json", "an object"),
        ("registerWithTaints", [], "`taints`"),
        ("maxPods", 10, "max_pods"),
        ("kind", "KubeletConfiguration", "written by the pool"),
    ],
)
def test_kubelet_settings_are_checked_by_name_and_kind(key: str, value: Any, fragment: str):
    found = issues({"node_config": {"kubelet": {key: value}}})
    assert fragment in found.get(f"node_config.kubelet.{key}", ""), found


def test_the_kubelet_field_list_is_the_vendored_module_s():
    document = json.loads(
        (REPO / "components/specs/pools/data/kubelet_config_fields.json").read_text()
    )
    assert document["module"] == "k8s.io/kubelet" and document["version"] == "v0.37.2"
    fields = kubelet_config_fields()
    assert fields == document["fields"] and len(fields) > 100
    assert fields["maxPods"] == "int" and fields["syncFrequency"] == "duration"
    assert fields["resolvConf"] == "string"  # the JSON name, not the Go field's


def test_the_regeneration_script_reads_json_names_and_kinds(tmp_path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "kubelet_config_fields", REPO / "scripts/kubelet_config_fields.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    types_go = (
        "type Mode string\n\n"
        "type KubeletConfiguration struct {\n"
        '\tmetav1.TypeMeta `json:",inline"`\n'
        '\t// a comment with `json:"notThis"`\n'
        '\tEnableServer *bool `json:"enableServer,omitempty"`\n'
        '\tSyncFrequency metav1.Duration `json:"syncFrequency,omitempty"`\n'
        '\tPodPidsLimit *int64 `json:"podPidsLimit,omitempty"`\n'
        '\tHairpin Mode `json:"hairpinMode,omitempty"`\n'
        '\tGates map[string]bool `json:"featureGates,omitempty"`\n'
        '\tDNS []string `json:"clusterDNS,omitempty"`\n'
        '\tAuthn KubeletAuthentication `json:"authentication"`\n'
        "}\n"
    )
    assert script.fields(types_go) == {
        "authentication": "object",
        "clusterDNS": "list",
        "enableServer": "bool",
        "featureGates": "bool-map",
        "hairpinMode": "string",
        "podPidsLimit": "int",
        "syncFrequency": "duration",
    }


def test_a_shared_pool_runs_the_same_checks():
    with pytest.raises(SpecError) as raised:
        SharedNodePool.preflight(
            "h100",
            {
                "cluster": EKS,
                "shape": "p5.48xlarge",
                "size": 1,
                "node_config": {"kubelet": {"podsPerCore": "ten"}},
                "boot_volume": {"iops": 1},
                "release_version": "1.26.2-5d2b4b5e",
                "instance_types": ["p5.48xlarge"],
            },
        )
    assert set(raised.value.paths()) == {
        "node_config.kubelet.podsPerCore",
        "boot_volume.iops",
        "release_version",
        "instance_types",
    }


def test_a_shared_pool_field_by_field():
    def found(args: dict[str, Any], cluster: dict[str, Any] = EKS) -> dict[str, str]:
        try:
            SharedNodePool.preflight(
                "h100", {"cluster": cluster, "shape": "p5.48xlarge", "size": 1, **args}
            )
        except SpecError as error:
            return {issue.path: issue.message for issue in error.issues}
        return {}

    assert (
        "a whole number"
        in found({"node_config": {"kubelet": {"podsPerCore": "ten"}}})[
            "node_config.kubelet.podsPerCore"
        ]
    )
    assert "3000..80000" in found({"boot_volume": {"iops": 1}})["boot_volume.iops"]
    assert "Bottlerocket" in found({"release_version": "1.26.2-5d2b4b5e"})["release_version"]
    oke = {"shape": "BM.GPU.MI300X.8", "boot_volume_gb": 500}
    assert "OKE" in found({**oke, "auto_repair": True}, OKE)["auto_repair"]
    assert (
        "EKS only" in found({**oke, "release_version": "1.33.0-20250704"}, OKE)["release_version"]
    )
    assert found({**oke, "boot_volume": {"kms_key_id": "ocid1.key.oc1..k"}}, OKE) == {}
