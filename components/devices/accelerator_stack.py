"""AcceleratorStack: the device plugins / GPU Operator that make accelerator pools usable.

A GPU pool is only useful when pods asking for `nvidia.com/gpu`, `amd.com/gpu` or
`aws.amazon.com/neuron` get scheduled there, which needs a device plugin running on its
nodes, tolerating the pool's taints. This component installs, per vendor found among the
pools' accelerators, the pinned chart (NVIDIA GPU Operator or device plugin, ROCm `amd-gpu`,
Neuron) with tolerations for every taint of the served pools.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.outputs import known_output
from nodepools.preflight import checked
from nodepools.specs.accelerator_stack import (
    AcceleratorStackArgs,
    Advertised,
    advertised,
    plan_releases,
)
from nodepools.specs.base import parse_spec


@documented(AcceleratorStackArgs)
class AcceleratorStack(pulumi.ComponentResource):
    """Device software for a set of pools. Outputs: `releases` (release names), `namespaces`,
    `advertised` (per pool: resource and count one node advertises after MIG/time slicing)."""

    TYPE = "nodepools:index:AcceleratorStack"

    releases: pulumi.Output[list[str]]
    namespaces: pulumi.Output[list[str]]
    advertised: pulumi.Output[dict[str, dict[str, Any]]]

    @classmethod
    def preflight(cls, name: str, args: Any) -> AcceleratorStackArgs:
        return parse_spec(AcceleratorStackArgs, args, f"AcceleratorStack {name!r}")

    @staticmethod
    def served(pools: Sequence[Any]) -> list[dict[str, Any]]:
        """`pools` entries for pool components (MachinePool, GpuSpotPool, KarpenterNodePool...)."""
        out: list[dict[str, Any]] = []
        for pool in pools:
            resolved = pool.resolved
            out.append(
                {
                    "name": resolved.pool_name,
                    "accelerator": resolved.accelerator,
                    "taints": list(resolved.taints),
                }
            )
        return out

    def __init__(self, name: str, args: Any, opts: pulumi.ResourceOptions | None = None):
        spec: AcceleratorStackArgs = checked(self, name, args)
        plans = plan_releases(name, spec)
        self.advertised_by_pool: list[Advertised] = advertised(spec)
        super().__init__(
            self.TYPE, name, {"platform": spec.platform, "charts": [p.chart for p in plans]}, opts
        )
        from nodepools.backends.accelerator_stack import build_releases

        built = build_releases(plans, spec, self)
        self.release_resources = built
        self.releases = known_output([p.name for p in plans])
        self.namespaces = known_output(sorted({p.namespace for p in plans}))
        self.advertised = known_output(
            {
                a.pool: {"software": a.software, "resource": a.resource, "count": a.count}
                for a in self.advertised_by_pool
            }
        )
        self.register_outputs(
            {
                "releases": self.releases,
                "namespaces": self.namespaces,
                "advertised": self.advertised,
            }
        )
