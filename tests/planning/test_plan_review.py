"""Plans that reviewers read: the JSON plan (against its schema), the Markdown comment
(goldens, size limit), `nodepools diff` on realistic changes, prices and capacity.svg."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest
import yaml
from nodepools.planning import plan_stack
from nodepools.planning.capacity_svg import capacity_svg
from nodepools.planning.cli import main
from nodepools.planning.markdown import COMMENT_LIMIT, MARKER
from nodepools.planning.markdown_diff import diff_markdown
from nodepools.planning.markdown_plan import plan_markdown
from nodepools.planning.plan_diff import diff_plans, diff_stacks
from nodepools.planning.plan_document import SCHEMA_PATH, dumps, plan_document
from nodepools.planning.project import stack_names
from nodepools.specs.catalog.prices import HOURS_PER_MONTH, node_price

from tests.golden import assert_golden

ROOT = Path(__file__).resolve().parents[2]
STACKS = stack_names(ROOT / "stacks")
VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


def _document(stack: str, stacks_dir: Path = ROOT / "stacks") -> dict[str, Any]:
    # Through JSON, as `plan --format json` writes it and `diff` reads it.
    return json.loads(dumps(plan_document(plan_stack(stack, stacks_dir=stacks_dir))))


def _edited(tmp_path: Path, stack: str, edit) -> Path:
    """A copy of the stacks folder with `edit(config)` applied to one stack's config."""
    target = tmp_path / "stacks"
    shutil.copytree(ROOT / "stacks", target)
    path = target / f"Pulumi.{stack}.yaml"
    document = yaml.safe_load(path.read_text())
    edit(document["config"])
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return target


def _pool(config: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in config["nodepools:pools"] if p["name"] == name)


# --- JSON ------------------------------------------------------------------------------


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text()))


@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_plan_matches_the_schema(stack):
    document = _document(stack)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(document)]
    assert errors == []
    assert document["schema_version"] == 1 and document["status"] == "ok"


def test_the_schema_refuses_what_it_does_not_describe():
    document = _document("dev")
    broken = copy.deepcopy(document)
    broken["pools"][0]["nodes"]["max"] = "ten"
    assert not VALIDATOR.is_valid(broken)
    extra = copy.deepcopy(document)
    extra["surprise"] = True
    assert not VALIDATOR.is_valid(extra)


def test_dev_plan_document_golden():
    assert_golden("plan/review/dev.plan.json", _document("dev"))


def test_the_same_config_in_another_key_order_is_the_same_document(tmp_path):
    def shuffle(config: dict[str, Any]) -> None:
        for pool in config["nodepools:pools"]:
            items = list(pool.items())
            pool.clear()
            pool.update(reversed(items))
        config["nodepools:pools"].reverse()

    edited = _edited(tmp_path, "dev", shuffle)
    assert dumps(_document("dev", edited)) == dumps(_document("dev"))


def test_pool_figures_come_from_the_price_table():
    document = _document("dev")
    pools = {p["name"]: p for p in document["pools"]}
    spot = pools["gpu-spot"]
    price = node_price("g5.2xlarge", spot=True)
    assert price is not None and price.basis == "spot (typical)"
    assert spot["cost"]["hourly"] == {"min": 0, "max": round(price.hourly * 4, 2)}
    assert spot["cost"]["monthly"]["max"] == round(price.hourly * 4 * HOURS_PER_MONTH, 2)
    assert spot["accelerators"] == {"min": 0, "max": 4}
    on_demand = node_price("m5.2xlarge", spot=False)
    assert on_demand is not None
    assert pools["cpu-general"]["cost"]["hourly"]["min"] == round(on_demand.hourly * 2, 2)
    total = document["cost"]["hourly"]
    assert total["max"] == round(sum(p["cost"]["hourly"]["max"] for p in pools.values()), 2)


def test_unknown_prices_are_said_and_left_out_of_the_totals():
    document = _document("eks-karpenter-llm")
    pools = {p["name"]: p for p in document["pools"]}
    # A Karpenter pool of instance families: no one type, no price.
    assert pools["x86-cpu-karpenter"]["cost"] == {
        "known": False,
        "reason": "unknown price: no instance type named",
    }
    assert document["cost"]["unknown_price"] == ["x86-cpu-karpenter"]
    # A Karpenter pool of one type is bounded by its limits (neuron 2, 1 per node).
    assert pools["trainium-trn1"]["nodes"] == {"min": 0, "max": 2, "autoscaled": True}


