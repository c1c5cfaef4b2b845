"""`nodepools import karpenter`: every Karpenter example the project reproduces
(tests/upstream_karpenter, see tests/test_karpenter_upstream.py) imported, planned and
compared; what the import can't say is listed, one line per difference."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.offline import run

from tests.importers.roundtrip import by_key, manifests, plan_imported, run_import

UPSTREAM = Path(__file__).resolve().parents[1] / "upstream_karpenter"
EXAMPLES = sorted(path.name for path in UPSTREAM.glob("*.yaml"))
# The one example whose plan differs: its NodePool names `group: karpenter.k8s.aws/v1`, which
# the NodePool CRD refuses (tests/test_karpenter_upstream.py); ours writes the group.
DIFFERENT = {
    "windows-custom-userdata.yaml": [
        "NodePool/windows2022 spec.template.spec.nodeClassRef.group: upstream "
        '"karpenter.k8s.aws/v1", ours "karpenter.k8s.aws" (KarpenterNodePool names an '
        "EC2NodeClass of group 'karpenter.k8s.aws' only)"
    ]
}


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_upstream_example_round_trips(example: str, capsys, tmp_path: Path):
    status, stack_file, errors = run_import(capsys, "karpenter", str(UPSTREAM / example))
    assert status == 0, errors
    expected = by_key(_documents(UPSTREAM / example))
    rendered = manifests(plan_imported(stack_file, tmp_path), "karpenter.")
    assert sorted(rendered) == sorted(expected)
    if example in DIFFERENT:
        assert errors[:-1] == DIFFERENT[example]
        assert errors[-1].startswith("note: 1 difference between the karpenter objects given")
        return
    assert rendered == expected
    assert errors == [
        f"note: a plan of this configuration renders the {len(expected)} karpenter "
        f"object{'s' * (len(expected) != 1)} given exactly"
    ]


@pytest.mark.parametrize(
    "example", ["general-purpose.yaml", "multiple-ebs.yaml", "custom-family.yaml"]
)
def test_the_python_program_makes_the_same_objects(example: str, capsys, tmp_path: Path):
    _, stack_file, _ = run_import(capsys, "karpenter", str(UPSTREAM / example))
    status, program, _ = run_import(capsys, "karpenter", "--python", str(UPSTREAM / example))
    assert status == 0
    path = tmp_path / "program" / "__main__.py"
    path.parent.mkdir()
    path.write_text(program)
    from_program = manifests(run(path), "karpenter.")
    assert from_program == manifests(plan_imported(stack_file, tmp_path / "stack"), "karpenter.")


def _changed_example(tmp_path: Path, change: Any) -> str:
    documents = _documents(UPSTREAM / "spot.yaml")
    change(documents)
    path = tmp_path / "changed.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    return str(path)


def test_what_no_arg_says_is_listed_with_both_values_and_why(capsys, tmp_path: Path):
    def change(documents: list[dict[str, Any]]) -> None:
        pool = documents[0]
        pool["metadata"]["labels"] = {"team": "ml"}
        documents[1]["spec"]["associatePublicIPAddress"] = False

    status, stack_file, errors = run_import(capsys, "karpenter", _changed_example(tmp_path, change))
    assert status == 0 and "nodepools:pools" in stack_file
    assert errors[:-1] == [
        "EC2NodeClass/default spec.associatePublicIPAddress: upstream false, ours (none) "
        "(KarpenterNodePool has no `associatePublicIPAddress`)",
        'NodePool/spot metadata.labels.team: upstream "ml", ours (none) '
        "(KarpenterNodePool has no NodePool labels)",
    ]
    assert errors[-1].startswith("note: 2 differences between the karpenter objects given")


def test_node_template_annotations_round_trip(capsys, tmp_path: Path):
    def change(documents: list[dict[str, Any]]) -> None:
        template = documents[0]["spec"]["template"]
        template["metadata"] = {**template.get("metadata", {}), "annotations": {"a.io/owner": "ml"}}

    path = _changed_example(tmp_path, change)
    status, stack_file, errors = run_import(capsys, "karpenter", path)
    assert status == 0 and "node_annotations" in stack_file
    rendered = manifests(plan_imported(stack_file, tmp_path), "karpenter.")
    assert rendered == by_key(_documents(Path(path)))
    assert errors[-1].endswith("given exactly")


def test_a_pool_the_fleet_refuses_is_not_imported_and_says_why(capsys, tmp_path: Path):
    def change(documents: list[dict[str, Any]]) -> None:
        requirement = {"key": "kubernetes.io/hostname", "operator": "Exists"}
        documents[0]["spec"]["template"]["spec"]["requirements"].append(requirement)

    status, _, errors = run_import(capsys, "karpenter", _changed_example(tmp_path, change))
    assert status == 1
    why = (
        "(not importable: requirements[5].key: key 'kubernetes.io/hostname' is restricted by "
        "Karpenter (it sets the label itself, per node))"
    )
    assert errors[:2] == [
        f'EC2NodeClass/default: upstream "present", ours (none) {why}',
        f'NodePool/spot: upstream "present", ours (none) {why}',
    ]
    assert errors[-1] == "nodepools import: nothing imported: no object could be imported"


def test_the_output_is_the_same_on_every_run(capsys):
    names = ("multiple-arch.yaml", "windows-2019.yaml", "windows-2025.yaml")
    files = [str(UPSTREAM / name) for name in names]
    first = run_import(capsys, "karpenter", *files)
    assert first[0] == 0 and first == run_import(capsys, "karpenter", *files)


def test_a_nodepool_without_its_class_in_the_files_uses_it_by_name(capsys, tmp_path: Path):
    [pool, _] = _documents(UPSTREAM / "spot.yaml")
    path = tmp_path / "pool.yaml"
    path.write_text(yaml.safe_dump(copy.deepcopy(pool)))
    status, stack_file, errors = run_import(capsys, "karpenter", str(path))
    assert status == 0, errors
    assert "node_class_name: default" in stack_file
    assert errors == [
        "note: a plan of this configuration renders the 1 karpenter object given exactly"
    ]


def test_an_object_given_twice_is_one_line_and_status_2(capsys):
    files = [str(UPSTREAM / "spot.yaml"), str(UPSTREAM / "multiple-arch.yaml")]
    status, out, errors = run_import(capsys, "karpenter", *files)
    assert (status, out) == (2, "")
    assert errors == [
        f"nodepools import: {files[1]}: document 3: EC2NodeClass 'default' is given twice "
        f"(also {files[0]}: document 2); keep one"
    ]
