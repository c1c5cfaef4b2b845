"""`nodepools diff` and `plan --compare` on the changes reviewers most need to see: policy
findings that appear or go away, pools added and removed in one stack, a comment cut to
GitHub's size limit, and exit statuses that tell a change from a failed plan."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import yaml
from nodepools.planning import plan_stack
from nodepools.planning.cli import main
from nodepools.planning.markdown import COMMENT_LIMIT, MARKER
from nodepools.planning.markdown_diff import diff_markdown
from nodepools.planning.plan_diff import diff_plans, diff_stacks
from nodepools.planning.plan_document import dumps, plan_document

ROOT = Path(__file__).resolve().parents[2]


def _stacks(tmp_path: Path, edit) -> Path:
    target = tmp_path / "stacks"
    shutil.copytree(ROOT / "stacks", target)
    path = target / "Pulumi.dev.yaml"
    document = yaml.safe_load(path.read_text())
    edit(document["config"]["nodepools:pools"])
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return target


def _document(stacks: Path = ROOT / "stacks") -> dict[str, Any]:
    return json.loads(dumps(plan_document(plan_stack("dev", stacks_dir=stacks))))


def _pool(pools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(p for p in pools if p["name"] == name)


def _too_big(pools: list[dict[str, Any]]) -> None:
    # Above the pack's default ceiling of 100 nodes: a mandatory `autoscaling-max-nodes`.
    _pool(pools, "cpu-general")["autoscaling"]["max_replicas"] = 150


def test_new_and_resolved_policy_findings(tmp_path):
    base = _document()
    head = _document(_stacks(tmp_path, _too_big))

    diff = diff_plans(base, head)
    [new] = diff["policy"]["new"]
    assert (new["policy"], new["level"]) == ("autoscaling-max-nodes", "mandatory")
    assert "150" in new["message"] and diff["policy"]["resolved"] == []
    assert diff["status"] == {"before": "ok", "after": "failed"}
    text = diff_markdown(diff_stacks({"dev": base}, {"dev": head}))
    assert "1 new policy findings (1 mandatory)" in text and "**plan FAILED**" in text
    assert "| new | mandatory | autoscaling-max-nodes |" in text

    back = diff_plans(head, base)
    assert back["policy"]["new"] == [] and back["policy"]["resolved"] == [new]
    text = diff_markdown(diff_stacks({"dev": head}, {"dev": base}))
    assert "| resolved | mandatory | autoscaling-max-nodes |" in text
    assert "new policy findings" not in text


def test_a_pool_added_and_one_removed_in_one_stack(tmp_path):
    def swap(pools: list[dict[str, Any]]) -> None:
        pools.remove(_pool(pools, "cpu-general"))
        pools.append(
            {
                "component": "MachinePool",
                "name": "cpu-big",
                "cluster": "ml-eks",
                "instance_type": "m5.4xlarge",
                "autoscaling": {"min_replicas": 1, "max_replicas": 3},
            }
        )

    base = _document()
    head = _document(_stacks(tmp_path, swap))
    diff = diff_plans(base, head)

    assert [p["name"] for p in diff["pools"]["added"]] == ["cpu-big"]
    assert [p["name"] for p in diff["pools"]["removed"]] == ["cpu-general"]
    assert diff["pools"]["changed"] == []
    added = diff["pools"]["added"][0]
    assert added["nodes"] == {"min": 1, "max": 3, "autoscaled": True}
    removed_max = _pool(base["pools"], "cpu-general")["cost"]["hourly"]["max"]
    added_max = _pool(head["pools"], "cpu-big")["cost"]["hourly"]["max"]
    assert diff["cost"]["hourly"]["delta"]["max"] == round(added_max - removed_max, 2)
    assert any(r.endswith("cpu-big-node-group") for r in diff["resources"]["added"])
    assert any(r.endswith("cpu-general-node-group") for r in diff["resources"]["removed"])

    text = diff_markdown(diff_stacks({"dev": base}, {"dev": head}))
    assert "**`dev`**: pools +1 / -1 / ~0" in text
    assert "| added | `cpu-big` | - | - | eks, m5.4xlarge, 1..3 nodes |" in text
    assert "| removed | `cpu-general` | - | eks, m5.2xlarge, 2..10 nodes | - |" in text


def test_a_huge_diff_comment_is_cut_under_githubs_limit_and_says_what_it_cut():
    base = _document()
    head = copy.deepcopy(base)
    row = head["resources"][0]
    head["resources"] += [{**row, "name": f"extra-{i:05d}"} for i in range(4000)]
    head["pools"] = [
        {**pool, "name": f"{pool['name']}-{i:04d}"} for i in range(400) for pool in base["pools"]
    ]
    diff = diff_stacks({"dev": base}, {"dev": head})

    whole = diff_markdown(diff, limit=10**9)
    text = diff_markdown(diff)

    assert len(whole) > COMMENT_LIMIT >= len(text)
    assert text.startswith(MARKER)
    assert "**`dev`**: pools +1200 / -3 / ~0" in text  # the headline always survives
    cuts = [line for line in text.splitlines() if line.startswith("_Cut: ")]
    assert cuts and all("rows not shown to fit GitHub's comment size limit" in c for c in cuts)
    assert any("of 4003 rows not shown" in c or "of 4000 rows not shown" in c for c in cuts)


def _saved(tmp_path: Path, capsys) -> Path:
    assert (
        main(["plan", "--stack", "dev", "--format", "json", "--stacks-dir", str(ROOT / "stacks")])
        == 0
    )
    path = tmp_path / "base.json"
    path.write_text(capsys.readouterr().out)
    return path


def test_compare_tells_unchanged_changed_and_failed_apart(tmp_path, capsys):
    base = _saved(tmp_path, capsys)
    plan = ["plan", "--stack", "dev", "--compare", str(base), "--stacks-dir"]

    assert main([*plan, str(ROOT / "stacks")]) == 0
    assert "no changes" in capsys.readouterr().out

    def grow(pools: list[dict[str, Any]]) -> None:
        _pool(pools, "gpu-spot")["autoscaling"]["max_replicas"] = 8

    assert main([*plan, str(_stacks(tmp_path / "grow", grow))]) == 3
    assert "`gpu-spot`" in capsys.readouterr().out

    # The plan fails (a mandatory violation): 1, though something changed too.
    assert main([*plan, str(_stacks(tmp_path / "big", _too_big))]) == 1
    assert "**plan FAILED**" in capsys.readouterr().out

    (tmp_path / "stacks-broken").mkdir()
    assert main([*plan, str(tmp_path / "stacks-broken")]) == 2
    capsys.readouterr()


def test_compare_of_a_failed_plan_that_changed_nothing_is_still_a_failure(tmp_path, capsys):
    failing = _stacks(tmp_path, _too_big)
    assert main(["plan", "--stack", "dev", "--format", "json", "--stacks-dir", str(failing)]) == 1
    base = tmp_path / "failed.json"
    base.write_text(capsys.readouterr().out)

    assert (
        main(["plan", "--stack", "dev", "--compare", str(base), "--stacks-dir", str(failing)]) == 1
    )
    assert "no changes" in capsys.readouterr().out
