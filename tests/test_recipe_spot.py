"""Recipes on spot capacity: the PodDisruptionBudget, the termination grace, spot shared pools."""

from __future__ import annotations

import pytest
from nodepools import Recipe, SharedNodePool, SpecError
from nodepools.offline import ProgramError, run
from nodepools.specs.pools.shared import SharedNodePoolArgs, SharedPoolDescription
from nodepools.specs.workloads.recipe import RecipeArgs, resolve_recipe
from nodepools.workloads.placement import decide
from nodepools.workloads.recipe_disruption import disruption_budget_manifest, runs_on_spot

from tests.conftest import EKS, OKE

PDB = "kubernetes:policy/v1:PodDisruptionBudget"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
OKE_NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
A10G = "g5.12xlarge"


def _serve(**extra) -> dict:
    return {"image": "vllm/vllm-openai:v0.6.0", "node_shape": A10G, "replicas": 2, **extra}


def _spot_program(**recipe):
    def program():
        pool = SharedNodePool("a10g", {"cluster": EKS, "shape": A10G, "size": 2, "spot": {}})
        Recipe("serve", {**_serve(**recipe), "pools": [pool]})

    return program


def test_a_recipe_on_a_spot_shared_pool_gets_a_budget_selecting_exactly_its_pods():
    capture = run(_spot_program())

    group = capture.get(NODE_GROUP, "a10g-node-group").inputs
    assert group["capacityType"] == "SPOT"
    # Tainted as a GpuSpotPool is, and the recipe tolerates every taint of its pool.
    assert {"key": "spot", "value": "true", "effect": "PREFER_NO_SCHEDULE"} in group["taints"]
    budget = capture.get(PDB, "serve-pdb")
    deployment = capture.get(DEPLOYMENT, "serve-deployment")
    tolerations = deployment.inputs["spec"]["template"]["spec"]["tolerations"]
    assert {"key": "spot", "operator": "Equal", "value": "true", "effect": "PreferNoSchedule"} in (
        tolerations
    )
    assert budget.parent == capture.get("nodepools:index:Recipe", "serve").urn
    assert budget.inputs["metadata"] == {
        "name": "serve",
        "namespace": "default",
        "labels": {"nodepools.dev/recipe": "serve"},
    }
    assert budget.inputs["spec"] == {
        "minAvailable": 0,
        "selector": deployment.inputs["spec"]["selector"],
    }
    assert deployment.inputs["spec"]["template"]["metadata"]["labels"] == {
        "nodepools.dev/recipe": "serve"
    }


@pytest.mark.parametrize(
    ("budget", "expected"),
    [
        ({"max_unavailable": 1}, {"maxUnavailable": 1}),
        ({"max_unavailable": "50%"}, {"maxUnavailable": "50%"}),
        ({"min_available": "25%"}, {"minAvailable": "25%"}),
        ({"min_available": 1}, {"minAvailable": 1}),
    ],
)
def test_the_budget_is_configurable(budget, expected):
    capture = run(_spot_program(disruption_budget=budget))

    spec = dict(capture.get(PDB, "serve-pdb").inputs["spec"])
    spec.pop("selector")
    assert spec == expected


def test_null_opts_out_and_on_demand_pools_get_no_budget():
    opted_out = run(_spot_program(disruption_budget=None))

    def on_demand():
        pool = SharedNodePool("a10g", {"cluster": EKS, "shape": A10G, "size": 2})
        Recipe("serve", {**_serve(), "pools": [pool]})

    for capture in (opted_out, run(on_demand)):
        assert [r.name for r in capture.resources if r.type == PDB] == []
        assert [r.name for r in capture.resources if r.type == DEPLOYMENT] == ["serve-deployment"]


def test_termination_grace_goes_on_the_pod_spec_spot_or_not():
    capture = run(_spot_program(termination_grace_period_seconds=90))
    spec = capture.get(DEPLOYMENT, "serve-deployment").inputs["spec"]["template"]["spec"]
    assert spec["terminationGracePeriodSeconds"] == 90

    default = run(_spot_program())
    spec = default.get(DEPLOYMENT, "serve-deployment").inputs["spec"]["template"]["spec"]
    assert "terminationGracePeriodSeconds" not in spec


