"""SchedulingInfo: rendering and merging into pod specs."""

from __future__ import annotations

import pytest
import yaml
from nodepools import SchedulingInfo, Taint
from nodepools.specs import lookup_accelerator

INFO = SchedulingInfo.for_pool(
    "p4d",
    [
        Taint(key="spot", value="true", effect="PreferNoSchedule"),
        Taint(key="nvidia.com/gpu", effect="NoSchedule"),
    ],
    lookup_accelerator("p4d.24xlarge"),
)


def test_to_dict_and_yaml():
    assert INFO.to_dict() == {
        "nodeSelector": {"nodepools.dev/pool": "p4d"},
        "tolerations": [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "spot", "operator": "Equal", "value": "true", "effect": "PreferNoSchedule"},
        ],
        "resources": {"limits": {"nvidia.com/gpu": 8}},
    }
    assert yaml.safe_load(INFO.to_yaml()) == INFO.to_dict()


def test_merge_sets_the_accelerator_on_the_named_container_only():
    pod = {"containers": [{"name": "log-shipper", "image": "y"}, {"name": "main", "image": "x"}]}
    merged = INFO.merge_into(pod, container="main")
    assert "resources" not in merged["containers"][0]
    assert merged["containers"][1]["resources"]["limits"] == {"nvidia.com/gpu": 8}
    assert pod == {
        "containers": [{"name": "log-shipper", "image": "y"}, {"name": "main", "image": "x"}]
    }
    # The only container needs no name.
    [only] = INFO.merge_into({"containers": [{"name": "main"}]})["containers"]
    assert only["resources"]["limits"] == {"nvidia.com/gpu": 8}


def test_merge_with_several_containers_and_no_name_lists_them():
    # The first container of a real pod is often a sidecar: never guess.
    pod = {"containers": [{"name": "istio-proxy"}, {"name": "trainer"}]}
    with pytest.raises(ValueError) as caught:
        INFO.merge_into(pod)
    message = str(caught.value)
    assert "2 containers ('istio-proxy', 'trainer')" in message
    assert "container=" in message


def test_merge_keeps_existing_tolerations_and_limits():
    pod = {
        "nodeSelector": {"zone": "a"},
        "tolerations": [
            {"key": "spot", "operator": "Equal", "value": "true", "effect": "PreferNoSchedule"}
        ],
        "containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": 2}}}],
    }
    merged = INFO.merge_into(pod)
    assert merged["nodeSelector"] == {"nodepools.dev/pool": "p4d", "zone": "a"}
    assert len(merged["tolerations"]) == 2
    assert merged["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 2}


def test_merge_refuses_conflicts_and_unknown_containers():
    with pytest.raises(ValueError, match=r"nodeSelector\.nodepools\.dev/pool"):
        INFO.merge_into({"nodeSelector": {"nodepools.dev/pool": "other"}, "containers": []})
    with pytest.raises(ValueError, match="`container` 'x' is not in the pod spec"):
        INFO.merge_into({"containers": [{"name": "main"}]}, container="x")


def test_merge_follows_an_existing_request_and_tolerates_null_resources():
    pod = {"containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": 2}}}]}
    merged = INFO.merge_into(pod)
    assert merged["containers"][0]["resources"] == {
        "requests": {"nvidia.com/gpu": 2},
        "limits": {"nvidia.com/gpu": 2},
    }
    merged = INFO.merge_into({"containers": [{"name": "main", "resources": None}]})
    assert merged["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": 8}}
    with pytest.raises(ValueError, match="no container"):
        INFO.merge_into({"containers": []})
