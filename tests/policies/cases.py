"""The pass/fail case for every rule: the pool rules (`pool_cases`), the workload rules and
the stack rules."""

from __future__ import annotations

from tests.policies.fixtures import (
    Case,
    cluster_queue,
    deployment,
    eks_node_group,
    karpenter_node_pool,
    oke_cluster_autoscaler,
    oke_node_pool,
    pod_template,
    resource_flavor,
)
from tests.policies.pool_cases import POOL_CASES

RESOURCE_CASES = [
    *POOL_CASES,
    # pool-workloads-unprivileged
    Case("deployment-on-pool-unprivileged", "pool-workloads-unprivileged", (deployment(),), 0),
    Case(
        "deployment-on-pool-privileged",
        "pool-workloads-unprivileged",
        (deployment(privileged=True),),
        1,
        mentions="securityContext.privileged",
    ),
    Case(
        "pod-template-on-pool-host-network",
        "pool-workloads-unprivileged",
        (pod_template(pool="train", host_network=True),),
        1,
        mentions="hostNetwork",
    ),
    Case(
        "deployment-off-pool-privileged",
        "pool-workloads-unprivileged",
        (deployment(pool=None, privileged=True),),
        0,
    ),
    Case(
        "deployment-off-pool-privileged-all-scope",
        "pool-workloads-unprivileged",
        (deployment(pool=None, privileged=True, host_network=True),),
        2,
        mentions="the cluster",
        config={"pool-workloads-unprivileged": {"scope": "all-workloads"}},
    ),
    Case(
        "deployment-privileged-allowed",
        "pool-workloads-unprivileged",
        (deployment(privileged=True),),
        0,
        config={"pool-workloads-unprivileged": {"allowPrivileged": True}},
    ),
]

STACK_CASES = [
    # kueue-quota-within-capacity: pool "train" is g5.xlarge (1 GPU) x max 3 nodes = 3 GPUs
    Case(
        "quota-equals-capacity",
        "kueue-quota-within-capacity",
        (eks_node_group(), resource_flavor(), cluster_queue(gpus=3.0)),
        0,
    ),
    Case(
        "quota-above-capacity",
        "kueue-quota-within-capacity",
        (eks_node_group(), resource_flavor(), cluster_queue(gpus="4")),
        1,
        mentions="at most 3",
    ),
    Case(
        "quota-above-karpenter-limit",
        "kueue-quota-within-capacity",
        (karpenter_node_pool(), resource_flavor("llm"), cluster_queue(flavor="llm", gpus=40.0)),
        1,
        mentions="at most 32",
    ),
    Case(
        "quota-within-oke-capacity",
        "kueue-quota-within-capacity",
        (oke_node_pool(), resource_flavor("mi300x"), cluster_queue(flavor="mi300x", gpus=8.0)),
        0,
    ),
    Case(
        "quota-for-pool-in-another-stack",
        "kueue-quota-within-capacity",
        (resource_flavor("elsewhere"), cluster_queue(flavor="elsewhere", gpus=1000.0)),
        0,
    ),
    # recipe-requests-pool-accelerators
    Case(
        "recipe-requests-gpu",
        "recipe-requests-pool-accelerators",
        (eks_node_group(), deployment(pool="train", gpus=1.0)),
        0,
    ),
    Case(
        "recipe-requests-nothing",
        "recipe-requests-pool-accelerators",
        (eks_node_group(), deployment(pool="train", gpus=0.0)),
        1,
        mentions="nvidia.com/gpu",
    ),
    Case(
        "recipe-requests-wrong-accelerator",
        "recipe-requests-pool-accelerators",
        (oke_node_pool(), deployment(pool="mi300x", gpus=8.0, resource="nvidia.com/gpu")),
        1,
        mentions="amd.com/gpu",
    ),
    Case(
        "recipe-on-cpu-pool",
        "recipe-requests-pool-accelerators",
        (
            eks_node_group("cpu", instance_types=("m5.xlarge",), taints=[]),
            deployment(pool="cpu", gpus=0.0),
        ),
        0,
    ),
]

STACK_CASES += [
    # oke-pool-autoscaler (issue 29 item 13): an autoscaled OKE pool needs the add-on
    Case(
        "oke-autoscaled-without-autoscaler",
        "oke-pool-autoscaler",
        (oke_node_pool(),),
        1,
        mentions="OkeClusterAutoscaler.for_pools",
    ),
    Case(
        "oke-autoscaled-with-autoscaler",
        "oke-pool-autoscaler",
        (oke_node_pool(), oke_cluster_autoscaler()),
        0,
    ),
    Case(
        "oke-autoscaler-of-a-cluster-not-known-yet",
        "oke-pool-autoscaler",
        (oke_node_pool(), oke_cluster_autoscaler(None)),
        0,
    ),
    Case(
        "oke-autoscaler-of-another-cluster",
        "oke-pool-autoscaler",
        (oke_node_pool(), oke_cluster_autoscaler("ocid1.cluster.other")),
        1,
        mentions="freeformTags.nodepools.dev/max-nodes",
    ),
    Case(
        "oke-fixed-size-needs-none",
        "oke-pool-autoscaler",
        (oke_node_pool(max_nodes="0", size=0.0),),
        0,
    ),
]
RESOURCE_CASES += [
    # capacity-block-update (issue 29 item 4b)
    Case(
        "capacity-block-held-at-two",
        "capacity-block-update",
        (eks_node_group(capacity_type="CAPACITY_BLOCK", min_size=2.0, max_size=2.0),),
        1,
        mentions="only at desired size 0",
    ),
    Case(
        "capacity-block-from-zero",
        "capacity-block-update",
        (eks_node_group(capacity_type="CAPACITY_BLOCK"),),
        0,
    ),
    Case(
        "on-demand-held-at-two",
        "capacity-block-update",
        (eks_node_group(min_size=2.0),),
        0,
    ),
]

ALL_CASES = RESOURCE_CASES + STACK_CASES