def test_prices_of_oke_shapes_and_flexible_shapes():
    mi300x = node_price("BM.GPU.MI300X.8", spot=False)
    assert mi300x is not None and mi300x.hourly == 48.0  # 8 GPUs at 6 USD per GPU-hour
    preemptible = node_price("BM.GPU.MI300X.8", spot=True)
    assert preemptible is not None and preemptible.basis == "preemptible"
    assert preemptible.hourly == 24.0
    assert node_price("VM.Standard.E4.Flex", spot=False) is None  # needs its OCPUs
    flex = node_price("VM.Standard.E4.Flex", spot=False, ocpus=4, memory_gb=64)
    assert flex is not None and flex.hourly == round(4 * 0.025 + 64 * 0.0015, 4)
    assert node_price("g9.99xlarge", spot=False) is None


def test_a_failed_program_is_a_document_too(tmp_path):
    def bad(config: dict[str, Any]) -> None:
        _pool(config, "gpu-spot")["instance_type"] = "g5.2xlargee"

    document = _document("dev", _edited(tmp_path, "dev", bad))
    assert document["status"] == "error" and "g5.2xlargee" in document["error"]
    assert VALIDATOR.is_valid(document)


# --- Markdown --------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "oke-shared-mi300x"])
def test_plan_markdown_golden(stack):
    text = plan_markdown([_document(stack)], artifact_url="https://example.invalid/artifact")
    assert text.startswith(MARKER)
    assert_golden(f"plan/review/{stack}.plan.md", text)


def test_a_huge_plan_is_cut_to_the_comment_limit_and_says_so():
    document = _document("org-quotas")
    row = document["resources"][0]
    document["resources"] = [{**row, "name": f"{row['name']}-{i:05d}"} for i in range(3000)]
    text = plan_markdown([document])
    assert len(text) <= COMMENT_LIMIT
    assert "_Cut: " in text and "of 3000 rows not shown" in text
    assert "### nodepools plan" in text  # the headline always survives


# --- diff ------------------------------------------------------------------------------


def _resize_and_retype(config: dict[str, Any]) -> None:
    _pool(config, "gpu-spot")["autoscaling"]["max_replicas"] = 8
    _pool(config, "cpu-general")["instance_type"] = "m5.4xlarge"


def test_diff_of_a_resized_pool_and_a_changed_type(tmp_path):
    base = _document("dev")
    head = _document("dev", _edited(tmp_path, "dev", _resize_and_retype))
    diff = diff_plans(base, head)
    assert diff["changed"]
    changed = {
        p["name"]: {c["field"]: (c["before"], c["after"]) for c in p["changes"]}
        for p in diff["pools"]["changed"]
    }
    assert changed["gpu-spot"]["nodes.max"] == (4, 8)
    assert changed["cpu-general"]["instance_types"] == (["m5.2xlarge"], ["m5.4xlarge"])
    [a10g] = [a for a in diff["accelerators"] if a["model"] == "A10G"]
    assert a10g["delta"] == {"min": 0, "max": 4} and a10g["nodes_delta"] == {"min": 0, "max": 4}
    spot, small, big = (
        node_price("g5.2xlarge", spot=True),
        node_price("m5.2xlarge", spot=False),
        node_price("m5.4xlarge", spot=False),
    )
    assert spot and small and big
    expected = round(4 * spot.hourly + 10 * (big.hourly - small.hourly), 2)
    assert diff["cost"]["hourly"]["delta"]["max"] == pytest.approx(expected, abs=0.02)
    assert diff["pools"]["added"] == diff["pools"]["removed"] == []
    assert_golden(
        "plan/review/dev.diff.md", diff_markdown(diff_stacks({"dev": base}, {"dev": head}))
    )


def test_diff_of_a_recipe_moved(tmp_path):
    def move(config: dict[str, Any]) -> None:
        recipe = next(
            r for r in config["nodepools:recipes"] if r["name"] == "echo-waits-for-selector-2"
        )
        recipe["shared_pool_selector"] = "selector_1"

    base = _document("oke-shared-mi300x")
    head = _document("oke-shared-mi300x", _edited(tmp_path, "oke-shared-mi300x", move))
    diff = diff_plans(base, head)
    assert diff["placement_moves"] == [
        {
            "recipe": "echo-waits-for-selector-2",
            "before": {"pool": None, "status": "waiting"},
            "after": {"pool": "mi300x-selector-1", "status": "placed"},
        }
    ]
    assert "1 placement moves" in diff_markdown(diff_stacks({"s": base}, {"s": head}))