def _described(name: str, *, spot: bool, selector: str | None = None) -> SharedPoolDescription:
    return SharedPoolDescription(name=name, shape=A10G, size=1, selector=selector, spot=spot)


def test_a_spot_description_has_the_spot_taint_by_default_unless_taints_are_given():
    assert [str(t) for t in _described("a", spot=True).taints or ()] == [
        "nvidia.com/gpu=true:NoSchedule",
        "spot=true:PreferNoSchedule",
    ]
    assert [str(t) for t in _described("a", spot=False).taints or ()] == [
        "nvidia.com/gpu=true:NoSchedule"
    ]
    given = SharedPoolDescription(name="a", shape=A10G, size=1, spot=True, taints=[])
    assert given.taints == []


def test_spot_comes_from_the_pool_the_recipe_is_placed_on():
    # Most free first, ties by name: `a-od` (on-demand) is chosen over `b-spot`.
    placed = resolve_recipe(
        RecipeArgs(
            **_serve(replicas=1),
            pools=[_described("b-spot", spot=True), _described("a-od", spot=False)],
        ),
        "serve",
    )
    decision = decide(placed)
    assert (decision.pool_name, runs_on_spot(placed, decision)) == ("a-od", False)

    pinned = resolve_recipe(
        RecipeArgs(
            **_serve(replicas=1),
            pools=[_described("b-spot", spot=True), _described("a-od", spot=False)],
            placement="b-spot",
        ),
        "serve",
    )
    assert runs_on_spot(pinned, decide(pinned)) is True


def test_a_waiting_recipe_is_on_spot_when_a_matching_candidate_is():
    # 2 replicas x 4 GPUs do not fit one 4-GPU node: the recipe waits for any shared node of
    # its shape (and selector), so a matching spot candidate can run it.
    def waiting(*pools: SharedPoolDescription, selector: str | None = None):
        recipe = resolve_recipe(
            RecipeArgs(**_serve(gpus=4), shared_pool_selector=selector, pools=list(pools)),
            "serve",
        )
        decision = decide(recipe)
        assert decision.status == "waiting"
        return disruption_budget_manifest(recipe, decision)

    assert waiting(_described("spot", spot=True)) is not None
    assert waiting(_described("od", spot=False)) is None
    assert (
        waiting(
            _described("spot", spot=True, selector="b"),
            _described("od", spot=False, selector="a"),
            selector="a",
        )
        is None
    )


def test_an_unshared_recipe_names_no_pool_and_gets_no_budget():
    recipe = resolve_recipe(RecipeArgs(**_serve(), use_shared_pool=False), "serve")
    assert disruption_budget_manifest(recipe, decide(recipe)) is None


def test_a_preemptible_oke_shared_pool_and_its_description():
    def program():
        pool = SharedNodePool(
            "a10",
            {"cluster": OKE, "shape": "VM.GPU.A10.1", "size": 2, "spot": {}},
        )
        assert pool.pool_description.spot is True
        Recipe("serve", {"image": "x", "node_shape": "VM.GPU.A10.1", "pools": [pool]})

    capture = run(program)
    placements = capture.get(OKE_NODE_POOL, "a10-node-pool").inputs["nodeConfigDetails"][
        "placementConfigs"
    ]
    assert all(p.get("preemptibleNodeConfig") for p in placements)
    assert capture.get(PDB, "serve-pdb").inputs["spec"]["minAvailable"] == 0


@pytest.mark.parametrize(
    ("args", "path", "quoted"),
    [
        ({"cluster": OKE, "shape": "BM.GPU.MI300X.8", "size": 1, "boot_volume_gb": 500, "spot": {}},
         "spot", "BM.GPU.MI300X.8"),
        ({"cluster": EKS, "shape": A10G, "size": 1, "spot": {"max_price": 2.5}},
         "spot.max_price", "2.5"),
    ],
)  # fmt: skip
def test_shared_pools_refuse_spot_their_cloud_cannot_give(args, path, quoted):
    with pytest.raises(SpecError) as caught:
        SharedNodePoolArgs(**args)
    [issue] = caught.value.issues
    assert issue.path == path and quoted in issue.message


