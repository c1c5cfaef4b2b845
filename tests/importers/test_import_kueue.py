"""`nodepools import kueue`: Kueue's own examples (tests/governance/upstream_kueue, as
tests/governance/test_kueue_queues.py reproduces them) imported, planned and compared; the
organisation our own org-quotas stack renders round-trips through PoolQuotas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.governance.kueue import render_quotas
from nodepools.planning import plan_stack
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.quotas import PoolQuotasArgs

from tests.importers.roundtrip import ROOT, by_key, manifests, plain, plan_imported, run_import

UPSTREAM = ROOT / "tests" / "governance" / "upstream_kueue"
EXAMPLES = sorted(path.name for path in UPSTREAM.glob("*.yaml"))
# Kueue's webhook refuses minimal-cq.yaml as written (test_kueue_queues.py): not importable.
REFUSED = "minimal-cq.yaml"
# The components `--as auto` writes each example with: PoolQuotas where a plan of it renders
# the example exactly (tests/governance/test_quota_upstream.py writes the same seven by hand),
# beside KueueQueues for the objects PoolQuotas doesn't make (AdmissionChecks and their
# parameters, MultiKueue clusters); KueueQueues alone for the rest.
BOTH = ["PoolQuotas", "KueueQueues"]
COMPONENTS: dict[str, list[str]] = {
    "admission-fair-sharing-setup.yaml": ["KueueQueues"],
    "manager-setup.yaml": BOTH,
    "multikueue-setup.yaml": BOTH,
    "provisioning-setup.yaml": BOTH,
    "resource-flavor-empty.yaml": ["PoolQuotas"],
    "resource-flavor-taints.yaml": ["KueueQueues"],
    "resource-flavor-tolerations.yaml": ["PoolQuotas"],
    "sample-admission-check.yaml": ["KueueQueues"],
    "shared-quota-setup.yaml": ["KueueQueues"],
    "single-clusterqueue-setup.yaml": ["PoolQuotas"],
    "worker-setup.yaml": ["PoolQuotas"],
}
# What `--as pool-quotas` makes of each example: the number of differences, or why nothing is
# imported (its first line). What PoolQuotas has no option for: a ClusterQueue's
# `queueingStrategy` and `admissionScope`, LocalQueue fair-sharing weights, a flavor's
# `nodeTaints`; shared-quota-setup's untainted pools beside a flavor without node labels are
# refused by PoolQuotas's own check (their workloads could run uncounted).
POOL_QUOTAS: dict[str, int | str] = {
    "admission-fair-sharing-setup.yaml": 4,
    "manager-setup.yaml": 0,
    "minimal-cq.yaml": "pools: list should have at least 1 item",
    "multikueue-setup.yaml": 0,
    "provisioning-setup.yaml": 0,
    "resource-flavor-empty.yaml": 0,
    "resource-flavor-taints.yaml": 1,
    "resource-flavor-tolerations.yaml": 0,
    "sample-admission-check.yaml": 0,
    "shared-quota-setup.yaml": "pool 'on-demand' has no NoSchedule or NoExecute taint",
    "single-clusterqueue-setup.yaml": 0,
    "worker-setup.yaml": 0,
}


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _components(stack_file: str) -> list[str]:
    return [e["component"] for e in yaml.safe_load(stack_file)["config"]["nodepools:governance"]]


def _exact(count: int) -> str:
    return (
        f"note: a plan of this configuration renders the {count} kueue "
        f"object{'s' * (count != 1)} given exactly"
    )


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e != REFUSED])
def test_each_upstream_example_round_trips_exactly(example: str, capsys, tmp_path: Path):
    status, stack_file, errors = run_import(capsys, "kueue", str(UPSTREAM / example))
    assert status == 0, errors
    expected = by_key(_documents(UPSTREAM / example))
    assert manifests(plan_imported(stack_file, tmp_path), "kueue.x-k8s.io/") == expected
    assert errors[0] == _exact(len(expected))
    assert _components(stack_file) == COMPONENTS[example]
    if "PoolQuotas" in COMPONENTS[example] or POOL_QUOTAS[example] == 0:
        assert errors == [errors[0]]
    else:
        # PoolQuotas can't say them: KueueQueues writes them, and the note says why.
        assert errors[1].startswith("note: PoolQuotas ")
        assert errors[1].endswith(
            "so the configuration uses KueueQueues, which writes every object as given"
        )


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
    if outcome == 0:
        assert status == 0 and errors == [_exact(len(_documents(UPSTREAM / example)))]
    elif isinstance(outcome, int):
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
    assert (quotas["component"], quotas["organization"]) == ("PoolQuotas", "org")
    # PoolQuotas's defaults are left out: the short form a user would have written.
    assert sorted(quotas) == [
        "component",
        "create_namespaces",
        "departments",
        "name",
        "organization",
        "pools",
    ]
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


def _pool(name: str, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "gpus": 8,
        "node_labels": {"pool": name},
        "taints": ["g=1:NoSchedule"],
        **more,
    }


def _organisation(**settings: Any) -> dict[str, Any]:
    """Two pools, a department with two projects, every option of a test's choosing."""
    projects = settings.pop("projects", {})
    return {
        "pools": [_pool("a100"), _pool("h100")],
        "departments": [
            {
                "name": "rnd",
                "projects": [
                    {
                        "name": "research",
                        "quotas": {"a100": {"gpu": 4}},
                        **projects.get("research", {}),
                    },
                    {
                        "name": "vision",
                        "quotas": {"h100": {"gpu": 2}},
                        **projects.get("vision", {}),
                    },
                ],
                **settings.pop("department", {}),
            }
        ],
        "create_namespaces": False,
        **settings,
    }


