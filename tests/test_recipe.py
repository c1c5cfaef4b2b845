"""Recipe: the Deployment and Service it registers, its placement, and its argument errors."""

from __future__ import annotations

import pytest
from nodepools import Recipe, SharedNodePool, SpecError
from nodepools.offline import ProgramError, run
from nodepools.policies.runner import PolicyResourceInput, run_policies

from tests.golden import assert_golden

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
SERVICE = "kubernetes:core/v1:Service"
TYPE = "nodepools:index:Recipe"
MI300X = "BM.GPU.MI300X.8"

OKE = {
    "kind": "oke",
    "cluster_id": "ocid1.cluster.oc1.iad.example",
    "compartment_id": "ocid1.compartment.oc1..example",
    "image_id": "ocid1.image.oc1.iad.example",
    "placements": [
        {"availability_domain": "Uocm:US-ASHBURN-AD-1", "subnet_id": "ocid1.subnet.oc1.iad.a"}
    ],
}
POOL_ARGS = {"cluster": OKE, "shape": MI300X, "size": 1, "boot_volume_gb": 500}
ECHO = {
    "image": "hashicorp/http-echo",
    "args": ["-text=corrino"],
    "port": 5678,
    "replicas": 2,
    "node_shape": MI300X,
    "shared_pool_selector": "selector_1",
}


def described(name: str, selector: str | None = None, size: int = 1, **extra) -> dict:
    return {"name": name, "shape": MI300X, "size": size, "selector": selector, **extra}


def pod_spec(capture, name: str) -> dict:
    return capture.get(DEPLOYMENT, f"{name}-deployment").inputs["spec"]["template"]["spec"]


def outputs(capture, name: str) -> dict:
    return capture.outputs_of(capture.get(TYPE, name))


def registered(capture) -> list:
    # Registrations race on the engine's threads: compare them in a stable order.
    return sorted(((r.type, r.name, r.inputs) for r in capture.resources), key=lambda x: x[:2])


def spec_error(program) -> SpecError:
    with pytest.raises(ProgramError) as caught:
        run(program)
    assert isinstance(caught.value.cause, SpecError)
    return caught.value.cause


