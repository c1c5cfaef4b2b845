"""Pod templates are checked against the Kubernetes core/v1 schema, with paths (issue 12)."""

from __future__ import annotations

import pytest
from nodepools import PoolPlatforms, SpecError
from nodepools.offline import ProgramError, run
from nodepools.specs.governance.pod_spec_schema import pod_spec_issues, pod_template_issues

USER = {"containers": [{"name": "user", "image": "nvcr.io/nvidia/pytorch:24.08-py3"}]}


def problems(platform_template: dict, common: dict | None = None) -> list[tuple[str, str]]:
    args = {
        "pool": "p",
        "common_pod_template": USER if common is None else common,
        "platforms": {"a": {"pod_template": platform_template}},
    }
    with pytest.raises(ProgramError) as info:
        run(lambda: PoolPlatforms("x", args))
    assert info.value.capture.resources == []
    error = info.value.cause
    assert isinstance(error, SpecError), repr(error)
    return [(issue.path, issue.message) for issue in error.issues]


@pytest.mark.parametrize(
    ("template", "path", "words"),
    [
        ({"resources": "big"}, "platforms.a.pod_template.resources", "type object"),
        ({"volumes": 5}, "platforms.a.pod_template.volumes", "type array"),
        ({"containers": "not-a-list"}, "platforms.a.pod_template.containers", "type array"),
        ({"containers": [None]}, "platforms.a.pod_template.containers[0]", "must be a mapping"),
        ({"nodeSelector": "gpu"}, "platforms.a.pod_template.nodeSelector", "type object"),
        (
            {"containers": [{"name": "user", "resources": "big"}]},
            "platforms.a.pod_template.containers[0].resources",
            "type object",
        ),
        (
            {"tolerations": [{"key": 1}]},
            "platforms.a.pod_template.tolerations[0].key",
            "type string",
        ),
        ({"containers": [{"image": "x"}]}, "platforms.a.pod_template.containers[0]", "`name`"),
        ({"nodeSelectr": {"a": "b"}}, "platforms.a.pod_template", "nodeSelectr"),
    ],
)
def test_malformed_templates_are_errors_with_paths(template, path, words):
    found = problems(template)
    assert [p for p, _ in found] == [path], found
    assert words in found[0][1]


def test_common_template_is_checked_too():
    found = problems({}, common={"containers": [{"name": "user", "image": 5}]})
    assert found == [("common_pod_template.containers[0].image", "must be of type string (got 5)")]


def test_partial_specs_need_no_containers_or_images():
    assert pod_spec_issues({"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L40S"}}, "") == []
    osmo_ctrl = {
        "containers": [
            {"name": "osmo-ctrl", "resources": {"limits": {"cpu": "{{USER_CPU}}"}}},
        ]
    }
    assert pod_spec_issues(osmo_ctrl, "") == []


def test_a_name_listed_twice_is_an_error():
    spec = {"containers": [{"name": "a"}, {"name": "a"}]}
    assert pod_spec_issues(spec, "t") == [pod_spec_issues(spec, "t")[0]]
    assert pod_spec_issues(spec, "t")[0].path == "t.containers"


def test_osmo_templates_allow_spec_and_metadata_only():
    issues = pod_template_issues({"spec": {}, "metadata": {"labels": {"a": "b"}}, "kind": "x"}, "t")
    assert [i.path for i in issues] == ["t.kind"]
    assert [i.path for i in pod_template_issues("x", "t")] == ["t"]
    assert [i.path for i in pod_template_issues({"metadata": {"labels": 3}}, "t")] == [
        "t.metadata.labels"
    ]


def test_resource_amounts_must_be_quantities():
    spec = {
        "containers": [
            {
                "name": "user",
                "resources": {
                    "requests": {"cpu": "lots", "memory": "1Gi", "nvidia.com/gpu": "{{USER_GPU}}"},
                    "limits": {"cpu": -1, "memory": 1073741824},
                },
            }
        ]
    }
    assert [(i.path, i.message) for i in pod_spec_issues(spec, "t")] == [
        ("t.containers[0].resources.requests.cpu", "'lots' is not a quantity"),
        ("t.containers[0].resources.limits.cpu", "-1 must not be negative"),
    ]
