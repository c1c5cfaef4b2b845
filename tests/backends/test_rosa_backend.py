"""MachinePool and GpuSpotPool on ROSA: the OCM body, the child resource, and the token's path.

The token travels: stack code or config -> `RosaCluster.token` (a SecretStr, or an Output)
-> the `token` input of the `OcmMachinePool` child (registered as a secret) -> the dynamic
provider (which receives it plain, in its own process). Each hop is checked here.
"""

from __future__ import annotations

import base64
from typing import Any

import pulumi
import pytest
from nodepools import GpuSpotPool, MachinePool, RosaCluster
from nodepools.backends import BACKEND_MODULES, backend_for
from nodepools.backends.rosa.machine_pool import (
    OcmMachinePool,
    OcmMachinePoolProvider,
    machine_pool_body,
)
from nodepools.offline import COMPUTED_OUTPUTS, run
from nodepools.planning.policy_section import policy_inputs
from nodepools.planning.sections import KEY_INPUTS
from nodepools.policies.resources import ROSA_MACHINE_POOL_TYPE
from nodepools.policies.runner import run_policies
from nodepools.specs import (
    GpuSpotPoolArgs,
    MachinePoolArgs,
    ResolvedPool,
    SpecError,
    parse_spec,
    resolve_gpu_spot_pool,
    resolve_pool,
)

from tests.backends.ocm_testing import MULTI_AZ, OFFLINE_TOKEN, SINGLE_AZ
from tests.capture_testing import leaks
from tests.fake_ocm import FakeOcm
from tests.golden import assert_golden

OCM_POOL = "pulumi-python:dynamic/ocm:MachinePool"
CLUSTER_ID = "2a8lld2m7drto9rj0c6umn9tb4d6f291"


def rosa(**fields: Any) -> dict[str, Any]:
    return {"kind": "rosa", "cluster_id": CLUSTER_ID, **fields}


def batch_workers_args(**cluster: Any) -> dict[str, Any]:
    """The seed's additional pool."""
    return {
        "cluster": rosa(**cluster),
        "instance_type": "m5.2xlarge",
        "autoscaling": {"min_replicas": 2, "max_replicas": 10},
        "labels": {"workload-type": "batch", "team": "data-engineering"},
        "taints": ["workload-type=batch:NoSchedule"],
    }


def ml_training_args(**cluster: Any) -> dict[str, Any]:
    """The seed's GPU spot pool."""
    return {
        "cluster": rosa(**cluster),
        "instance_type": "p3.2xlarge",
        "autoscaling": {"min_replicas": 0, "max_replicas": 5},
        "boot_volume_gb": 500,
        "labels": {"ml-framework": "pytorch"},
    }


def machine_pool(name: str, args: dict[str, Any]) -> ResolvedPool:
    return resolve_pool(parse_spec(MachinePoolArgs, args, name), name)


def gpu_spot_pool(name: str, args: dict[str, Any]) -> ResolvedPool:
    return resolve_gpu_spot_pool(parse_spec(GpuSpotPoolArgs, args, name), name)


def seed_pools(**cluster: Any) -> None:
    MachinePool("batch-workers", batch_workers_args(**cluster))
    GpuSpotPool("ml-training", ml_training_args(**cluster))


# -- the body ----------------------------------------------------------------------------


def test_batch_workers_body():
    assert_golden(
        "rosa/batch-workers.json",
        machine_pool_body(machine_pool("batch-workers", batch_workers_args())),
    )


def test_ml_training_body():
    assert_golden(
        "rosa/ml-training.json", machine_pool_body(gpu_spot_pool("ml-training", ml_training_args()))
    )


def test_fixed_capped_multi_az_body():
    args = {
        "cluster": rosa(multi_az=True),
        "instance_type": "g5.12xlarge",
        "replicas": 6,
        "spot": {"max_price": 4.5},
        "taints": ["dedicated:NoExecute"],
        "boot_volume_gb": 1024,
        "pool_name": "inference",
    }
    assert_golden(
        "rosa/inference-fixed-capped.json", machine_pool_body(gpu_spot_pool("infer", args))
    )