def test_echo_on_its_selector_pool_golden():
    def program():
        pool = SharedNodePool("mi300x-a", {**POOL_ARGS, "selector": "selector_1"})
        Recipe("echo", {**ECHO, "pools": [pool]})

    capture = run(program)
    deployment = capture.get(DEPLOYMENT, "echo-deployment")
    service = capture.get(SERVICE, "echo-service")
    assert_golden("recipe/echo_deployment.json", deployment.inputs)
    assert_golden("recipe/echo_service.json", service.inputs)
    assert_golden("recipe/echo_outputs.json", outputs(capture, "echo"))

    spec = pod_spec(capture, "echo")
    assert spec["nodeSelector"] == {"nodepools.dev/pool": "mi300x-a"}
    assert spec["tolerations"] == [
        {"key": "amd.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    ]
    [container] = spec["containers"]
    assert container["resources"] == {
        "requests": {"amd.com/gpu": "1"},
        "limits": {"amd.com/gpu": "1"},
    }
    assert container["args"] == ["-text=corrino"]
    assert container["ports"] == [{"containerPort": 5678, "protocol": "TCP"}]
    assert deployment.inputs["spec"]["replicas"] == 2
    assert service.inputs["spec"]["ports"] == [
        {"port": 5678, "targetPort": 5678, "protocol": "TCP"}
    ]
    assert service.inputs["spec"]["selector"] == {"nodepools.dev/recipe": "echo"}


def test_outputs_are_exactly_the_documented_ones():
    capture = run(lambda: Recipe("echo", {**ECHO, "pools": [described("p", "selector_1")]}))
    assert outputs(capture, "echo") == {
        "placement": "p",
        "status": "placed",
        "deployment_name": "echo",
        "service_name": "echo",
        "scheduling_info": {
            "nodeSelector": {"nodepools.dev/pool": "p"},
            "tolerations": [
                {"key": "amd.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
            ],
            "resources": {"limits": {"amd.com/gpu": 1}},
        },
    }


def test_gpus_cpu_memory_and_env_reach_the_container():
    args = {
        "image": "rocm/pytorch:latest",
        "command": ["python", "train.py"],
        "env": {"NCCL_DEBUG": "INFO", "HIP_VISIBLE": "all"},
        "gpus": 4,
        "cpu": 32,
        "memory": "256Gi",
        "node_shape": MI300X,
        "pools": [described("p")],
    }
    capture = run(lambda: Recipe("train", args))
    [container] = pod_spec(capture, "train")["containers"]
    assert container["command"] == ["python", "train.py"]
    assert container["env"] == [
        {"name": "HIP_VISIBLE", "value": "all"},
        {"name": "NCCL_DEBUG", "value": "INFO"},
    ]
    assert container["resources"] == {
        "requests": {"amd.com/gpu": "4", "cpu": "32", "memory": "256Gi"},
        "limits": {"amd.com/gpu": "4", "memory": "256Gi"},
    }
    deployment = capture.get(DEPLOYMENT, "train-deployment").inputs
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 0, "maxUnavailable": 1}
    assert deployment["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    # No port: no Service.
    assert capture.by_type(SERVICE) == []
    assert "service_name" not in outputs(capture, "train")


def test_a_recipe_that_fits_no_pool_waits_on_its_shape_and_selector():
    capture = run(
        lambda: Recipe(
            "echo",
            {**ECHO, "shared_pool_selector": "selector_2", "pools": [described("p", "selector_1")]},
        )
    )
    assert outputs(capture, "echo")["status"] == "waiting"
    assert outputs(capture, "echo").get("placement") is None
    spec = pod_spec(capture, "echo")
    assert spec["nodeSelector"] == {
        "node.kubernetes.io/instance-type": MI300X,
        "nodepools.dev/pool-selector": "selector_2",
        "nodepools.dev/shared-pool": "true",
    }
    # It tolerates the taint a shared pool of its shape has by default, so its pods start
    # as soon as one exists; and it asks for its accelerators already.
    assert spec["tolerations"] == [
        {"key": "amd.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    ]
    assert spec["containers"][0]["resources"]["limits"] == {"amd.com/gpu": "1"}
    assert_golden(
        "recipe/echo_waiting_deployment.json", capture.get(DEPLOYMENT, "echo-deployment").inputs
    )


def test_a_recipe_with_no_pools_waits():
    capture = run(lambda: Recipe("lonely", {"image": "x", "node_shape": MI300X}))
    assert outputs(capture, "lonely")["status"] == "waiting"
    assert pod_spec(capture, "lonely")["nodeSelector"] == {
        "node.kubernetes.io/instance-type": MI300X,
        "nodepools.dev/shared-pool": "true",
    }


def test_standalone_recipe_takes_the_most_free_pool_then_by_name():
    pools = [described("b"), described("a"), described("c", size=2)]
    capture = run(lambda: Recipe("r", {"image": "x", "node_shape": MI300X, "pools": pools}))
    assert outputs(capture, "r")["placement"] == "c"
    capture = run(lambda: Recipe("r", {"image": "x", "node_shape": MI300X, "pools": pools[:2]}))
    assert outputs(capture, "r")["placement"] == "a"


def test_placement_pins_a_recipe_or_keeps_it_waiting():
    pools = [described("a"), described("b")]
    base = {"image": "x", "node_shape": MI300X, "pools": pools}
    capture = run(lambda: Recipe("r", {**base, "placement": "b"}))
    assert outputs(capture, "r")["placement"] == "b"
    assert pod_spec(capture, "r")["nodeSelector"] == {"nodepools.dev/pool": "b"}
    capture = run(lambda: Recipe("r", {**base, "placement": False}))
    assert outputs(capture, "r")["status"] == "waiting"


def test_a_description_of_a_pool_made_elsewhere_brings_its_own_taints():
    pool = described("ext", taints=["amd.com/gpu=true:NoSchedule", "dedicated=ml:NoExecute"])
    capture = run(lambda: Recipe("r", {"image": "x", "node_shape": MI300X, "pools": [pool]}))
    assert [t["key"] for t in pod_spec(capture, "r")["tolerations"]] == ["amd.com/gpu", "dedicated"]


def test_recipes_never_parent_or_depend_on_pools():
    def program():
        pool = SharedNodePool("mi300x-a", {**POOL_ARGS, "selector": "selector_1"})
        Recipe("echo", {**ECHO, "pools": [pool]})

    capture = run(program)
    pool_urns = {r.urn for r in capture.resources if r.name.startswith("mi300x-a")}
    recipe = capture.get(TYPE, "echo")
    for resource in [recipe, *capture.descendants(recipe.urn)]:
        assert not pool_urns & set(resource.dependencies)
        assert resource.parent not in pool_urns
        assert not any(pool_urns & set(deps) for deps in resource.property_dependencies.values())
    assert {(r.type, r.name) for r in capture.descendants(recipe.urn)} == {
        (DEPLOYMENT, "echo-deployment"),
        (SERVICE, "echo-service"),
    }


def test_a_pool_may_be_created_after_its_recipes():
    # The recipe names a pool by description only; the pool is declared later and the
    # same Deployment results.
    def recipe_first():
        Recipe("echo", {**ECHO, "pools": [described("mi300x-a", "selector_1")]})
        SharedNodePool("mi300x-a", {**POOL_ARGS, "selector": "selector_1"})

    def pool_first():
        pool = SharedNodePool("mi300x-a", {**POOL_ARGS, "selector": "selector_1"})
        Recipe("echo", {**ECHO, "pools": [pool]})

    first, second = run(recipe_first), run(pool_first)
    assert (
        first.get(DEPLOYMENT, "echo-deployment").inputs
        == second.get(DEPLOYMENT, "echo-deployment").inputs
    )


def test_same_recipe_in_another_order_registers_identical_inputs():
    one = {
        **ECHO,
        "env": {"B": "2", "A": "1"},
        "pools": [described("x", "selector_1"), described("y", "selector_1")],
    }
    two = {
        **ECHO,
        "env": {"A": "1", "B": "2"},
        "pools": [described("y", "selector_1"), described("x", "selector_1")],
    }
    first, second = run(lambda: Recipe("echo", one)), run(lambda: Recipe("echo", two))
    assert registered(first) == registered(second)


def test_unshared_recipe_selects_its_shape_only():
    capture = run(
        lambda: Recipe("solo", {"image": "x", "node_shape": MI300X, "use_shared_pool": False})
    )
    assert outputs(capture, "solo")["status"] == "unshared"
    assert pod_spec(capture, "solo")["nodeSelector"] == {"node.kubernetes.io/instance-type": MI300X}


def test_a_replica_asking_more_than_a_node_has_is_rejected_naming_gpus():
    error = spec_error(
        lambda: Recipe(
            "big", {"image": "x", "node_shape": MI300X, "gpus": 16, "pools": [described("p")]}
        )
    )
    assert [(i.path, i.message) for i in error.issues] == [
        (
            "gpus",
            "16 per replica is more than one BM.GPU.MI300X.8 node has (8 amd.com/gpu); a "
            "replica runs on one node",
        )
    ]


def test_nothing_is_registered_when_a_recipe_is_invalid():
    with pytest.raises(ProgramError) as caught:
        run(
            lambda: Recipe(
                "r",
                {
                    "image": "x",
                    "node_shape": MI300X,
                    "gpus": 0,
                    "cpu": "lots",
                    "replicas": -1,
                    "pools": [described("p")],
                    "placement": "q",
                },
            )
        )
    assert caught.value.capture.resources == []
    paths = [issue.path for issue in caught.value.cause.issues]
    assert paths == ["replicas", "gpus", "cpu", "placement"]


def test_a_pin_with_too_little_room_is_rejected():
    error = spec_error(
        lambda: Recipe(
            "r",
            {
                "image": "x",
                "node_shape": MI300X,
                "gpus": 8,
                "replicas": 2,
                "pools": [described("p")],
                "placement": "p",
            },
        )
    )
    assert [(i.path, i.message) for i in error.issues] == [
        ("placement", "'p' has 8 accelerators in all; the recipe needs 16 (2 x 8)")
    ]


def test_the_name_must_name_kubernetes_objects():
    error = spec_error(lambda: Recipe("Echo Seattle", {"image": "x", "node_shape": MI300X}))
    assert [issue.path for issue in error.issues] == ["name"]
    assert "'Echo Seattle' is not a valid recipe name" in error.issues[0].message


def test_placed_and_waiting_recipes_satisfy_the_policy_pack():
    def program():
        pool = SharedNodePool("mi300x-a", {**POOL_ARGS, "selector": "selector_1"})
        Recipe("echo", {**ECHO, "pools": [pool]})
        Recipe("later", {**ECHO, "shared_pool_selector": "selector_2", "pools": [pool]})

    capture = run(program)
    resources = [
        PolicyResourceInput(r.urn, r.type, r.name, r.inputs, r.parent, dependencies=r.dependencies)
        for r in capture.resources
    ]
    assert run_policies(resources) == []
