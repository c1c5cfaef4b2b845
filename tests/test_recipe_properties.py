"""Any recipe or shared-pool spec either fails validation with clear, located problems or
yields a placement and manifests that keep the rules; never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.labels import INSTANCE_TYPE_LABEL, POOL_LABEL
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.shared import (
    SharedNodePoolArgs,
    describe_shared_pool,
    resolve_shared_pool,
)
from nodepools.specs.workloads.recipe import RecipeArgs, matches, resolve_recipe
from nodepools.workloads.placement import decide
from nodepools.workloads.recipe_manifests import (
    deployment_manifest,
    recipe_scheduling,
    service_manifest,
)

SHAPES = ("BM.GPU.MI300X.8", "BM.GPU.A10.4", "VM.Standard.E4.Flex", "BM.GPU.NEXT.2")
SELECTORS = (None, "", "selector_1", "selector_2", "bad value")
OKE = {
    "kind": "oke",
    "cluster_id": "c",
    "compartment_id": "c",
    "image_id": "i",
    "placements": [{"availability_domain": "AD-1", "subnet_id": "s"}],
}


def mostly(valid: list, invalid: list):
    """Valid values most of the time, so both outcomes are well exercised."""
    return st.sampled_from(valid * 10 + invalid)


def description(shape: str):
    return st.fixed_dictionaries(
        {
            "name": mostly(["p0", "p1", "p2"], ["Bad_Name"]),
            # Mostly the recipe's shape, so recipes find pools to be placed on.
            "shape": mostly([shape, shape], list(SHAPES)),
            "size": mostly([0, 1, 2, 3], [-1]),
        },
        optional={
            "selector": mostly([None, "selector_1"], ["", "bad value"]),
            "gpus_per_node": mostly([2, 4, 8], [-1, 0]),
            "accelerator_resource": mostly(["amd.com/gpu", "nvidia.com/gpu"], ["bad key!"]),
            "taints": st.lists(mostly(["a=1:NoSchedule", "b:NoExecute"], ["bad"]), max_size=2),
        },
    )


@st.composite
def recipe_args(draw) -> dict:
    shape = draw(st.sampled_from(SHAPES))
    optional = st.fixed_dictionaries(
        {},
        optional={
            "replicas": mostly([0, 1, 2, 3], [-1]),
            "gpus": mostly([None, 1, 2, 4, 8], [-1, 0, 9]),
            "cpu": mostly(["500m", "2", 4], ["lots", "0", "-1"]),
            "memory": mostly(["16Gi", "1e3", "1G"], ["x"]),
            "port": mostly([80, 5678, 65535], [0, 70000]),
            "env": st.dictionaries(mostly(["A", "B_2", "a.b"], ["1X"]), st.text(max_size=3)),
            "use_shared_pool": mostly([True], [False]),
            "shared_pool_selector": mostly([None, None, "selector_1"], ["", "bad value"]),
            "placement": mostly([None, None, "p0", "p1"], [False, True, "zz"]),
            "namespace": mostly(["default", "ml"], ["Bad_NS"]),
        },
    )
    return {
        "image": draw(mostly(["x", "hashicorp/http-echo"], ["has space", ""])),
        "node_shape": shape,
        "pools": draw(
            st.lists(description(shape), max_size=4, unique_by=lambda pool: pool["name"])
            | st.lists(description(shape), max_size=2)
        ),
        **draw(optional),
    }


def _located(error: SpecError) -> None:
    assert error.issues
    for issue in error.issues:
        assert issue.message
        assert not issue.path.startswith(".")


@settings(max_examples=150, deadline=None)
@given(recipe_args())
def test_any_recipe_spec_is_rejected_clearly_or_renders_valid_manifests(args):
    try:
        spec = parse_spec(RecipeArgs, args, "Recipe 'r'")
        recipe = resolve_recipe(spec, "r")
        decision = decide(recipe)
    except SpecError as exc:
        _located(exc)
        return
    scheduling = recipe_scheduling(recipe, decision)
    deployment = deployment_manifest(recipe, scheduling)
    pod = deployment["spec"]["template"]["spec"]
    [container] = pod["containers"]
    resources = container.get("resources", {})
    if decision.pool is not None:
        pool = decision.pool
        assert decision.status == "placed"
        assert matches(pool, recipe.shape, recipe.selector)
        assert recipe.gpus <= (pool.gpus_per_node or 0)
        assert recipe.total_gpus <= pool.total_gpus
        assert pod["nodeSelector"] == {POOL_LABEL: pool.name}
    else:
        assert decision.status in ("waiting", "unshared")
        assert pod["nodeSelector"][INSTANCE_TYPE_LABEL] == recipe.shape
    for resource, count in scheduling.limits.items():
        assert resources["limits"][resource] == resources["requests"][resource] == str(count)
        assert count == recipe.gpus > 0
    assert (service_manifest(recipe) is None) == (recipe.port is None)


@st.composite
def shared_args(draw) -> dict:
    shape = draw(st.sampled_from(SHAPES))
    flex = shape.endswith(".Flex")
    return {
        "cluster": OKE,
        "shape": shape,
        "size": draw(mostly([0, 1, 2, 3], [-1])),
        "boot_volume_gb": draw(mostly([50, 500], [None, 0, 20])),
        "ocpus": draw(mostly([16.0] if flex else [None], [None, 2.0, -1.0])),
        "memory_gb": draw(mostly([64.0] if flex else [None], [None, 32.0, 0.0])),
        **draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "selector": mostly([None, "selector_1"], ["", "bad value"]),
                    "labels": st.dictionaries(
                        mostly(["team", "tier"], ["nodepools.dev/shared-pool", "bad key!"]),
                        mostly(["a", "b"], ["bad value!"]),
                        max_size=2,
                    ),
                    "taints": st.lists(mostly(["amd.com/gpu=x:NoSchedule"], ["bad"]), max_size=2),
                },
            )
        ),
    }


@settings(max_examples=120, deadline=None)
@given(shared_args())
def test_any_shared_pool_spec_is_rejected_clearly_or_resolves(args):
    try:
        spec = parse_spec(SharedNodePoolArgs, args, "SharedNodePool 'p'")
    except SpecError as exc:
        _located(exc)
        return
    pool = resolve_shared_pool(spec, "p")
    description = describe_shared_pool(pool)
    assert description.total_gpus == pool.accelerators_per_node * spec.size
    assert pool.labels["nodepools.dev/shared-pool"] == "true"
    if spec.shape.startswith("BM."):
        assert spec.boot_volume_gb is not None
    assert (spec.ocpus is not None) == spec.shape.endswith(".Flex")
