"""Fields that take an Output are checked when the Output resolves, with their paths."""

from __future__ import annotations

import pulumi
import pytest
from nodepools import GpuSpotPool, MachinePool
from nodepools.offline import ProgramError, run

from tests.conftest import EKS, OKE
from tests.engines.mocks import run_on
from tests.specs.spec_models import spec_models


def _failure(program) -> str:
    with pytest.raises(ProgramError) as caught:
        run(program)
    return str(caught.value.cause)


def test_an_output_resolving_to_a_bad_role_arn_fails_with_its_path():
    def program():
        arn = pulumi.Output.from_input("not-an-arn")
        GpuSpotPool("gpu", {"cluster": {**EKS, "node_role_arn": arn}, "instance_type": "g5.xlarge"})

    message = _failure(program)
    assert "GpuSpotPool 'gpu' (a value known only at deploy time) is invalid" in message
    assert "`cluster.node_role_arn`: 'not-an-arn' is not an IAM role ARN" in message


def test_outputs_inside_lists_and_nested_models_are_checked_too():
    def empty_subnets():
        subnets = pulumi.Output.from_input([])
        MachinePool(
            "a",
            {"cluster": {**EKS, "subnet_ids": subnets}, "instance_type": "m5.large", "replicas": 1},
        )

    assert "`cluster.subnet_ids`: needs at least one subnet id (got [])" in _failure(empty_subnets)

    def bad_subnet_in_a_placement():
        placement = {**OKE["placements"][0], "subnet_id": pulumi.Output.from_input(7)}
        MachinePool(
            "b",
            {
                "cluster": {**OKE, "placements": [placement]},
                "instance_type": "VM.GPU.A10.1",
                "replicas": 1,
            },
        )

    message = _failure(bad_subnet_in_a_placement)
    assert "`cluster.placements[0].subnet_id`" in message


def test_good_unknown_and_unmodelled_outputs_pass():
    def program():
        arn = pulumi.Output.from_input("arn:aws:iam::123456789012:role/from-output")
        GpuSpotPool("gpu", {"cluster": {**EKS, "node_role_arn": arn}, "instance_type": "g5.xlarge"})

    group = run(program).get("aws:eks/nodeGroup:NodeGroup", "gpu-node-group")
    assert group.inputs["nodeRoleArn"] == "arn:aws:iam::123456789012:role/from-output"
    # Under a preview the role's ARN is unknown; under a user's plain mocks it is None.
    from tests.engines.components import gpu_spot_pool_eks_wired

    for engine in ("preview", "plain"):
        run_on(engine, gpu_spot_pool_eks_wired)


def test_only_fields_of_plain_types_are_skipped_when_looking_for_outputs():
    """The fields left out of the scan (per model class) are those whose validated value
    can't hold an Output or a model: every wired field, and every field whose type names a
    model or allows anything, is scanned."""
    import typing

    from nodepools.specs.core.deferred_checks import _plain_type, _reaching_fields, is_wired
    from pydantic import BaseModel

    def names_a_model(annotation) -> bool:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return True
        return any(names_a_model(arg) for arg in typing.get_args(annotation))

    models = spec_models()
    assert len(models) > 40
    skipped = 0
    for model in models:
        reaching = set(_reaching_fields(model))
        for name, info in model.model_fields.items():
            if is_wired(info) or names_a_model(info.annotation) or info.annotation is typing.Any:
                assert name in reaching, f"{model.__name__}.{name}"
            if name not in reaching:
                skipped += 1
                assert _plain_type(info.annotation), f"{model.__name__}.{name}"
    assert skipped  # the point of the cache


def test_a_plain_type_is_one_that_holds_only_scalars():
    from typing import Any, Literal

    from nodepools.specs.core.deferred_checks import _plain_type
    from nodepools.specs.core.scaling import Scaling

    assert _plain_type(str | None)
    assert _plain_type(dict[str, list[int]])
    assert _plain_type(tuple[str, ...])
    assert _plain_type(Literal["a", "b"])
    assert not _plain_type(Any)
    assert not _plain_type(object)
    assert not _plain_type(Scaling | None)
    assert not _plain_type(dict[str, Any])
    assert not _plain_type(list[Scaling])
