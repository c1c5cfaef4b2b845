"""`nodepools import kueue`: Kueue's own examples (tests/governance/upstream_kueue, as
tests/governance/test_kueue_queues.py reproduces them) imported, planned and compared; the
organisation our own org-quotas stack renders round-trips through PoolQuotas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.planning import plan_stack

from tests.importers.roundtrip import ROOT, by_key, manifests, plain, plan_imported, run_import

UPSTREAM = ROOT / "tests" / "governance" / "upstream_kueue"
EXAMPLES = sorted(path.name for path in UPSTREAM.glob("*.yaml"))
# Kueue's webhook refuses minimal-cq.yaml as written (test_kueue_queues.py): not importable.
REFUSED = "minimal-cq.yaml"
# What the importer's PoolQuotas mapping (`--as pool-quotas`, PoolQuotas's default model; its
# newer options are not read back yet) makes of each example: the number of differences, or why
# nothing is imported (its first line).
POOL_QUOTAS: dict[str, int | str] = {
    "admission-fair-sharing-setup.yaml": 12,
    "manager-setup.yaml": 16,
    "minimal-cq.yaml": "pools: list should have at least 1 item",
    "multikueue-setup.yaml": 13,
    "provisioning-setup.yaml": 10,
    "resource-flavor-empty.yaml": 1,
    "resource-flavor-taints.yaml": 2,
    "resource-flavor-tolerations.yaml": 1,
    "sample-admission-check.yaml": "the importer maps no AdmissionCheck into PoolQuotas",
    "shared-quota-setup.yaml": "pool 'on-demand' has no NoSchedule or NoExecute taint",
    "single-clusterqueue-setup.yaml": 9,
    "worker-setup.yaml": 11,
}


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e != REFUSED])
def test_each_upstream_example_round_trips_exactly(example: str, capsys, tmp_path: Path):
    status, stack_file, errors = run_import(capsys, "kueue", str(UPSTREAM / example))
    assert status == 0, errors
    expected = by_key(_documents(UPSTREAM / example))
    assert manifests(plan_imported(stack_file, tmp_path), "kueue.x-k8s.io/") == expected
    assert errors[0] == (
        f"note: a plan of this configuration renders the {len(expected)} kueue "
        f"object{'s' * (len(expected) != 1)} given exactly"
    )
    # PoolQuotas can't say any of them yet: KueueQueues writes them, and the note says why.
    assert errors[1].startswith("note: PoolQuotas ")
    assert errors[1].endswith(
        "so the configuration uses KueueQueues, which writes every object as given"
    )
    assert "component: KueueQueues" in stack_file


def test_an_example_kueue_itself_refuses_is_not_imported(capsys):
    status, out, errors = run_import(capsys, "kueue", str(UPSTREAM / REFUSED))
    assert (status, out) == (1, "")
    assert errors[0].startswith(
        'ClusterQueue/cluster-queue-2: upstream "present", ours (none) (not importable: '
    )
    assert 'Unsupported value: "default-flavor"' in errors[0]


@pytest.mark.parametrize("example", EXAMPLES)
def test_what_pool_quotas_makes_of_each_example(example: str, capsys):
    status, _, errors = run_import(capsys, "kueue", "--as", "pool-quotas", str(UPSTREAM / example))
    outcome = POOL_QUOTAS[example]
    if isinstance(outcome, int):
        assert status == 0
        noun = "difference" if outcome == 1 else "differences"
        assert errors[-1].startswith(f"note: {outcome} {noun} between the kueue objects")
        assert len(errors) == outcome + 1
    else:
        assert status == 1 and outcome in errors[0]


def _org_quotas_objects(tmp_path: Path) -> Path:
    capture = plan_stack("org-quotas", stacks_dir=ROOT / "stacks").capture
    assert capture is not None
    path = tmp_path / "org-quotas.yaml"
    path.write_text(yaml.safe_dump_all(list(manifests(capture, "kueue.x-k8s.io/").values())))
    return path


def test_our_own_organisation_round_trips_through_pool_quotas(capsys, tmp_path: Path):
    path = _org_quotas_objects(tmp_path)
    status, stack_file, errors = run_import(capsys, "kueue", str(path))
    assert status == 0
    assert errors == [
        "note: a plan of this configuration renders the 22 kueue objects given exactly"
    ]
    config = yaml.safe_load(stack_file)["config"]
    [quotas] = config["nodepools:governance"]
    assert (quotas["component"], quotas["organization"], quotas["reclaim"]) == (
        "PoolQuotas",
        "org",
        "Any",
    )
    assert [d["name"] for d in quotas["departments"]] == ["ml-ops", "rnd"]
    rendered = manifests(plan_imported(stack_file, tmp_path / "plan"), "kueue.x-k8s.io/")
    assert rendered == by_key([plain(d) for d in _documents(path)])


def test_kueue_queues_on_request(capsys, tmp_path: Path):
    path = _org_quotas_objects(tmp_path)
    status, stack_file, errors = run_import(capsys, "kueue", "--as", "kueue-queues", str(path))
    assert status == 0 and "component: KueueQueues" in stack_file
    assert errors == [
        "note: a plan of this configuration renders the 22 kueue objects given exactly"
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "kind: Deployment\nmetadata: {name: x}\n",
            "{path}: document 1: kind 'Deployment' can't be imported here (kinds: Topology, ResourceFlavor",
        ),
        ("a: [b\n", "{path}:2: not valid YAML: "),
        ("- just\n- a list\n", "{path}: document 1: not a Kubernetes object (got list"),
        (
            "kind: ClusterQueue\nspec: {}\n",
            "{path}: document 1: ClusterQueue has no `metadata.name`",
        ),
    ],
)
def test_a_file_that_is_not_kueue_objects_is_one_line_and_status_2(
    content, message, capsys, tmp_path: Path
):
    path = tmp_path / "objects.yaml"
    path.write_text(content)
    status, out, errors = run_import(capsys, "kueue", str(path))
    assert (status, out, len(errors)) == (2, "", 1)
    assert errors[0].startswith("nodepools import: " + message.format(path=path)), errors[0]


def test_a_missing_file_is_one_line_and_status_2(capsys, tmp_path: Path):
    status, _, errors = run_import(capsys, "kueue", str(tmp_path / "nope.yaml"))
    assert status == 2 and errors == [f"nodepools import: {tmp_path / 'nope.yaml'}: no such file"]
