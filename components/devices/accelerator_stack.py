"""AcceleratorStack: the device plugins / GPU Operator that make accelerator pools usable.

A GPU pool is only useful when pods asking for `nvidia.com/gpu`, `amd.com/gpu` or
`aws.amazon.com/neuron` get scheduled there, which needs a device plugin running on its
nodes, tolerating the pool's taints. This component installs, per vendor found among the
pools' accelerators, the pinned chart (NVIDIA GPU Operator or device plugin, ROCm `amd-gpu`,
Neuron) or, on OKE, OKE's own GPU plugin add-on, tolerating every taint of the served pools.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pulumi
from nodepools.backends.extras import OCI, require
from nodepools.documentation import documented
from nodepools.outputs import known_output
from nodepools.preflight import checked
from nodepools.scheduling import SchedulingInfo
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.devices.advertised_pools import (
    AdvertisedPool,
    advertise_governed,
    advertise_shared,
)
from nodepools.specs.devices.args import AcceleratorStackArgs, node_labels
from nodepools.specs.devices.chart_checks import parse_stack
from nodepools.specs.devices.placement import (
    Advertised,
    advertised,
    advertised_overrides,
    advertised_resource,
    efa_placement,
)
from nodepools.specs.devices.releases import cluster_prerequisites, plan_addons, plan_releases
from nodepools.specs.governance.governed_pool import describe_pool

if TYPE_CHECKING:  # only SharedNodePool's stacks load its specs
    from nodepools.specs.pools.shared import SharedPoolDescription


@documented(AcceleratorStackArgs)
class AcceleratorStack(pulumi.ComponentResource):
    """Device software for a set of pools.

    Children: `<name>-<vendor>` Helm releases (`nvidia`, `amd`, `neuron`: one per vendor,
    serving all its pools; `efa`: the EFA device plugin, when a served pool has EFA) and,
    on OKE, `<name>-<vendor>-addon` add-ons.

    Outputs: `releases` (release names), `addons` (OKE add-on names), `namespaces`,
    `advertised` (per pool: `software`, the `resource` and `count` one node advertises
    after MIG/time slicing, and whether the software's pods `tolerated` its taints and
    `selected` its nodes) and `node_labels` (per pool: the labels its nodes need, e.g.
    `nvidia.com/device-plugin.config`; a fleet adds them to its pools, a program adds them
    to each pool's `labels`: `AcceleratorStack.required_labels(args)` gives them before any
    pool exists; `AcceleratorStack.required_advertised(args)` gives a partitioned pool's
    `advertised`, so its scheduling info and scale-from-zero tags name what a node offers).

    Recipes, quotas and pods of a program count what a pool advertises through
    `stack.shared_pool(pool)` (a Recipe's `pools` entry), `stack.governed_pool(pool)` (a
    PoolQuotas `pools` entry) and `stack.scheduling_for(pool)` (the pool's scheduling info
    in advertised units); a fleet does the first two itself.
    """

    TYPE = "nodepools:index:AcceleratorStack"

    releases: pulumi.Output[list[str]]
    addons: pulumi.Output[list[str]]
    namespaces: pulumi.Output[list[str]]
    advertised: pulumi.Output[dict[str, dict[str, Any]]]
    node_labels: pulumi.Output[dict[str, dict[str, str]]]

    @classmethod
    def preflight(cls, name: str, args: Any) -> AcceleratorStackArgs:
        spec = parse_stack(args, f"AcceleratorStack {name!r}")
        if plan_addons(name, spec):  # OKE's GPU plugin add-ons
            require(OCI, f"AcceleratorStack {name!r}", "an OKE cluster add-on")
        return spec

    @staticmethod
    def required_labels(args: AcceleratorStackArgs | dict[str, Any]) -> dict[str, dict[str, str]]:
        """Pool name -> the labels the stack's software needs on that pool's nodes (pure)."""
        return node_labels(parse_spec(AcceleratorStackArgs, args, "AcceleratorStack"))

    @staticmethod
    def required_advertised(
        args: AcceleratorStackArgs | dict[str, Any],
    ) -> dict[str, dict[str, Any]]:
        """Pool name -> `{resource, count}` one node of it advertises with this stack, for
        pools cut into MIG slices or time-sliced (pure): give it to the pool as its
        `advertised`, so its scheduling info and the EKS cluster-autoscaler node template
        (scale from zero) say what the node will offer."""
        return advertised_overrides(parse_spec(AcceleratorStackArgs, args, "AcceleratorStack"))

    @staticmethod
    def served(pools: Sequence[Any]) -> list[dict[str, Any]]:
        """`pools` entries for pool components (MachinePool, GpuSpotPool, KarpenterNodePool...)."""
        from nodepools.specs.devices.served_pools import served_pool

        return [served_pool(pool.resolved) for pool in pools]

    def _advertised_pool(self, pool_name: str) -> AdvertisedPool | None:
        spec = self.spec
        for served in spec.pools:
            if served.name == pool_name and served.accelerator is not None:
                resource, count = advertised_resource(spec, served)
                return AdvertisedPool(
                    resource, count, served.accelerator.resource, served.accelerator.count
                )
        return None

    def shared_pool(self, pool: Any) -> SharedPoolDescription:
        """A SharedNodePool's description for a Recipe's `pools`, in the resource and count
        its nodes advertise with this stack (MIG slices, time-sliced GPUs)."""
        description: SharedPoolDescription = pool.pool_description
        return advertise_shared(description, self._advertised_pool(description.name))

    def governed_pool(self, pool: Any) -> dict[str, Any]:
        """A pool component's description for PoolQuotas' `pools`, its accelerators counted
        in the resource its nodes advertise with this stack."""
        description = describe_pool(pool)
        if description is None:
            raise TypeError(f"{pool!r} is not a pool component")
        return advertise_governed(description, self._advertised_pool(pool.resolved.pool_name))

    def scheduling_for(self, pool: Any) -> SchedulingInfo:
        """A pool component's scheduling info asking for what its nodes advertise with this
        stack: e.g. `nvidia.com/mig-1g.10gb: 56` instead of `nvidia.com/gpu: 8` on a pool cut
        into MIG slices (a pod asks for a whole node's worth; ask for fewer as you need)."""
        info: SchedulingInfo = pool.scheduling
        adv = self._advertised_pool(pool.resolved.pool_name)
        if adv is None or not adv.changed or adv.hardware_resource not in info.limits:
            return info
        per_unit = adv.count // adv.hardware_count
        limits = {k: v for k, v in info.limits.items() if k != adv.hardware_resource}
        limits[adv.resource] = info.limits[adv.hardware_resource] * per_unit
        return replace(info, limits=dict(sorted(limits.items())))

    def __init__(self, name: str, args: Any, opts: pulumi.ResourceOptions | None = None):
        spec: AcceleratorStackArgs = checked(self, name, args, opts)
        self.spec = spec
        releases = plan_releases(name, spec)
        addons = plan_addons(name, spec)
        self.advertised_by_pool: list[Advertised] = advertised(spec, name)
        advertised_map = {a.pool: a.to_dict() for a in self.advertised_by_pool}
        efa_map = efa_placement(spec, name)
        prerequisites = cluster_prerequisites(spec)
        super().__init__(
            self.TYPE,
            name,
            {
                "platform": spec.platform,
                "charts": [p.chart for p in releases],
                "addons": [a.addon_name for a in addons],
                "advertised": advertised_map,
                **({"efa": efa_map} if efa_map else {}),
                # What the software needs that the stack doesn't install (the plan's
                # "Device software" lists it), e.g. Red Hat's NFD Operator on ROSA.
                **({"prerequisites": prerequisites} if prerequisites else {}),
            },
            opts,
        )
        from nodepools.backends.devices import build_addons, build_releases

        self.release_resources = build_releases(releases, spec, self)
        self.addon_resources = build_addons(addons, spec, self)
        self.releases = known_output([p.name for p in releases])
        self.addons = known_output([a.name for a in addons])
        self.namespaces = known_output(sorted({p.namespace for p in releases}))
        self.advertised = known_output(advertised_map)
        self.node_labels = known_output(node_labels(spec))
        self.register_outputs(
            {
                "releases": self.releases,
                "addons": self.addons,
                "namespaces": self.namespaces,
                "advertised": self.advertised,
                "node_labels": self.node_labels,
            }
        )