def test_the_body_does_not_depend_on_the_order_labels_and_taints_were_given():
    args = batch_workers_args()
    args["labels"] = {"team": "data-engineering", "workload-type": "batch", "a": "1"}
    args["taints"] = ["z=1:NoExecute", "workload-type=batch:NoSchedule", "a:PreferNoSchedule"]
    reordered = {
        **args,
        "labels": dict(reversed(list(args["labels"].items()))),
        "taints": list(reversed(args["taints"])),
    }

    first = machine_pool_body(machine_pool("batch-workers", args))
    second = machine_pool_body(machine_pool("batch-workers", reordered))

    assert repr(first) == repr(second)  # same keys in the same order, not merely equal
    assert [t["key"] for t in first["taints"]] == ["a", "workload-type", "z"]
    assert first["taints"][0] == {"key": "a", "effect": "PreferNoSchedule"}


def test_a_pool_that_bypassed_the_spec_is_still_refused_before_registration():
    pool = machine_pool("batch", {**batch_workers_args(), "autoscaling": None, "replicas": 3})
    cluster = RosaCluster.model_validate(rosa(multi_az=True))
    # As if built with model_construct, or by a component that forgot a rule.
    bypassed = ResolvedPool(**{**pool.__dict__, "cluster": cluster, "min_nodes": 2, "max_nodes": 2})

    with pytest.raises(SpecError) as error:
        machine_pool_body(bypassed)

    assert error.value.paths() == ["body.replicas"]
    assert "2 must be a multiple of 3" in error.value.issues[0].message


# -- the component ----------------------------------------------------------------------


def test_rosa_is_a_registered_backend():
    assert BACKEND_MODULES["rosa"] == "nodepools.backends.rosa.machine_pool"
    assert backend_for("rosa").build_pool is not None


def test_each_pool_has_one_ocm_machine_pool_child():
    capture = run(seed_pools)

    for component_type, name in (
        ("nodepools:index:MachinePool", "batch-workers"),
        ("nodepools:index:GpuSpotPool", "ml-training"),
    ):
        component = capture.get(component_type, name)
        children = {(r.type, r.name) for r in capture.children(component.urn)}
        assert children == {(OCM_POOL, f"{name}-machine-pool")}
        assert capture.outputs_of(component)["pool_id"] == name
        assert capture.outputs_of(component)["pool_name"] == name


def test_registered_inputs_carry_the_body_and_the_cluster():
    capture = run(lambda: seed_pools(multi_az=False, api_url="https://api.stage.openshift.com"))

    pool = capture.get(OCM_POOL, "ml-training-machine-pool")
    expected = machine_pool_body(gpu_spot_pool("ml-training", ml_training_args()))
    assert pool.inputs["body"] == expected
    assert pool.inputs["cluster_id"] == CLUSTER_ID
    assert pool.inputs["multi_az"] is False
    assert pool.inputs["api_url"] == "https://api.stage.openshift.com"
    assert pool.inputs["resource_type"] == "ocm:clusters_mgmt/v1:MachinePool"


def test_the_same_program_twice_registers_identical_inputs():
    def registered() -> list[tuple[str, str, str]]:
        capture = run(seed_pools)
        return sorted((r.type, r.name, repr(r.inputs)) for r in capture.resources)

    assert registered() == registered()


def test_type_tokens_agree_everywhere():
    """The type OcmMachinePool registers under is the one the plan, mocks and policies use."""
    capture = run(seed_pools)

    registered = {r.type for r in capture.custom_resources()}
    assert registered == {OCM_POOL}
    assert OCM_POOL == ROSA_MACHINE_POOL_TYPE
    assert OCM_POOL in KEY_INPUTS and OCM_POOL in COMPUTED_OUTPUTS


