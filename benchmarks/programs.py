"""What the benchmarks measure, shared by the timed benchmarks and the instruction counts.

`bench_fleet` and `bench_import` time these; `instructions` counts them under callgrind.
Both import this module (and `floors`), never each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# The fleet of the plan targets: pools of these kinds in one program, as a user runs them.
MIXED_KINDS = (
    "EKS MachinePool",
    "EKS GpuSpotPool",
    "OKE MachinePool",
    "OKE GpuSpotPool",
    "KarpenterNodePool",
)
MIXED_POOLS = 120

IMPORT = "import nodepools"

# First use: the import, then one args model built, so that cost moved from import time to
# first use (lazy imports, deferred model builds) still shows.
FIRST_USE = """\
from nodepools import MachinePool, MachinePoolArgs
MachinePoolArgs(
    cluster={
        "kind": "eks",
        "cluster_name": "ml",
        "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
        "subnet_ids": ["subnet-a"],
    },
    instance_type="g5.xlarge",
    replicas=1,
)
"""


def mixed_fleet(pools: int) -> tuple[dict[str, Any], dict[str, int]]:
    """The fleet config of `pools` pools of the mixed kinds, and the pools of each kind."""
    from .fleet_generator import generate_fleet

    return generate_fleet(pools, only=list(MIXED_KINDS), extras=[])


def plan_program(config: dict[str, Any]) -> Callable[[], None]:
    """The plan of a fleet config as a Pulumi program. The library is imported by the first
    run, as a user's program imports it, so a cold plan pays the library's imports as the
    cold floor pays the provider SDKs'."""

    def program() -> None:
        from nodepools.fleet.deploy import deploy_fleet

        deploy_fleet(config)

    return program
