"""The comparison every importer's report rests on: each field that differs is found, with
its path and both values; numbers and quantities compare as the API server reads them."""

from __future__ import annotations

from nodepools.importers.differences import compare, difference_line, field_differences
from nodepools.importers.model import Imported

POOL = {
    "kind": "NodePool",
    "metadata": {"name": "p", "labels": {"team": "ml"}},
    "spec": {
        "limits": {"cpu": 16, "memory": "64Gi"},
        "template": {
            "spec": {
                "requirements": [
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                ]
            }
        },
    },
}


def test_a_changed_leaf_is_found_at_its_path():
    ours = {**POOL, "metadata": {"name": "p", "labels": {"team": "ops"}}}
    assert field_differences(POOL, ours) == [(("metadata", "labels", "team"), "ml", "ops")]


def test_numbers_as_the_plan_captures_them_are_the_same_numbers():
    ours = {**POOL, "spec": {**POOL["spec"], "limits": {"cpu": 16.0, "memory": "64Gi"}}}
    assert field_differences(POOL, ours) == []
    ours["spec"]["limits"] = {"cpu": "16", "memory": "64Gi"}
    assert field_differences(POOL, ours) == [(("spec", "limits", "cpu"), 16, "16")]
    assert field_differences(POOL, ours, quantities=True) == []
    assert field_differences({"enabled": True}, {"enabled": 1}) == [(("enabled",), True, 1)]


def test_lists_of_other_lengths_name_the_items_only_one_side_has():
    extra = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}
    requirements = POOL["spec"]["template"]["spec"]["requirements"]
    ours = {"requirements": [extra, *requirements]}
    assert field_differences({"requirements": requirements}, ours) == [
        (("requirements", 0), None, extra)
    ]


def test_empty_and_absent_are_alike_and_an_absent_mapping_is_compared_key_by_key():
    assert field_differences({"taints": []}, {}) == []
    assert field_differences({}, {"labels": {"a": "1", "b": "2"}}) == [
        (("labels", "a"), None, "1"),
        (("labels", "b"), None, "2"),
    ]


def test_compare_lists_missing_and_added_objects_with_the_recorded_reasons():
    imported = Imported("karpenter", {}, {"NodePool/p": POOL}, default_why="default reason")
    imported.explain("NodePool/p metadata.labels", "no NodePool labels")
    imported.explain("Tag", "autoscaler tags")
    ours = {**POOL, "metadata": {"name": "p"}}
    lines = [
        difference_line(d)
        for d in compare(imported, {"NodePool/p": ours, "Tag/p-asg": {}, "Other/x": {}})
    ]
    assert lines == [
        'NodePool/p metadata.labels.team: upstream "ml", ours (none) (no NodePool labels)',
        'Other/x: upstream (none), ours "present" (default reason)',
        'Tag/p-asg: upstream (none), ours "present" (autoscaler tags)',
    ]
    assert [difference_line(d) for d in compare(imported, {})] == [
        'NodePool/p: upstream "present", ours (none) (default reason)'
    ]
