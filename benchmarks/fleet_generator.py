"""Generated fleets of N pools, of every kind the fleet config knows on this checkout.

A kind is included only when its component is in `nodepools.fleet.deploy.SECTIONS` and its
cluster kind has a backend, so the benchmark follows the library as components land
without failing on a checkout that lacks one. Pools are dealt round-robin over the
included pool kinds, with a few labels and taints each (what real pools carry), so every
backend path that renders labels and taints is exercised. On top of the N pools, where
their components exist: two Recipes on each SharedNodePool, one PoolQuotas per 16
MachinePool/GpuSpotPool pools of a cluster (two departments, a GPU quota on every GPU
pool) and one PoolPlatforms per 50 pools.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    "rosa": {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291", "multi_az": False},
}
RECIPES_PER_SHARED_POOL = 2
POOLS_PER_QUOTAS = 16
POOLS_PER_PLATFORMS = 50


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


def _rosa_machine_pool(i: int) -> dict[str, Any]:
    return {
        "instance_type": "m5.2xlarge",
        "autoscaling": {"min_replicas": 1, "max_replicas": 4 + i % 5},
        **_common(i),
    }


def _rosa_gpu_spot_pool(i: int) -> dict[str, Any]:
    return {
        "instance_type": "p3.2xlarge",
        "autoscaling": {"min_replicas": 0, "max_replicas": 2 + i % 4},
        "boot_volume_gb": 500,
        **_common(i),
    }


def _karpenter_pool(i: int) -> dict[str, Any]:
    # After the eks-karpenter-llm stack's Trainium workers: one EC2NodeClass per pool.
    return {
        "capacity_types": ["spot", "on-demand"] if i % 2 else ["on-demand"],
        "instance_types": ["trn1.2xlarge"],
        "architectures": ["amd64"],
        "labels": {"team": f"team-{i % 7}"},
        "limits": {"aws.amazon.com/neuron": 2 + 2 * (i % 3), "cpu": 64, "memory": "256Gi"},
        "disruption": {"consolidate_after": "300s"},
        "expire_after": "720h",
        "node_class": {
            "role": "KarpenterNodeRole-ml-platform",
            "ami_alias": "al2023@latest",
            "boot_volume_gb": 200,
            "subnet_selector_tags": {"karpenter.sh/discovery": "ml-platform"},
            "security_group_selector_tags": [{"karpenter.sh/discovery": "ml-platform"}],
        },
    }


def _shared_pool(i: int) -> dict[str, Any]:
    return {
        "shape": "BM.GPU.MI300X.8",
        "size": 1 + i % 2,
        "boot_volume_gb": 500,
        **({"selector": f"selector-{i % 3}"} if i % 2 else {}),
    }


POOL_KINDS: tuple[PoolKind, ...] = (
    PoolKind("EKS MachinePool", "pools", "MachinePool", "eks", _eks_machine_pool),
    PoolKind("EKS GpuSpotPool", "pools", "GpuSpotPool", "eks", _eks_gpu_spot_pool),
    PoolKind("OKE MachinePool", "pools", "MachinePool", "oke", _oke_machine_pool),
    PoolKind("OKE GpuSpotPool", "pools", "GpuSpotPool", "oke", _oke_gpu_spot_pool),
    PoolKind("ROSA MachinePool", "pools", "MachinePool", "rosa", _rosa_machine_pool),
    PoolKind("ROSA GpuSpotPool", "pools", "GpuSpotPool", "rosa", _rosa_gpu_spot_pool),
    PoolKind("KarpenterNodePool", "pools", "KarpenterNodePool", None, _karpenter_pool),
    PoolKind("OKE SharedNodePool", "pools", "SharedNodePool", "oke", _shared_pool),
)
# Entries made from the pools rather than counted among them: label -> (section, component).
EXTRA_KINDS: dict[str, tuple[str, str]] = {
    "Recipe": ("recipes", "Recipe"),
    "PoolQuotas": ("governance", "PoolQuotas"),
    "PoolPlatforms": ("governance", "PoolPlatforms"),
}


@dataclass(frozen=True)
class Availability:
    included: tuple[PoolKind, ...]
    extras: tuple[str, ...]  # labels of the EXTRA_KINDS this checkout has
    missing: tuple[str, ...]  # labels of the kinds this checkout does not have

    @property
    def labels(self) -> tuple[str, ...]:
        return (*(kind.label for kind in self.included), *self.extras)


def availability() -> Availability:
    """Which of POOL_KINDS and EXTRA_KINDS this checkout can build."""
    from nodepools.backends import BACKEND_MODULES
    from nodepools.fleet.deploy import SECTIONS

    included, extras, missing = [], [], []
    for kind in POOL_KINDS:
        known = kind.component in SECTIONS.get(kind.section, {})
        has_backend = kind.cluster is None or CLUSTERS[kind.cluster]["kind"] in BACKEND_MODULES
        if known and has_backend:
            included.append(kind)
        else:
            missing.append(kind.label)
    for label, (section, component) in EXTRA_KINDS.items():
        (extras if component in SECTIONS.get(section, {}) else missing).append(label)
    return Availability(tuple(included), tuple(extras), tuple(missing))


def generate_fleet(
    pool_count: int,
    only: Sequence[str] | None = None,
    extras: Sequence[str] | None = None,
) -> tuple[dict[str, Any], dict[str, int]]:
    """A fleet config of `pool_count` pools (plus the entries made from them), and how many
    entries of each kind it has. `only` restricts the pool kinds and `extras` the entries
    made from them, by label (default: every kind available)."""
    found = availability()
    kinds = [k for k in found.included if only is None or k.label in only]
    extra_labels = [label for label in found.extras if extras is None or label in extras]
    if not kinds:
        raise RuntimeError(f"no pool kind of {only or 'any'} is available on this checkout")
    config: dict[str, Any] = {"clusters": {}}
    counts: dict[str, int] = dict.fromkeys([*(k.label for k in kinds), *extra_labels], 0)
    for i in range(pool_count):
        kind = kinds[i % len(kinds)]
        entry: dict[str, Any] = {"component": kind.component, "name": f"pool-{i:04d}"}
        if kind.cluster is not None:
            config["clusters"].setdefault(kind.cluster, CLUSTERS[kind.cluster])
            entry["cluster"] = kind.cluster
        entry.update(kind.make(i))
        config.setdefault(kind.section, []).append(entry)
        counts[kind.label] += 1
    makers: dict[str, Callable[[list[dict[str, Any]]], list[dict[str, Any]]]] = {
        "Recipe": _recipes,
        "PoolQuotas": _quotas,
        "PoolPlatforms": _platforms,
    }
    pools = config.get("pools", [])
    for label in extra_labels:
        entries = makers[label](pools)
        config.setdefault(EXTRA_KINDS[label][0], []).extend(entries)
        counts[label] = len(entries)
    return config, counts


def _recipes(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # After the oke-shared-mi300x stack: two 4-GPU trainings naming their shared pool.
    return [
        {
            "component": "Recipe",
            "name": f"{pool['name']}-recipe-{r}",
            "image": "rocm/pytorch:latest",
            "command": ["python", "train.py"],
            "gpus": 4,
            "cpu": "32",
            "memory": "256Gi",
            "node_shape": pool["shape"],
            "pools": [pool["name"]],
            **({"port": 8080} if r else {}),
        }
        for pool in pools
        if pool["component"] == "SharedNodePool"
        for r in range(RECIPES_PER_SHARED_POOL)
    ]


def _has_accelerator(pool: dict[str, Any]) -> bool:
    from nodepools.specs.catalog.accelerators import lookup_accelerator

    return lookup_accelerator(pool["instance_type"]) is not None


def _quotas(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Kueue objects live in one cluster, so one PoolQuotas governs pools of one cluster.
    by_cluster: dict[str, list[dict[str, Any]]] = {}
    for pool in pools:
        if pool["component"] in ("MachinePool", "GpuSpotPool"):
            by_cluster.setdefault(pool["cluster"], []).append(pool)
    entries = []
    for cluster, governed in by_cluster.items():
        for start in range(0, len(governed), POOLS_PER_QUOTAS):
            group = governed[start : start + POOLS_PER_QUOTAS]
            prefix = f"{cluster}-{start:04d}"
            projects = [
                {"name": f"{prefix}-d{d}-p{p}", "quotas": {}} for d in range(2) for p in range(2)
            ]
            # One GPU of every GPU pool for one project: no pool is over-committed.
            for index, pool in enumerate(p for p in group if _has_accelerator(p)):
                projects[index % len(projects)]["quotas"][pool["name"]] = {"gpu": 1}
            entries.append(
                {
                    "component": "PoolQuotas",
                    "name": f"quotas-{prefix}",
                    "pools": [pool["name"] for pool in group],
                    "departments": [
                        {"name": f"{prefix}-d{d}", "projects": projects[2 * d : 2 * d + 2]}
                        for d in range(2)
                    ],
                }
            )
    return entries


def _platforms(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # After the osmo-platforms stack: two platforms of an OSMO pool that exists outside.
    return [
        {
            "component": "PoolPlatforms",
            "name": f"platforms-{start:04d}",
            "pool": f"osmo_pool_{start}",
            "create_namespaces": True,
            "default_platform": "l40s_platform",
            "common_default_variables": {"USER_CPU": 1, "USER_GPU": 0, "USER_MEMORY": "1Gi"},
            "common_resource_validations": ["default_cpu", "default_gpu", "default_memory"],
            "common_pod_template": {
                "containers": [{"name": "user", "image": "nvcr.io/nvidia/pytorch:24.08-py3"}]
            },
            "platforms": {
                "l40s_platform": {
                    "node_selector": {"nvidia.com/gpu.product": "NVIDIA-L40S"},
                    "node_resources": {"cpu": 48, "gpu": 4, "memory": "384Gi"},
                },
                "a100_platform": {
                    "node_selector": {"nvidia.com/gpu.product": "NVIDIA-A100"},
                    "tolerations": [
                        {
                            "key": "nvidia.com/gpu.product",
                            "operator": "Equal",
                            "value": "NVIDIA-A100",
                            "effect": "NoSchedule",
                        }
                    ],
                    "node_resources": {"cpu": 96, "gpu": 8, "memory": "1152Gi"},
                },
            },
            "roles": [{"name": f"osmo-{start}", "pools": f"osmo_pool_{start}*", "groups": ["ml"]}],
        }
        for start in range(0, len(pools), POOLS_PER_PLATFORMS)
    ]
