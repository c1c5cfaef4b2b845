"""Generated fleets of N pools, of every kind the fleet config knows on this checkout.

A kind is included only when its component is in `components.fleet.SECTIONS` and its
cluster kind has a backend, so the benchmark follows the library as components land
without failing on a checkout that lacks one. Pools are dealt round-robin over the
included kinds, with a few labels and taints each (what real pools carry), so every
backend path that renders labels and taints is exercised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CLUSTERS: dict[str, dict[str, Any]] = {
    "eks": {
        "kind": "eks",
        "cluster_name": "ml-platform",
        "node_role_arn": "arn:aws:iam::123456789012:role/ml-platform-nodes",
        "subnet_ids": ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"],
        "tags": {"team": "ml-platform"},
    },
    "oke": {
        "kind": "oke",
        "cluster_id": "ocid1.cluster.oc1.phx.aaaaaaaaexample",
        "compartment_id": "ocid1.compartment.oc1..aaaaaaaaexample",
        "image_id": "ocid1.image.oc1.phx.aaaaaaaaexample",
        "kubernetes_version": "v1.31.1",
        "placements": [
            {
                "availability_domain": "Uocm:PHX-AD-1",
                "subnet_id": "ocid1.subnet.oc1.phx.aaaaaaaaexample",
            }
        ],
    },
}


@dataclass(frozen=True)
class PoolKind:
    """One kind of pool the generator can make: which fleet entry, on which cluster."""

    label: str
    section: str
    component: str
    cluster: str | None  # key of CLUSTERS, None for kinds without a cluster target
    make: Callable[[int], dict[str, Any]]


def _common(i: int) -> dict[str, Any]:
    return {
        "labels": {"team": f"team-{i % 7}", "cost-center": f"cc-{i % 3}"},
        "taints": [f"dedicated=team-{i % 7}:NoSchedule"],
    }


def _eks_machine_pool(i: int) -> dict[str, Any]:
    return {
        "instance_type": "m5.2xlarge" if i % 2 else "g5.2xlarge",
        "autoscaling": {"min_replicas": 0, "max_replicas": 4 + i % 5},
        "boot_volume_gb": 100,
        **_common(i),
    }


def _eks_gpu_spot_pool(i: int) -> dict[str, Any]:
    return {
        "instance_type": ("g5.2xlarge", "p4d.24xlarge", "trn1.2xlarge")[i % 3],
        "autoscaling": {"min_replicas": 0, "max_replicas": 2 + i % 6},
        **_common(i),
    }


def _oke_machine_pool(i: int) -> dict[str, Any]:
    return {
        "instance_type": "BM.GPU.A10.4",
        "replicas": 1 + i % 3,
        "boot_volume_gb": 500,
        **_common(i),
    }


def _oke_gpu_spot_pool(i: int) -> dict[str, Any]:
    return {"instance_type": "VM.GPU.A10.1", **_common(i)}


POOL_KINDS: tuple[PoolKind, ...] = (
    PoolKind("EKS MachinePool", "pools", "MachinePool", "eks", _eks_machine_pool),
    PoolKind("EKS GpuSpotPool", "pools", "GpuSpotPool", "eks", _eks_gpu_spot_pool),
    PoolKind("OKE MachinePool", "pools", "MachinePool", "oke", _oke_machine_pool),
    PoolKind("OKE GpuSpotPool", "pools", "GpuSpotPool", "oke", _oke_gpu_spot_pool),
)


@dataclass(frozen=True)
class Availability:
    included: tuple[PoolKind, ...]
    missing: tuple[str, ...]  # kinds the library does not have on this checkout


def availability() -> Availability:
    """Which of POOL_KINDS this checkout can build."""
    from components.backends import BACKEND_MODULES
    from components.fleet import SECTIONS

    included, missing = [], []
    for kind in POOL_KINDS:
        known = kind.component in SECTIONS.get(kind.section, {})
        has_backend = kind.cluster is None or CLUSTERS[kind.cluster]["kind"] in BACKEND_MODULES
        (included if known and has_backend else missing).append(kind)
    return Availability(tuple(included), tuple(k.label for k in missing))


def generate_fleet(pool_count: int) -> tuple[dict[str, Any], dict[str, int]]:
    """A fleet config of `pool_count` pools, and how many pools of each kind it has."""
    kinds = availability().included
    if not kinds:
        raise RuntimeError("no pool kind is available in components.fleet.SECTIONS")
    config: dict[str, Any] = {"clusters": {}}
    counts: dict[str, int] = {kind.label: 0 for kind in kinds}
    for i in range(pool_count):
        kind = kinds[i % len(kinds)]
        entry: dict[str, Any] = {"component": kind.component, "name": f"pool-{i:04d}"}
        if kind.cluster is not None:
            config["clusters"].setdefault(kind.cluster, CLUSTERS[kind.cluster])
            entry["cluster"] = kind.cluster
        entry.update(kind.make(i))
        config.setdefault(kind.section, []).append(entry)
        counts[kind.label] += 1
    return config, counts
