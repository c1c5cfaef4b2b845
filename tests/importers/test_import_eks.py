"""`nodepools import eks`: EKS managed node groups as `aws eks describe-nodegroup` prints them
(eks_nodegroups/: fixtures modelled on terraform-aws-eks node groups: a GPU group on
AL2023_x86_64_NVIDIA, a spot mix, ARM groups with labels and taints, a group with its own
launch template), imported, planned and compared with the NodeGroup the plan registers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from nodepools.importers.eks import OUTPUT_ONLY, expected_inputs

from tests.importers.roundtrip import plain, plan_imported, run_import

FIXTURES = Path(__file__).parent / "eks_nodegroups"
# Every difference of each fixture, by where: what ours does by design (no Kubernetes version
# per pool, the desired size left to the autoscaler, the autoscaler's node-template tags on
# the Auto Scaling group) and what describe-nodegroup can't tell (a launch template's
# contents); a group without labels of its own is selected by the identity label and tag.
EXPECTED = {
    "nvidia-gpu.json": [
        "NodeGroup/nvidia-gpu version",
        "Tag/nvidia-gpu-asg-tag-label-workload",
        "Tag/nvidia-gpu-asg-tag-resources-nvidia.com-gpu",
        "Tag/nvidia-gpu-asg-tag-taint-nvidia.com-gpu",
    ],
    "spot.json": ["NodeGroup/spot version", "Tag/spot-asg-tag-label-WorkerType"],
    "labels-taints.json": [
        "NodeGroup/discovery scalingConfig.desiredSize",
        "NodeGroup/discovery version",
        "NodeGroup/money version",
        "Tag/discovery-asg-tag-label-pool",
        "Tag/money-asg-tag-label-pool",
        "Tag/money-asg-tag-taint-pool",
    ],
    "launch-template.json": [
        'NodeGroup/example labels["nodepools.dev/pool"]',
        *(f"NodeGroup/example launchTemplate.{f}" for f in ("id", "name", "version")),
        'NodeGroup/example tags["nodepools.dev/pool"]',
        "NodeGroup/example version",
        "Tag/example-asg-tag-label-nodepools.dev-pool",
    ],
}


def _groups(name: str) -> list[dict[str, Any]]:
    data = json.loads((FIXTURES / name).read_text())
    return data["nodegroups"] if "nodegroups" in data else [data["nodegroup"]]


@pytest.mark.parametrize("fixture", sorted(EXPECTED))
def test_each_node_group_round_trips_but_for_the_listed_differences(
    fixture: str, capsys, tmp_path: Path
):
    status, stack_file, errors = run_import(
        capsys, "eks", "--cluster", "ml", str(FIXTURES / fixture)
    )
    assert status == 0, errors
    assert [line.split(": upstream ")[0] for line in errors[:-1]] == EXPECTED[fixture]
    assert all(line.rstrip(")").split(" (")[-1] for line in errors[:-1])  # each says why
    capture = plan_imported(stack_file, tmp_path)
    for group in _groups(fixture):
        name = group["nodegroupName"]
        rendered = plain(capture.get("aws:eks/nodeGroup:NodeGroup", f"{name}-node-group").inputs)
        listed = {
            w.split(" ", 1)[1] for w in EXPECTED[fixture] if w.startswith(f"NodeGroup/{name} ")
        }
        for field, value in expected_inputs(group).items():
            if not any(w == field or w.startswith((f"{field}.", f"{field}[")) for w in listed):
                assert rendered.get(field) == value, (name, field)
            elif field in ("labels", "tags"):
                ours = {k: v for k, v in rendered[field].items() if k in value}
                assert ours == value, (name, field)


def test_what_the_live_group_reports_is_not_compared():
    [group] = _groups("nvidia-gpu.json")
    assert set(OUTPUT_ONLY) & set(group) == {
        "nodegroupArn",
        "status",
        "createdAt",
        "modifiedAt",
        "health",
        "resources",
    }
    assert not set(OUTPUT_ONLY) & set(expected_inputs(group))


def test_groups_of_other_roles_or_ami_types_get_a_cluster_entry_each(capsys):
    files = [
        str(FIXTURES / name) for name in ("nvidia-gpu.json", "spot.json", "labels-taints.json")
    ]
    status, stack_file, _ = run_import(capsys, "eks", "--cluster", "ml", *files)
    assert status == 0
    import yaml

    config = yaml.safe_load(stack_file)["config"]
    clusters = config["nodepools:clusters"]
    assert {name: c["ami_type"] for name, c in clusters.items()} == {
        "ml": "AL2023_ARM_64_STANDARD",
        "ml-2": "AL2023_x86_64_NVIDIA",
        "ml-3": "AL2023_x86_64_STANDARD",
    }
    pools = {p["name"]: p["cluster"] for p in config["nodepools:pools"]}
    assert pools == {"discovery": "ml", "money": "ml", "nvidia-gpu": "ml-2", "spot": "ml-3"}


def test_stdin_and_a_list_of_results_are_read(capsys, monkeypatch):
    import io

    results = [{"nodegroup": g} for g in _groups("labels-taints.json")]
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(results)))
    status, stack_file, _ = run_import(capsys, "eks", "--cluster", "ml", "-")
    assert status == 0 and "name: discovery" in stack_file and "name: money" in stack_file


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "{not json",
            "{path}:1: not valid JSON: Expecting property name enclosed in double quotes",
        ),
        ('{"cluster": {}}', "{path}: not a describe-nodegroup result"),
        (
            '{"nodegroup": {"nodegroupName": "a", "clusterName": "other", "instanceTypes": ["m5.large"]}}',
            "{path}: node group 'a' is of cluster 'other', not --cluster 'ml'",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(content: str, message: str, capsys, tmp_path: Path):
    path = tmp_path / "groups.json"
    path.write_text(content)
    status, out, errors = run_import(capsys, "eks", "--cluster", "ml", str(path))
    assert (status, out, len(errors)) == (2, "", 1)
    assert errors[0].startswith("nodepools import: " + message.format(path=path))


def test_a_group_whose_types_are_in_its_launch_template_is_not_imported(capsys, tmp_path: Path):
    [group] = _groups("launch-template.json")
    del group["instanceTypes"]
    path = tmp_path / "group.json"
    path.write_text(json.dumps({"nodegroup": group}))
    status, _, errors = run_import(capsys, "eks", "--cluster", "ml", str(path))
    assert status == 1
    assert errors[0] == (
        'NodeGroup/example: upstream "present", ours (none) (its instance types are in its '
        "launch template, which describe-nodegroup does not hold: give the pool `instance_type`)"
    )