@pytest.mark.parametrize(
    ("extra", "path", "quoted"),
    [
        ({"disruption_budget": {}}, "disruption_budget", "exactly one"),
        ({"disruption_budget": {"min_available": 0, "max_unavailable": 1}}, "disruption_budget",
         "min_available=0, max_unavailable=1"),
        ({"disruption_budget": {"max_unavailable": "150%"}}, "disruption_budget.max_unavailable",
         "'150%'"),
        ({"disruption_budget": {"min_available": -1}}, "disruption_budget.min_available", "-1"),
        ({"disruption_budget": {"min_available": True}}, "disruption_budget.min_available", "True"),
        ({"disruption_budget": {"minAvailable": 0}}, "disruption_budget.minAvailable", ""),
        ({"termination_grace_period_seconds": -5}, "termination_grace_period_seconds", "-5"),
        ({"termination_grace_period_seconds": "90"}, "termination_grace_period_seconds", "'90'"),
    ],
)  # fmt: skip
def test_bad_budgets_and_grace_periods_name_their_path_before_anything_registers(
    extra, path, quoted
):
    with pytest.raises(ProgramError) as caught:
        run(_spot_program(**extra))
    error = caught.value.cause
    assert isinstance(error, SpecError)
    assert [i.path for i in error.issues] == [path]
    assert quoted in error.issues[0].message
    # The pool before it registered; nothing of the recipe did.
    assert [
        r.type for r in caught.value.capture.resources if r.type.startswith("kubernetes:")
    ] == []


def test_in_stack_config_spot_comes_from_the_named_pool_or_the_written_description():
    from nodepools.fleet.deploy import deploy_fleet

    config = {
        "clusters": {"oke": OKE},
        "pools": [
            {
                "component": "SharedNodePool",
                "name": "a10-spot",
                "cluster": "oke",
                "shape": "VM.GPU.A10.1",
                "size": 1,
                "spot": {},
            }
        ],
        "recipes": [
            {"component": "Recipe", "name": "serve", "image": "x", "node_shape": "VM.GPU.A10.1",
             "pools": ["a10-spot"], "termination_grace_period_seconds": 60},
            # A pool created elsewhere, described by hand: `spot: true` says what it is.
            {"component": "Recipe", "name": "batch", "image": "x", "node_shape": "VM.GPU.A10.2",
             "pools": [{"name": "elsewhere", "shape": "VM.GPU.A10.2", "size": 2, "spot": True}],
             "disruption_budget": {"max_unavailable": "50%"}},
            {"component": "Recipe", "name": "steady", "image": "x", "node_shape": "VM.GPU.A10.2",
             "pools": [{"name": "elsewhere-od", "shape": "VM.GPU.A10.2", "size": 2}]},
        ],
    }  # fmt: skip
    capture = run(lambda: deploy_fleet(config))

    budgets = {r.name: r.inputs["spec"] for r in capture.resources if r.type == PDB}
    assert budgets == {
        "serve-pdb": {"minAvailable": 0, "selector": {"matchLabels": {"nodepools.dev/recipe": "serve"}}},
        "batch-pdb": {"maxUnavailable": "50%", "selector": {"matchLabels": {"nodepools.dev/recipe": "batch"}}},
    }  # fmt: skip


def test_a_rosa_spot_shared_pool_may_cap_its_price_and_its_recipes_get_a_budget():
    rosa = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}

    def program():
        pool = SharedNodePool(
            "a10g", {"cluster": rosa, "shape": A10G, "size": 1, "spot": {"max_price": 3.0}}
        )
        Recipe("serve", {**_serve(replicas=1), "pools": [pool]})

    capture = run(program)
    body = capture.get("pulumi-python:dynamic/ocm:MachinePool", "a10g-machine-pool").inputs["body"]
    assert body["aws"] == {"spot_market_options": {"max_price": 3.0}}
    assert {"key": "spot", "value": "true", "effect": "PreferNoSchedule"} in body["taints"]
    assert capture.get(PDB, "serve-pdb").inputs["spec"]["minAvailable"] == 0
