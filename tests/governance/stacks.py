"""The governance entries of the example stacks, as component args (fresh copies)."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import yaml

STACKS = Path(__file__).resolve().parents[2] / "stacks"


@cache
def _config(stack: str) -> dict[str, Any]:
    document = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())
    return document["config"]


def stack_config(stack: str) -> dict[str, Any]:
    return copy.deepcopy(_config(stack))


def governance_entry(stack: str, index: int = 0) -> tuple[str, dict[str, Any]]:
    """(name, args) of entry `index` of the stack's `nodepools:governance` section."""
    entry = dict(stack_config(stack)["nodepools:governance"][index])
    entry.pop("component")
    return entry.pop("name"), entry


def org_args() -> dict[str, Any]:
    return governance_entry("org-quotas")[1]


KUBERNETES_PLATFORMS = Path(__file__).resolve().parent / "kubernetes_platforms.yaml"


@cache
def _kubernetes_platforms() -> dict[str, Any]:
    return yaml.safe_load(KUBERNETES_PLATFORMS.read_text())["config"]


def osmo_args() -> dict[str, Any]:
    """Seed 002's pool in our own platform model (what `stacks/Pulumi.osmo-platforms.yaml`
    held before it took OSMO's documents as written), compiled for Kubernetes."""
    entry = dict(copy.deepcopy(_kubernetes_platforms())["nodepools:governance"][0])
    entry.pop("component")
    entry.pop("name")
    return entry


def seed_osmo_args() -> dict[str, Any]:
    """The OSMO documents of seed 002, as the stack holds them (target osmo)."""
    return governance_entry("osmo-platforms")[1]


def by_name(resources) -> dict[str, Any]:
    """Registered custom resources: name -> (type, inputs)."""
    return {r.name: (r.type, r.inputs) for r in resources if r.custom}


EKS = {
    "kind": "eks",
    "cluster_name": "ml",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-1"],
}
# g5.12xlarge: 4 GPUs a node; at most 2 nodes -> 8 GPUs.
GPU_SPOT = {"instance_type": "g5.12xlarge", "autoscaling": {"min_replicas": 0, "max_replicas": 2}}


def gpu_spot_pool():
    """A GpuSpotPool `gpu-spot` on EKS (call inside a program)."""
    from nodepools import GpuSpotPool

    return GpuSpotPool("gpu-spot", {"cluster": EKS, **GPU_SPOT})


# A Karpenter pool of g5.12xlarge (4 GPUs a node), bounded at 16 GPUs, 192 vCPU, 768 GiB.
KARPENTER_GPU = {
    "node_class": {
        "role": "KarpenterNodeRole-ml",
        "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
        "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
    },
    "instance_types": ["g5.12xlarge"],
    "capacity_types": ["spot"],
    "taints": ["spot=true:PreferNoSchedule"],
    "limits": {"nvidia.com/gpu": 16, "cpu": 192, "memory": "768Gi"},
}


def karpenter_gpu_pool():
    """A KarpenterNodePool `gpu-karpenter` (call inside a program)."""
    from nodepools import KarpenterNodePool

    return KarpenterNodePool("gpu-karpenter", KARPENTER_GPU)
