"""Every chart AcceleratorStack installs from a mirror (an HTTP(S) Helm repository or an
`oci://` registry) or from disk, with values a user adds, checked against the pinned chart
before anything is registered (issue 31 item 2 and its bad input)."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.devices.accelerator_stack import AcceleratorStack
from nodepools.offline import ProgramError, run
from nodepools.specs import SpecError
from nodepools.specs.catalog.accelerators import lookup_accelerator
from nodepools.specs.devices.chart_values import schema_problem

RELEASE = "kubernetes:helm.sh/v3:Release"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
POOLS = {
    "nvidia": {
        "name": "gpu",
        "accelerator": lookup_accelerator("p5.48xlarge"),
        "taints": [GPU_TAINT],
    },
    "amd": {"name": "mi300x", "accelerator": lookup_accelerator("BM.GPU.MI300X.8")},
    "neuron": {"name": "trn1", "accelerator": lookup_accelerator("trn1.32xlarge")},
    "efa": {"name": "efa", "accelerator": lookup_accelerator("p5.48xlarge"), "efa": True},
}


def _release(option: str, settings: dict[str, Any]) -> dict[str, Any]:
    args = {"platform": "eks", "pools": [POOLS[option]], option: settings}
    releases = run(lambda: AcceleratorStack("acc", args)).by_type(RELEASE)
    vendor_release = {"nvidia": "nvidia", "amd": "amd", "neuron": "neuron", "efa": "efa"}[option]
    [found] = [r for r in releases if r.name == f"acc-{vendor_release}"]
    return found.inputs


@pytest.mark.parametrize("option", sorted(POOLS))
def test_an_http_mirror_replaces_the_repository(option: str):
    inputs = _release(option, {"repository": "https://charts.example.com/mirror"})
    assert inputs["repositoryOpts"] == {"repo": "https://charts.example.com/mirror"}
    assert "/" not in inputs["chart"] and inputs["version"]


@pytest.mark.parametrize("option", sorted(POOLS))
def test_an_oci_mirror_names_the_chart_by_its_reference(option: str):
    inputs = _release(option, {"repository": "oci://registry.example.com/charts"})
    assert inputs["chart"].startswith("oci://registry.example.com/charts/")
    assert "repositoryOpts" not in inputs and inputs["version"]


@pytest.mark.parametrize("option", sorted(POOLS))
def test_a_chart_on_disk_is_installed_by_its_path(option: str):
    inputs = _release(option, {"chart_path": "charts/mirrored"})
    assert inputs["chart"] == "charts/mirrored"
    assert "repositoryOpts" not in inputs and "version" not in inputs


def test_the_public_repositories_stay_the_default():
    inputs = _release("nvidia", {})
    assert inputs["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    assert _release("neuron", {})["chart"] == "oci://public.ecr.aws/neuron/neuron-helm-chart"


def test_values_a_user_adds_reach_the_release_beside_the_stacks():
    values = {
        "operator": {"repository": "registry.example.com/nvidia"},
        "daemonsets": {"priorityClassName": "x"},
    }
    inputs = _release("nvidia", {"values": values})
    assert inputs["values"]["operator"] == {"repository": "registry.example.com/nvidia"}
    assert inputs["values"]["daemonsets"]["priorityClassName"] == "x"
    assert inputs["values"]["daemonsets"]["tolerations"]  # the stack's, kept


def test_keys_under_a_map_that_takes_any_key_are_accepted():
    inputs = _release("nvidia", {"values": {"daemonsets": {"labels": {"team": "ml"}}}})
    assert inputs["values"]["daemonsets"]["labels"] == {"team": "ml"}


def test_a_subcharts_condition_is_a_value_though_values_yaml_lacks_it():
    inputs = _release("nvidia", {"mode": "device-plugin", "values": {"nfd": {"enabled": True}}})
    assert inputs["values"]["nfd"] == {"enabled": True}


@pytest.mark.parametrize(
    ("settings", "path", "fragments"),
    [
        (
            {"nvidia": {"values": {"operator": {"repositry": "r"}}}},
            "nvidia.values.operator.repositry",
            ["'operator.repositry' is not a value of chart gpu-operator v26.7.0", "`repository`"],
        ),
        (
            {"nvidia": {"values": {"node-feature-discovery": {"worker": {"port": 70000}}}}},
            "nvidia.values.node-feature-discovery.worker.port",
            ["70000 is above its maximum 65535", "schema of chart gpu-operator v26.7.0"],
        ),
        (
            {
                "nvidia": {
                    "values": {"node-feature-discovery": {"image": {"pullPolicy": "Sometimes"}}}
                }
            },
            "nvidia.values.node-feature-discovery.image.pullPolicy",
            ["'Sometimes' is not one of ['Always', 'IfNotPresent', 'Never']", "v26.7.0"],
        ),
        (
            {"nvidia": {"values": {"node-feature-discovery": {"master": {"replicaCount": "two"}}}}},
            "nvidia.values.node-feature-discovery.master.replicaCount",
            ["'two' is not of type integer", "chart gpu-operator v26.7.0"],
        ),
        (
            {"nvidia": {"values": {"daemonsets": {"tolerations": []}}}},
            "nvidia.values.daemonsets.tolerations",
            ["is set by AcceleratorStack itself", "chart gpu-operator v26.7.0"],
        ),
        (
            {
                "nvidia": {
                    "mode": "device-plugin",
                    "values": {"nfd": {"worker": {"hostNetwork": "yes"}}},
                }
            },
            "nvidia.values.nfd.worker.hostNetwork",
            ["'yes' is not of type boolean", "chart nvidia-device-plugin 0.20.0"],
        ),
        (
            {"nvidia": {"repository": "ftp://charts.example.com"}},
            "nvidia.repository",
            ["'ftp://charts.example.com' is not a chart repository", "oci://"],
        ),
        ({"nvidia": {"repository": "https://"}}, "nvidia.repository", ["'https://' names no host"]),
        (
            {"nvidia": {"repository": "oci://r.example.com/charts/"}},
            "nvidia.repository",
            ["ends with '/'"],
        ),
        (
            {"nvidia": {"repository": "https://c.example.com", "chart_path": "charts/gpu"}},
            "nvidia.chart_path",
            ["only one of `repository` or `chart_path` can be provided", "'charts/gpu'"],
        ),
        (
            {"nvidia": {"chart_path": "https://c.example.com/gpu"}},
            "nvidia.chart_path",
            ["is not a path on disk"],
        ),
        (
            {"nvidia": {"values": {"operator": {"x": {1, 2}}}}},
            "nvidia.values.operator.x",
            ["is not a JSON value"],
        ),
    ],
)
def test_bad_chart_options_are_refused_with_their_path_before_anything_is_registered(
    settings: dict[str, Any], path: str, fragments: list[str]
):
    args = {"platform": "eks", "pools": [POOLS["nvidia"]], **settings}
    with pytest.raises(ProgramError) as err:
        run(lambda: AcceleratorStack("acc", args))
    assert isinstance(err.value.cause, SpecError)
    assert path in err.value.cause.paths(), str(err.value.cause)
    for fragment in fragments:
        assert fragment in str(err.value.cause)
    assert err.value.capture.resources == []


def test_every_problem_is_reported_at_once():
    values = {"operator": {"nope": 1}, "node-feature-discovery": {"worker": {"port": 0}}}
    args = {"platform": "eks", "pools": [POOLS["nvidia"]], "nvidia": {"values": values}}
    with pytest.raises(ProgramError) as err:
        run(lambda: AcceleratorStack("acc", args))
    assert isinstance(err.value.cause, SpecError)
    assert set(err.value.cause.paths()) == {
        "nvidia.values.operator.nope",
        "nvidia.values.node-feature-discovery.worker.port",
    }


def test_another_chart_version_leaves_its_keys_to_helm():
    inputs = _release("nvidia", {"version": "v26.3.0", "values": {"newKey": {"a": 1}}})
    assert inputs["values"]["newKey"] == {"a": 1} and inputs["version"] == "v26.3.0"


def test_oke_add_ons_take_no_chart_options():
    args = {
        "platform": "oke",
        "oke_cluster_id": "ocid1.cluster.oc1..example",
        "pools": [POOLS["amd"]],
        "amd": {"repository": "https://c.example.com"},
    }
    with pytest.raises(ProgramError) as err:
        run(lambda: AcceleratorStack("acc", args))
    assert isinstance(err.value.cause, SpecError)
    assert err.value.cause.paths() == ["amd.repository"]
    assert "OKE's GPU plugin add-on" in str(err.value.cause)


@pytest.mark.parametrize(
    ("value", "fact", "refused"),
    [
        (True, {"type": ["integer"]}, True),
        (3, {"type": ["number"]}, False),
        (None, {"type": ["string", "null"]}, False),
        (0, {"minimum": 1}, True),
        ("x", {"minimum": 1}, False),
    ],
)
def test_schema_facts_read_as_json_schema_reads_them(
    value: Any, fact: dict[str, Any], refused: bool
):
    assert (schema_problem(value, fact) is not None) is refused
