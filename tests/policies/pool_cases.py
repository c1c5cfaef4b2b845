"""The pass/fail case of every rule on pools: taints, boot volume, scaling bounds, Karpenter
limits and interruption handling, spot price, budget, labels, ROSA multi-AZ counts."""

from __future__ import annotations

from tests.policies.fixtures import (
    GPU_TAINT,
    SPOT_TAINT,
    Case,
    eks_node_group,
    karpenter_node_pool,
    oke_node_pool,
    requirement,
    rosa_machine_pool,
    static_karpenter_node_pool,
)

TRN_TAINT = {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}

POOL_CASES = [
    # accelerator-pool-tainted
    Case("eks-gpu-tainted", "accelerator-pool-tainted", (eks_node_group(),), 0),
    Case(
        "eks-gpu-prefer-only",
        "accelerator-pool-tainted",
        (eks_node_group(taints=[{**GPU_TAINT, "effect": "PreferNoSchedule"}]),),
        1,
        mentions="nvidia.com/gpu=true:NoSchedule",
    ),
    Case(
        "eks-cpu-untainted",
        "accelerator-pool-tainted",
        (eks_node_group(instance_types=("m5.xlarge",), taints=[]),),
        0,
    ),
    Case("oke-mi300x-tainted", "accelerator-pool-tainted", (oke_node_pool(),), 0),
    Case(
        "oke-mi300x-untainted",
        "accelerator-pool-tainted",
        (oke_node_pool(kubelet_taints=None),),
        1,
        mentions="amd.com/gpu",
    ),
    Case(
        "oke-mi300x-nvidia-taint",
        "accelerator-pool-tainted",
        (oke_node_pool(kubelet_taints="nvidia.com/gpu=true:NoSchedule"),),
        1,
        mentions="amd.com/gpu",
    ),
    Case(
        "rosa-trn-tainted",
        "accelerator-pool-tainted",
        (rosa_machine_pool(instance_type="trn1.32xlarge", taints=[TRN_TAINT]),),
        0,
    ),
    Case(
        "rosa-trn-untainted",
        "accelerator-pool-tainted",
        (rosa_machine_pool(instance_type="trn1.32xlarge", taints=[]),),
        1,
        mentions="aws.amazon.com/neuron",
    ),
    Case(
        "karpenter-gpu-count-untainted",
        "accelerator-pool-tainted",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.k8s.aws/instance-gpu-count", "Gt", "0")],
                taints=[],
            ),
        ),
        1,
        mentions="nvidia.com/gpu",
    ),
    Case(
        "karpenter-cpu-untainted",
        "accelerator-pool-tainted",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.k8s.aws/instance-category", "In", "c", "m")],
                taints=[],
            ),
        ),
        0,
    ),
    # spot-pool-tainted
    Case(
        "eks-spot-tainted",
        "spot-pool-tainted",
        (eks_node_group(capacity_type="SPOT", taints=[GPU_TAINT, SPOT_TAINT]),),
        0,
    ),
    Case(
        "eks-spot-untainted",
        "spot-pool-tainted",
        (eks_node_group(capacity_type="SPOT"),),
        1,
        mentions="spot=true:PreferNoSchedule",
    ),
    Case(
        "oke-preemptible-untainted",
        "spot-pool-tainted",
        (oke_node_pool(preemptible=True),),
        1,
        mentions="spot",
    ),
    Case(
        "oke-preemptible-tainted",
        "spot-pool-tainted",
        (
            oke_node_pool(
                preemptible=True,
                kubelet_taints="amd.com/gpu=true:NoSchedule,spot=true:PreferNoSchedule",
            ),
        ),
        0,
    ),
    Case(
        "rosa-spot-untainted",
        "spot-pool-tainted",
        (rosa_machine_pool(spot=True),),
        1,
        mentions="spot",
    ),
    Case(
        "karpenter-spot-untainted",
        "spot-pool-tainted",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.sh/capacity-type", "In", "spot", "on-demand")]
            ),
        ),
        1,
        mentions="spot",
    ),
    # bare-metal-boot-volume
    Case("oke-bm-with-boot-volume", "bare-metal-boot-volume", (oke_node_pool(),), 0),
    Case(
        "oke-bm-without-boot-volume",
        "bare-metal-boot-volume",
        (oke_node_pool(boot_volume_gb=None),),
        1,
        mentions="nodeSourceDetails.bootVolumeSizeInGbs",
    ),
    Case(
        "oke-vm-without-boot-volume",
        "bare-metal-boot-volume",
        (
            oke_node_pool(
                shape="VM.GPU.A10.1",
                boot_volume_gb=None,
                kubelet_taints="nvidia.com/gpu=true:NoSchedule",
            ),
        ),
        0,
    ),
    Case(
        "oke-bm-below-configured-minimum",
        "bare-metal-boot-volume",
        (oke_node_pool(boot_volume_gb="500"),),
        1,
        mentions="1000",
        config={"bare-metal-boot-volume": {"minBootVolumeGb": 1000}},
    ),
    # autoscaling-max-nodes
    Case("eks-max-within-default", "autoscaling-max-nodes", (eks_node_group(max_size=100.0),), 0),
    Case(
        "eks-max-above-default",
        "autoscaling-max-nodes",
        (eks_node_group(max_size=101.0),),
        1,
        mentions="scalingConfig.maxSize",
    ),
    Case(
        "oke-max-tag-above-config",
        "autoscaling-max-nodes",
        (oke_node_pool(max_nodes="4"),),
        1,
        mentions="freeformTags.nodepools.dev/max-nodes",
        config={"autoscaling-max-nodes": {"maxNodes": 3}},
    ),
    Case(
        "oke-size-within-config",
        "autoscaling-max-nodes",
        (oke_node_pool(max_nodes=None, size=3.0),),
        0,
        config={"autoscaling-max-nodes": {"maxNodes": 3}},
    ),
    Case(
        "rosa-replicas-above-config",
        "autoscaling-max-nodes",
        (rosa_machine_pool(autoscaling=None, replicas=12.0),),
        1,
        mentions="body.replicas",
        config={"autoscaling-max-nodes": {"maxNodes": 10}},
    ),
    Case(
        "karpenter-nodes-limit-above-default",
        "autoscaling-max-nodes",
        (karpenter_node_pool(limits={"cpu": "1000", "nvidia.com/gpu": 64.0, "nodes": "200"}),),
        1,
        mentions="spec.limits.nodes",
    ),
    # karpenter-limits
    Case("karpenter-gpu-limits", "karpenter-limits", (karpenter_node_pool(),), 0),
    Case(
        "karpenter-no-limits",
        "karpenter-limits",
        (karpenter_node_pool(limits={}),),
        1,
        mentions="spec.limits",
    ),
    Case(
        "karpenter-static-replicas-without-limits",
        "karpenter-limits",
        (static_karpenter_node_pool(),),
        0,
    ),
    Case(
        "karpenter-limits-without-gpu",
        "karpenter-limits",
        (karpenter_node_pool(limits={"cpu": "1000", "memory": "4000Gi"}),),
        1,
        mentions="nvidia.com/gpu",
    ),
    Case(
        "karpenter-trainium-limits-without-neuron",
        "karpenter-limits",
        (
            karpenter_node_pool(
                requirements=[
                    requirement("node.kubernetes.io/instance-type", "In", "trn1.32xlarge")
                ],
                taints=[TRN_TAINT],
                limits={"cpu": "512", "nvidia.com/gpu": 8.0},
            ),
        ),
        1,
        mentions="aws.amazon.com/neuron",
    ),
    Case(
        "karpenter-cpu-with-cpu-limits",
        "karpenter-limits",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.k8s.aws/instance-category", "In", "c")],
                taints=[],
                limits={"cpu": "100"},
            ),
        ),
        0,
    ),
    # karpenter-spot-interruption
    Case("karpenter-on-demand-only", "karpenter-spot-interruption", (karpenter_node_pool(),), 0),
    Case(
        "karpenter-spot-without-interruption-queue",
        "karpenter-spot-interruption",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.sh/capacity-type", "In", "spot", "on-demand")]
            ),
        ),
        1,
        mentions="settings.interruptionQueue",
    ),
    Case(
        "karpenter-spot-with-interruption-queue-declared",
        "karpenter-spot-interruption",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.sh/capacity-type", "In", "spot")]
            ),
        ),
        0,
        config={"karpenter-spot-interruption": {"interruptionQueueConfigured": True}},
    ),
    Case(
        "karpenter-capacity-type-exists-allows-spot",
        "karpenter-spot-interruption",
        (karpenter_node_pool(requirements=[requirement("karpenter.sh/capacity-type", "Exists")]),),
        1,
        mentions="karpenter.sh/capacity-type Exists",
    ),
    Case(
        "karpenter-capacity-type-not-on-demand-allows-spot",
        "karpenter-spot-interruption",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.sh/capacity-type", "NotIn", "on-demand")]
            ),
        ),
        1,
        mentions='{"karpenter-spot-interruption": {"interruptionQueueConfigured": true}}',
    ),
    Case(
        "karpenter-no-capacity-type-is-on-demand",
        "karpenter-spot-interruption",
        (
            karpenter_node_pool(
                requirements=[requirement("karpenter.k8s.aws/instance-family", "In", "p5")]
            ),
        ),
        0,
    ),
    Case(
        "eks-spot-node-group-is-not-karpenter",
        "karpenter-spot-interruption",
        (eks_node_group(capacity_type="SPOT", taints=[GPU_TAINT, SPOT_TAINT]),),
        0,
    ),
    # spot-max-price
    Case(
        "rosa-spot-price-within-default",
        "spot-max-price",
        (rosa_machine_pool(spot_max_price=2.5, taints=[GPU_TAINT, SPOT_TAINT]),),
        0,
    ),
    Case(
        "rosa-spot-price-above-default",
        "spot-max-price",
        (rosa_machine_pool(spot_max_price=3000.0),),
        1,
        mentions="body.aws.spot_market_options.max_price",
    ),
    Case(
        "rosa-spot-price-above-config",
        "spot-max-price",
        (rosa_machine_pool(spot_max_price=2.5),),
        1,
        mentions="2.5",
        config={"spot-max-price": {"maxPricePerHour": 1.5}},
    ),
    # pool-hourly-budget (prices from components/specs/catalog/data/prices.json)
    Case("eks-pool-within-budget", "pool-hourly-budget", (eks_node_group(max_size=3.0),), 0),
    Case(
        "eks-p5-pool-above-default-budget",
        "pool-hourly-budget",
        (eks_node_group(instance_types=("p5.48xlarge",), max_size=40.0),),
        1,
        mentions="maxPoolHourlyCost",
    ),
    Case(
        "eks-pool-above-configured-budget",
        "pool-hourly-budget",
        (eks_node_group(max_size=3.0),),
        1,
        mentions="scalingConfig.maxSize",
        config={"pool-hourly-budget": {"maxPoolHourlyCost": 2.0}},
    ),
    Case(
        "eks-unpriced-type-not-judged",
        "pool-hourly-budget",
        (eks_node_group(instance_types=("g9.99xlarge",), max_size=1000.0),),
        0,
    ),
    # restricted-label-domains
    Case(
        "eks-own-labels",
        "restricted-label-domains",
        (eks_node_group(labels={"team": "ml", "node.kubernetes.io/instance-type": "g5.xlarge"}),),
        0,
    ),
    Case(
        "eks-kubernetes-io-label",
        "restricted-label-domains",
        (eks_node_group(labels={"node-role.kubernetes.io/gpu": ""}),),
        1,
        mentions="node-role.kubernetes.io/gpu",
    ),
    Case(
        "oke-k8s-io-label",
        "restricted-label-domains",
        (oke_node_pool(labels={"example.k8s.io/tier": "a"}),),
        1,
        mentions="k8s.io",
    ),
    Case(
        "rosa-hostname-label",
        "restricted-label-domains",
        (rosa_machine_pool(labels={"kubernetes.io/hostname": "x"}),),
        1,
        mentions="kubernetes.io/hostname",
    ),
    Case(
        # Well-known keys the NodePool CRD allows as template labels (Karpenter reads them
        # as requirements): nothing the kubelet or the CRD refuses.
        "karpenter-well-known-labels",
        "restricted-label-domains",
        (
            karpenter_node_pool(
                labels={
                    "karpenter.sh/capacity-type": "spot",
                    "karpenter.k8s.aws/instance-family": "p5",
                }
            ),
        ),
        0,
    ),
    Case(
        "karpenter-crd-restricted-labels",
        "restricted-label-domains",
        (
            karpenter_node_pool(
                labels={"karpenter.sh/custom": "x", "karpenter.k8s.aws/made-up": "y"}
            ),
        ),
        2,
        mentions="restricted",
    ),
    Case(
        "eks-karpenter-controller-label",
        "restricted-label-domains",
        (eks_node_group(labels={"karpenter.sh/controller": "true"}),),
        0,
    ),
    Case(
        "eks-label-allowed-by-config",
        "restricted-label-domains",
        (eks_node_group(labels={"node-role.kubernetes.io/gpu": ""}),),
        0,
        config={"restricted-label-domains": {"allowedKeys": ["node-role.kubernetes.io/gpu"]}},
    ),
    # rosa-multi-az-replicas
    Case(
        "rosa-multi-az-multiples-of-3",
        "rosa-multi-az-replicas",
        (rosa_machine_pool(multi_az=True, autoscaling=(3.0, 9.0)),),
        0,
    ),
    Case(
        "rosa-multi-az-autoscaling-off-by-one",
        "rosa-multi-az-replicas",
        (rosa_machine_pool(multi_az=True, autoscaling=(0.0, 4.0)),),
        1,
        mentions="body.autoscaling.max_replicas",
    ),
    Case(
        "rosa-multi-az-replicas-2",
        "rosa-multi-az-replicas",
        (rosa_machine_pool(multi_az=True, autoscaling=None, replicas=2.0),),
        1,
        mentions="body.replicas",
    ),
    Case(
        "rosa-single-az-any-size",
        "rosa-multi-az-replicas",
        (rosa_machine_pool(autoscaling=None, replicas=2.0),),
        0,
    ),
]