# -- the token ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token_source",
    [
        pytest.param(lambda: OFFLINE_TOKEN, id="plain-string"),
        pytest.param(lambda: pulumi.Output.secret(OFFLINE_TOKEN), id="secret-output"),
        pytest.param(lambda: pulumi.Output.from_input(OFFLINE_TOKEN), id="plain-output"),
    ],
)
def test_the_token_is_registered_only_as_a_secret(token_source):
    def program() -> None:
        seed_pools(token=token_source())
        pulumi.export("pools", ["batch-workers", "ml-training"])

    capture = run(program)

    assert leaks(capture, OFFLINE_TOKEN) == []
    for resource in capture.by_type(OCM_POOL):
        assert resource.inputs["token"] == OFFLINE_TOKEN  # the engine gets it, as a secret
        assert "token" in resource.secret_paths
        assert resource.options["additionalSecretOutputs"] == ["token"]
        provider = base64.b64decode(resource.inputs["__provider"])
        assert OFFLINE_TOKEN.encode() not in provider
    for component in capture.components():
        assert "token" not in repr(component.inputs)


def test_without_a_token_none_is_registered():
    capture = run(seed_pools)

    for resource in capture.by_type(OCM_POOL):
        assert resource.inputs.get("token") is None
        assert "token" not in resource.secret_paths


def test_a_config_token_flows_to_the_provider_and_creates_the_pool(
    fake_ocm: FakeOcm, client_options: dict[str, Any]
):
    """Secret config -> RosaCluster -> registered input -> provider -> OCM, end to end."""

    def program() -> None:
        token = pulumi.Config("nodepools").require_secret("ocmToken")
        cluster = rosa(
            cluster_id=SINGLE_AZ, api_url=fake_ocm.api_url, sso_url=fake_ocm.sso_url, token=token
        )
        MachinePool("batch-workers", {**batch_workers_args(), "cluster": cluster})

    capture = run(program, config={"ocmToken": OFFLINE_TOKEN})
    [registered] = capture.by_type(OCM_POOL)
    assert "token" in registered.secret_paths
    # What the engine would hand the provider: the inputs, secrets unwrapped, no __provider.
    news = {k: v for k, v in registered.inputs.items() if not k.startswith("__")}

    provider = OcmMachinePoolProvider(client_options)
    checked = provider.check({}, news)
    assert checked.failures == []
    created = provider.create(checked.inputs)

    assert created.id == f"{SINGLE_AZ},batch-workers"
    live = fake_ocm.pools(SINGLE_AZ)["batch-workers"]
    assert live["autoscaling"] == {"min_replicas": 2, "max_replicas": 10}
    assert live["labels"] == registered.inputs["body"]["labels"]
    assert live["taints"] == [{"key": "workload-type", "value": "batch", "effect": "NoSchedule"}]


def test_registered_inputs_pass_the_providers_own_check_on_a_multi_az_cluster():
    def program() -> None:
        args = ml_training_args(cluster_id=MULTI_AZ, multi_az=True)
        GpuSpotPool("ml-training", {**args, "autoscaling": {"min_replicas": 0, "max_replicas": 6}})

    [registered] = run(program).by_type(OCM_POOL)
    news = {k: v for k, v in registered.inputs.items() if not k.startswith("__")}

    assert OcmMachinePoolProvider().check({}, news).failures == []


# -- policies on what the backend registers ------------------------------------------------


def test_the_policy_pack_flags_a_hand_built_multi_az_pool_of_2():
    def program() -> None:
        body = {"id": "gpu", "instance_type": "m5.xlarge", "replicas": 2}
        OcmMachinePool("gpu", {"cluster_id": MULTI_AZ, "body": body, "multi_az": True})

    capture = run(program)
    violations = run_policies(policy_inputs(capture))

    [violation] = [v for v in violations if v.policy_name == "rosa-multi-az-replicas"]
    assert violation.enforcement_level.value == "mandatory"
    assert violation.urn == capture.get(OCM_POOL, "gpu").urn
    assert "`body.replicas` must be a multiple of 3; got 2" in violation.message


def test_the_policy_pack_passes_pools_the_components_built_on_a_multi_az_cluster():
    def program() -> None:
        MachinePool(
            "batch-workers",
            {
                **batch_workers_args(multi_az=True),
                "autoscaling": {"min_replicas": 3, "max_replicas": 9},
            },
        )

    violations = run_policies(policy_inputs(run(program)))

    assert [v for v in violations if v.enforcement_level.value == "mandatory"] == []
