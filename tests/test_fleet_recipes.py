"""Shared pools and recipes declared in stack config, placed together, and planned offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from nodepools import Recipe
from nodepools.fleet.deploy import deploy_fleet, validate_fleet
from nodepools.offline import ProgramError, run
from nodepools.planning import plan_stack
from nodepools.planning.placement_section import placement_section
from nodepools.specs.core.base import SpecError

from tests.golden import assert_golden

ROOT = Path(__file__).resolve().parent.parent
MI300X = "BM.GPU.MI300X.8"
OKE = {
    "kind": "oke",
    "cluster_id": "ocid1.cluster.oc1.iad.example",
    "compartment_id": "ocid1.compartment.oc1..example",
    "image_id": "ocid1.image.oc1.iad.example",
    "placements": [{"availability_domain": "AD-1", "subnet_id": "ocid1.subnet.oc1.iad.a"}],
}


def shared_pool(name: str, cluster: str = "oke", **extra) -> dict:
    return {
        "component": "SharedNodePool",
        "name": name,
        "cluster": cluster,
        "shape": MI300X,
        "size": 1,
        "boot_volume_gb": 500,
        **extra,
    }


def recipe(name: str, **extra) -> dict:
    return {"component": "Recipe", "name": name, "image": "x", "node_shape": MI300X, **extra}


def config(pools: list[dict], recipes: list[dict], clusters: dict | None = None) -> dict:
    return {"clusters": clusters or {"oke": OKE}, "pools": pools, "recipes": recipes}


def pins(entries) -> dict:
    return {e.name: e.args.placement for e in entries if e.component == "Recipe"}


def fleet_issues(cfg: dict) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        validate_fleet(cfg)
    return {issue.path: issue.message for issue in caught.value.issues}


def test_recipes_are_placed_together_and_pinned():
    four = {"gpus": 4, "pools": ["p"]}
    cfg = config(
        [shared_pool("p")], [recipe("c", **four), recipe("a", **four), recipe("b", **four)]
    )
    entries, _ = validate_fleet(cfg)
    # Each alone would fit; together the third (by name) has no room left and waits.
    assert pins(entries) == {"c": False, "a": "p", "b": "p"}
    reversed_cfg = {**cfg, "recipes": list(reversed(cfg["recipes"]))}
    assert pins(validate_fleet(reversed_cfg)[0]) == pins(entries)


def test_left_out_pools_mean_every_shared_pool_of_the_stack():
    cfg = config(
        [shared_pool("open"), shared_pool("picky", selector="selector_1")],
        [recipe("a", shared_pool_selector="selector_1"), recipe("b", gpus=8), recipe("c", gpus=8)],
    )
    entries, _ = validate_fleet(cfg)
    by_name = {e.name: e.args for e in entries}
    assert [p.name for p in by_name["a"].pools] == ["open", "picky"]
    # a takes 1 of picky's 8; b (8) goes to open, the most free; c (8) has no room left.
    assert pins(entries) == {"a": "picky", "b": "open", "c": False}


def test_fleet_recipes_deploy_with_their_placement():
    cfg = config([shared_pool("p")], [recipe("a", gpus=8), recipe("b", gpus=8)])
    capture = run(lambda: deploy_fleet(cfg))
    recipes = {r.name: capture.outputs_of(r) for r in capture.components("nodepools:index:Recipe")}
    assert recipes["a"]["placement"] == "p"
    assert recipes["b"]["status"] == "waiting"


def test_a_recipe_naming_an_unknown_pool_stops_the_whole_fleet():
    cfg = config([shared_pool("p")], [recipe("a", pools=["p", "nope"])])
    with pytest.raises(ProgramError) as caught:
        run(lambda: deploy_fleet(cfg))
    assert caught.value.capture.resources == []
    assert [(i.path, i.message) for i in caught.value.cause.issues] == [
        ("nodepools:recipes[0].pools[1]", "unknown shared pool 'nope' (SharedNodePools: p)")
    ]


def test_a_recipe_can_name_only_shared_pools():
    cfg = config(
        [
            {
                "component": "MachinePool",
                "name": "m",
                "cluster": "oke",
                "instance_type": MI300X,
                "replicas": 1,
            }
        ],
        [recipe("a", pools=["m"])],
    )
    assert fleet_issues(cfg) == {
        "nodepools:recipes[0].pools[0]": "unknown shared pool 'm' (SharedNodePools: none declared)"
    }


def test_errors_carry_their_config_paths():
    cfg = config(
        [shared_pool("p"), shared_pool("bm-without-disk", boot_volume_gb=None)],
        [recipe("ok"), recipe("big", gpus=9, pools=["p"])],
    )
    assert fleet_issues(cfg) == {
        "nodepools:pools[1].boot_volume_gb": "`boot_volume_gb` is required when `shape` is "
        "bare metal (BM.GPU.MI300X.8)",
        "nodepools:recipes[1].gpus": "9 per replica is more than one BM.GPU.MI300X.8 node has "
        "(8 amd.com/gpu); a replica runs on one node",
    }


def test_pools_of_two_clusters_need_an_explicit_list():
    cfg = config(
        [shared_pool("p"), shared_pool("q", cluster="other")],
        [recipe("a")],
        clusters={"oke": OKE, "other": {**OKE, "cluster_id": "ocid1.cluster.oc1.iad.other"}},
    )
    issues = fleet_issues(cfg)
    assert list(issues) == ["nodepools:recipes[0].pools"]
    assert issues["nodepools:recipes[0].pools"].startswith(
        "the pools are in 2 clusters (oke: p; other: q)"
    )
    explicit = {**cfg, "recipes": [recipe("a", pools=["q"])]}
    assert pins(validate_fleet(explicit)[0]) == {"a": "q"}


def test_a_user_pin_is_counted_before_the_others():
    cfg = config(
        [shared_pool("p"), shared_pool("q")],
        [recipe("a", gpus=8), recipe("z", gpus=8, placement="p")],
    )
    assert pins(validate_fleet(cfg)[0]) == {"a": "q", "z": "p"}


def test_a_pool_of_recipes_placed_alone_over_capacity_fails_the_plan():
    pool = {"name": "p", "shape": MI300X, "size": 1}

    def program():
        # Two standalone recipes can't see each other: each takes 6 of the same 8.
        Recipe("a", {"image": "x", "node_shape": MI300X, "gpus": 6, "pools": [pool]})
        Recipe("b", {"image": "x", "node_shape": MI300X, "gpus": 6, "pools": [pool]})

    section = placement_section(run(program))
    assert section is not None and section.failures == 1
    text = section.render()
    assert "12/8 OVER CAPACITY" in text
    assert "p (elsewhere)" in text


def test_the_shared_mi300x_stack_plans_offline_with_placement_and_use():
    result = plan_stack("oke-shared-mi300x", stacks_dir=ROOT / "stacks")
    assert result.error is None and result.ok
    [section] = [s for s in result.sections if s.title == "Shared pools and recipes"]
    assert_golden("plan/oke-shared-mi300x-placement.txt", section.render())
    text = result.render()
    assert "mi300x-general     BM.GPU.MI300X.8  -           amd.com/gpu  8/8" in text
    assert "mi300x-selector-1  BM.GPU.MI300X.8  selector_1  amd.com/gpu  2/8" in text
    assert (
        "echo-waits-for-selector-2: no shared pool of shape BM.GPU.MI300X.8 has selector "
        "'selector_2'" in text
    )
    outputs = result.capture.stack_outputs["recipes"]
    assert outputs["echo"] == {"placement": "mi300x-selector-1", "status": "placed"}
    assert {outputs["train-a"]["placement"], outputs["train-b"]["placement"]} == {"mi300x-general"}


def test_a_stack_without_shared_pools_or_recipes_has_no_placement_section():
    result = plan_stack("dev", stacks_dir=ROOT / "stacks")
    assert result.ok
    assert "Shared pools and recipes" not in [s.title for s in result.sections]
