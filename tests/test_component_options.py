"""A wrong `opts` is an error naming the option and quoting the value, raised before anything
is registered, not Pulumi's AttributeError from deep in registration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest
from nodepools import AcceleratorStack, KarpenterNodePool, MachinePool, SpecError
from nodepools.offline import ProgramError, run

from tests.conftest import EKS
from tests.engines.components import KARPENTER_GPU

BUILD: dict[str, Callable[[Any], Any]] = {
    "MachinePool": lambda opts: MachinePool(
        "cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1}, opts
    ),
    "KarpenterNodePool": lambda opts: KarpenterNodePool("gpu", KARPENTER_GPU, opts),
    "AcceleratorStack": lambda opts: AcceleratorStack(
        "software",
        {
            "platform": "generic",
            "pools": [{"name": "a", "accelerator": {"resource": "nvidia.com/gpu", "count": 1}}],
        },
        opts,
    ),
}


@pytest.mark.parametrize("component", sorted(BUILD))
@pytest.mark.parametrize(
    ("opts", "path"),
    [
        (pulumi.ResourceOptions(provider="aws-west"), "opts.provider"),  # type: ignore[arg-type]
        (pulumi.ResourceOptions(providers=["aws-west"]), "opts.providers[0]"),  # type: ignore[list-item]
        (pulumi.ResourceOptions(parent="root"), "opts.parent"),  # type: ignore[arg-type]
        ({"provider": "x"}, "opts"),
    ],
)
def test_a_wrong_option_is_an_error_naming_it(component: str, opts: Any, path: str):
    with pytest.raises(ProgramError) as info:
        run(lambda: BUILD[component](opts))
    assert info.value.capture.resources == []
    error = info.value.cause
    assert isinstance(error, SpecError), repr(error)
    assert error.paths() == [path]
    assert "is not" in str(error)