# PoolQuotas's options, each set away from its default: an organisation written with them is
# imported back as PoolQuotas and renders the same objects.
OPTIONS: dict[str, dict[str, Any]] = {
    "cohorts by name only, reclaim LowerPriority": _organisation(
        cohorts="departments", reclaim="LowerPriority"
    ),
    "no preemption": _organisation(reclaim=None),
    "no cohort at all": _organisation(cohorts="none"),
    "a department's limit and borrowing caps": _organisation(
        department={"limit": {"gpu": 2}},
        projects={"research": {"over_quota": {"gpu": 1}}, "vision": {"over_quota": False}},
    ),
    "pool order, fungibility, concurrent admission": _organisation(
        projects={
            "research": {
                "pool_order": ["h100", "a100"],
                "flavor_fungibility": {"when_can_borrow": "TryNextFlavor"},
                "concurrent_admission": {"last_acceptable_pool": "a100"},
            }
        }
    ),
    "namespaces and LocalQueues of the project's choice": _organisation(
        projects={
            "research": {
                "namespace": "lab",
                "namespace_selector": {
                    "matchExpressions": [{"key": "team", "operator": "In", "values": ["lab"]}]
                },
                "local_queues": [
                    {"name": "batch"},
                    {"name": "interactive", "namespace": "notebooks"},
                ],
            }
        }
    ),
    "covered resources and another maker's accelerator": {
        **_organisation(covered_resources=["amd.com/gpu", "cpu"]),
        "pools": [
            _pool("a100", gpu_resource="amd.com/gpu"),
            _pool("h100", gpu_resource="amd.com/gpu"),
        ],
    },
    "a topology": _organisation(
        topologies=[
            {"name": "racks", "levels": ["rack", "kubernetes.io/hostname"], "pools": ["h100"]}
        ],
        organization="company",
    ),
}


@pytest.mark.parametrize("case", sorted(OPTIONS))
def test_every_pool_quotas_option_is_read_back(case: str, capsys, tmp_path: Path):
    args = parse_spec(PoolQuotasArgs, OPTIONS[case], case)
    objects = [r.manifest for r in render_quotas("org", args).objects]
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    status, stack_file, errors = run_import(capsys, "kueue", str(path))
    assert (status, errors) == (0, [_exact(len(objects))])
    assert _components(stack_file) == ["PoolQuotas"]
    rendered = manifests(plan_imported(stack_file, tmp_path / "plan"), "kueue.x-k8s.io/")
    assert rendered == by_key(objects)
