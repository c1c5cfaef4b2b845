"""Every OCM machine-pool rule, checked by the pool components before anything registers."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.backends.rosa.request_body import POOL_ID_PATTERN
from nodepools.offline import ProgramError, run
from nodepools.specs import SpecError
from nodepools.specs.pools.names import POOL_NAME_PATTERN

ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
MULTI_AZ = {**ROSA, "multi_az": True}
MACHINE_POOL = "pulumi-python:dynamic/ocm:MachinePool"


def machine_pool(name: str = "batch", **fields: Any) -> dict[str, Any]:
    return {"cluster": ROSA, "instance_type": "m5.2xlarge", "replicas": 3, **fields}


def rejected(component: type, name: str, args: dict[str, Any]) -> SpecError:
    """The SpecError the component raised; asserts that nothing at all was registered."""
    with pytest.raises(ProgramError) as failure:
        run(lambda: component(name, args))
    assert failure.value.capture.resources == []
    assert isinstance(failure.value.cause, SpecError)
    return failure.value.cause


def registered_body(component: type, name: str, args: dict[str, Any]) -> dict[str, Any]:
    capture = run(lambda: component(name, args))
    [pool] = capture.by_type(MACHINE_POOL)
    return pool.inputs["body"]


def messages(error: SpecError) -> dict[str, str]:
    return {issue.path: issue.message for issue in error.issues}


# -- pool id ----------------------------------------------------------------------------


def test_the_pool_name_rule_is_the_ocm_pool_id_pattern():
    assert POOL_NAME_PATTERN.pattern == POOL_ID_PATTERN.pattern == "^[a-z]([-a-z0-9]*[a-z0-9])?$"


@pytest.mark.parametrize("pool_name", ["ML_training", "1gpu", "gpu-", "a" * 64, "gpu.pool"])
def test_pool_name_must_be_an_ocm_pool_id(pool_name):
    error = rejected(MachinePool, "batch", machine_pool(pool_name=pool_name))

    assert messages(error) == {
        "pool_name": f"{pool_name!r} is not a valid pool name: 1 to 63 lowercase letters, "
        "digits and '-', starting with a letter and ending with a letter or digit"
    }


def test_the_component_name_is_the_pool_id_by_default():
    error = rejected(MachinePool, "Batch", machine_pool())

    assert error.paths() == ["pool_name"]
    assert "'Batch' is not a valid pool name" in error.issues[0].message
    assert "the component name is used when `pool_name` is unset" in error.issues[0].message


def test_a_valid_pool_id_is_the_body_id():
    assert registered_body(MachinePool, "Batch", machine_pool(pool_name="batch-2"))["id"] == (
        "batch-2"
    )


# -- replicas xor autoscaling ------------------------------------------------------------


def test_replicas_and_autoscaling_are_exclusive():
    args = machine_pool(autoscaling={"min_replicas": 0, "max_replicas": 3})

    assert messages(rejected(MachinePool, "batch", args)) == {
        "autoscaling": "only one of `replicas` or `autoscaling` can be provided"
    }


def test_a_machine_pool_needs_replicas_or_autoscaling():
    args = machine_pool()
    del args["replicas"]

    assert messages(rejected(MachinePool, "batch", args)) == {
        "autoscaling": "one of `replicas` or `autoscaling` is required"
    }


# -- multiples of 3 on multi-AZ clusters -------------------------------------------------

WHY = (
    "must be a multiple of 3 for ROSA Classic machine pools: a multi-AZ cluster spreads "
    "every machine pool evenly over its 3 availability zones"
)


def test_multi_az_replicas_are_multiples_of_3():
    error = rejected(MachinePool, "batch", machine_pool(cluster=MULTI_AZ, replicas=2))

    assert messages(error) == {"replicas": f"2 {WHY}"}


def test_multi_az_autoscaling_bounds_are_multiples_of_3_each_at_its_path():
    args = machine_pool(cluster=MULTI_AZ, autoscaling={"min_replicas": 1, "max_replicas": 4})
    del args["replicas"]

    assert messages(rejected(MachinePool, "batch", args)) == {
        "autoscaling.min_replicas": f"1 {WHY}",
        "autoscaling.max_replicas": f"4 {WHY}",
    }


def test_multi_az_max_alone_can_be_wrong():
    args = {"cluster": MULTI_AZ, "instance_type": "p3.2xlarge"}
    args["autoscaling"] = {"min_replicas": 3, "max_replicas": 7}

    assert messages(rejected(GpuSpotPool, "gpu", args)) == {"autoscaling.max_replicas": f"7 {WHY}"}


def test_multiples_of_3_are_reported_with_every_other_problem():
    args = machine_pool(cluster=MULTI_AZ, replicas=4, boot_volume_gb=64, labels={"a b": "c"})

    assert set(rejected(MachinePool, "batch", args).paths()) == {
        "replicas",
        "boot_volume_gb",
        'labels["a b"]',
    }


@pytest.mark.parametrize(
    ("component", "name", "args", "expected"),
    [
        (MachinePool, "batch", machine_pool(cluster=MULTI_AZ, replicas=6), {"replicas": 6}),
        (MachinePool, "batch", machine_pool(cluster=MULTI_AZ, replicas=0), {"replicas": 0}),
        # GpuSpotPool's default autoscaling (0..3) fits a multi-AZ cluster as it is.
        (
            GpuSpotPool,
            "gpu",
            {"cluster": MULTI_AZ, "instance_type": "p3.2xlarge"},
            {"autoscaling": {"min_replicas": 0, "max_replicas": 3}},
        ),
        # Single-AZ clusters take any count.
        (MachinePool, "batch", machine_pool(replicas=2), {"replicas": 2}),
    ],
)
def test_counts_that_fit_are_registered(component, name, args, expected):
    body = registered_body(component, name, args)

    assert {key: body[key] for key in expected} == expected


# -- root volume -------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 127, 16385])
def test_root_volume_is_128_to_16384_gib(size):
    error = rejected(MachinePool, "batch", machine_pool(boot_volume_gb=size))

    assert messages(error) == {
        "boot_volume_gb": f"{size} is outside 128..16384 GiB for ROSA Classic machine pools"
    }


@pytest.mark.parametrize("size", [128, 16384])
def test_root_volume_bounds_are_inclusive(size):
    body = registered_body(MachinePool, "batch", machine_pool(boot_volume_gb=size))

    assert body["root_volume"] == {"aws": {"size": size}}


# -- spot max price ----------------------------------------------------------------------


@pytest.mark.parametrize("price", [0, -0.5])
def test_spot_max_price_is_positive(price):
    error = rejected(MachinePool, "batch", machine_pool(spot={"max_price": price}))

    assert messages(error) == {"spot.max_price": f"input should be greater than 0 (got {price})"}


def test_a_max_price_only_exists_with_spot():
    # `max_price` is a field of `spot`: a price without spot capacity has nowhere to go.
    error = rejected(MachinePool, "batch", machine_pool(max_price=0.5))

    assert messages(error) == {"max_price": "unknown field (got 0.5)"}


def test_gpu_spot_pools_take_a_max_price_on_rosa():
    args = {"cluster": ROSA, "instance_type": "p3.2xlarge", "spot": {"max_price": 0.9}}

    assert registered_body(GpuSpotPool, "gpu", args)["aws"] == {
        "spot_market_options": {"max_price": 0.9}
    }


def test_a_max_price_is_still_refused_where_the_cloud_cannot_cap_it():
    eks = {
        "kind": "eks",
        "cluster_name": "ml",
        "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
        "subnet_ids": ["subnet-1"],
    }
    error = rejected(MachinePool, "batch", machine_pool(cluster=eks, spot={"max_price": 0.5}))

    assert error.paths() == ["spot.max_price"]


# -- taints ------------------------------------------------------------------------------


def test_taint_effects_are_kubernetes_effects():
    args = machine_pool(taints=[{"key": "gpu", "value": "true", "effect": "NO_SCHEDULE"}])

    error = rejected(MachinePool, "batch", args)

    assert error.paths() == ["taints[0].effect"]
    assert "'NO_SCHEDULE'" in error.issues[0].message


def test_taint_strings_with_a_bad_effect_are_rejected_too():
    error = rejected(MachinePool, "batch", machine_pool(taints=["gpu=true:NoScheduel"]))

    assert error.paths() == ["taints[0].effect"]
    assert "'NoScheduel'" in error.issues[0].message
