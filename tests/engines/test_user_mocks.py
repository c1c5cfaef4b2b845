"""A user's own unit test, written the way Pulumi's testing guide shows it."""

from __future__ import annotations

import pulumi

from tests.conftest import EKS
from tests.engines.mocks import PlainMocks


def test_an_autoscaled_eks_pool_under_set_mocks_and_runtime_test():
    # Exactly what a user does: set_mocks with outputs = inputs, then @pulumi.runtime.test.
    # The old backend indexed `resources[0]` (absent here) and failed with a TypeError.
    pulumi.runtime.set_mocks(PlainMocks(), preview=False)
    from nodepools import GpuSpotPool

    @pulumi.runtime.test
    def check():
        pool = GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g4dn.xlarge"})

        def verify(args):
            name, info = args
            assert name == "gpu"
            assert info["resources"]["limits"] == {"nvidia.com/gpu": 1}

        return pulumi.Output.all(pool.pool_name, pool.scheduling_info).apply(verify)

    check()
