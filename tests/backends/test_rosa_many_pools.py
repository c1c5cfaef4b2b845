"""Hundreds of ROSA pools in one process: the dynamic provider's serialization stays flat."""

from __future__ import annotations

import pickle

from nodepools import MachinePool
from nodepools.offline import run

ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
# The SDK's pickler patch used to pile up once per dynamic resource and overflow the
# interpreter's stack at about 500 of them.
POOLS = 600


def _pools(count: int) -> None:
    for i in range(count):
        MachinePool(f"pool-{i}", {"cluster": ROSA, "instance_type": "m5.2xlarge", "replicas": 1})


def test_serializing_the_provider_leaves_the_pickler_as_found():
    before = (pickle._Pickler._batch_setitems, pickle._Pickler.save_dict)
    capture = run(lambda: _pools(3))
    assert (pickle._Pickler._batch_setitems, pickle._Pickler.save_dict) == before
    providers = {r.inputs["__provider"] for r in capture.custom_resources()}
    assert len(providers) == 1  # the same serialized provider every time


def test_six_hundred_rosa_pools_plan_in_one_process():
    capture = run(lambda: _pools(POOLS))
    assert len(capture.custom_resources()) == POOLS