def test_diff_of_a_quota_raised(tmp_path):
    def raise_quota(config: dict[str, Any]) -> None:
        org = config["nodepools:governance"][0]
        project = org["departments"][0]["projects"][0]
        project["quotas"]["default"]["gpu"] = 6

    base = _document("org-quotas")
    head = _document("org-quotas", _edited(tmp_path, "org-quotas", raise_quota))
    diff = diff_plans(base, head)
    [row] = diff["quota_changes"]
    assert row["pool"] == "default" and row["change"] == "changed"
    assert {"field": 'nominal["nvidia.com/gpu"]', "before": 5, "after": 6} in row["changes"]
    assert not diff["pools"]["changed"]


def test_diff_of_identical_plans_says_nothing_changed():
    base = _document("dev")
    diff = diff_stacks({"dev": base}, {"dev": copy.deepcopy(base)})
    assert not diff["changed"]
    assert "**`dev`**: no changes" in diff_markdown(diff)


def test_diff_of_a_new_and_a_removed_stack():
    dev, rosa = _document("dev"), _document("rosa-gpu")
    diff = diff_stacks({"rosa-gpu": rosa}, {"dev": dev})
    by_stack = {s["stack"]: s for s in diff["stacks"]}
    assert [p["name"] for p in by_stack["dev"]["pools"]["added"]] == [
        p["name"] for p in dev["pools"]
    ]
    assert by_stack["rosa-gpu"]["status"]["after"] == "removed"
    assert diff["changed"]


def test_cli_diff_exit_status_and_formats(tmp_path, capsys):
    base_dir, head_dir = tmp_path / "base", tmp_path / "head"
    for folder in (base_dir, head_dir):
        folder.mkdir()
        assert (
            main(
                ["plan", "--stack", "dev", "--stacks-dir", str(ROOT / "stacks"), "--format", "json"]
            )
            == 0
        )
        (folder / "dev.json").write_text(capsys.readouterr().out)
    assert main(["diff", str(base_dir), str(head_dir)]) == 0
    assert "no changes" in capsys.readouterr().out
    edited = _edited(tmp_path, "dev", _resize_and_retype)
    assert main(["plan", "--stack", "dev", "--stacks-dir", str(edited), "--format", "json"]) == 0
    (head_dir / "dev.json").write_text(capsys.readouterr().out)
    assert (
        main(["diff", str(base_dir / "dev.json"), str(head_dir / "dev.json"), "--format", "json"])
        == 1
    )
    assert json.loads(capsys.readouterr().out)["changed"] is True
    assert (
        main(
            [
                "plan",
                "--stack",
                "dev",
                "--stacks-dir",
                str(edited),
                "--compare",
                str(base_dir / "dev.json"),
            ]
        )
        == 3  # valid and changed; 1 is kept for a plan that failed
    )
    assert "gpu-spot" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text('{"schema_version": 99}')
    assert main(["diff", str(tmp_path / "bad.json"), str(head_dir)]) == 2
    assert "schema_version 99" in capsys.readouterr().err


# --- capacity.svg ----------------------------------------------------------------------


def test_out_writes_the_json_plan_and_the_capacity_chart(tmp_path):
    assert (
        main(
            ["plan", "--stack", "dev", "--stacks-dir", str(ROOT / "stacks"), "--out", str(tmp_path)]
        )
        == 0
    )
    document = json.loads((tmp_path / "plan.json").read_text())
    assert VALIDATOR.is_valid(document)
    svg = (tmp_path / "capacity.svg").read_text()
    root = ElementTree.fromstring(svg)  # well-formed XML
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "gpu-spot (A10G)" in texts and "0..4 spot" in texts
    assert "oke-a10 (A10)" in texts and "4 on-demand" not in texts and "4..4 on-demand" in texts
    assert svg == capacity_svg(document)  # deterministic: the same plan, the same bytes


def test_the_docs_show_the_sample_comment_as_the_code_writes_it():
    golden = (ROOT / "tests/golden/plan/review/dev.diff.md").read_text()
    assert (
        golden.replace(MARKER + "\n", "", 1)
        in (ROOT / "docs/how-to/ci-plan-comments.md").read_text()
    )


def _undescribed(node: Any, path: str = "") -> list[str]:
    """Properties of the schema (at any depth) without a description."""
    missing: list[str] = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                missing.append(f"{path}.{name}")
            missing += _undescribed(sub, f"{path}.{name}")
        for key in ("items", "additionalProperties"):
            missing += _undescribed(node.get(key), f"{path}[]")
        for key in ("oneOf", "anyOf"):
            for sub in node.get(key, []):
                missing += _undescribed(sub, path)
        for name, sub in node.get("$defs", {}).items():
            if "description" not in sub:
                missing.append(f"$defs.{name}")
            missing += _undescribed(sub, f"$defs.{name}")
    return missing


def test_every_field_of_the_schema_is_described():
    assert _undescribed(json.loads(SCHEMA_PATH.read_text())) == []
