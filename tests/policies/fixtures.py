"""Engine-shaped resources for the policy tests, and the pass/fail case for every rule.

Properties are written the way the engine hands them to a policy pack: camelCase inputs for
provider resources, Kubernetes field names for Kubernetes objects, snake_case OCM bodies for
the ROSA dynamic resource, and every number a float. Each builder's defaults describe a
well-formed pool or object, so a case changes only what its rule is about.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from nodepools.policies.governance import KUEUE_CLUSTER_QUEUE, KUEUE_RESOURCE_FLAVOR
from nodepools.policies.pods import DEPLOYMENT, POD_TEMPLATE
from nodepools.policies.resources import (
    EKS_NODE_GROUP,
    KARPENTER_NODE_POOL,
    OKE_NODE_POOL,
    ROSA_MACHINE_POOL,
    ROSA_MACHINE_POOL_TYPE,
)
from nodepools.specs.core.labels import POOL_LABEL, SHARED_POOL_LABEL

STACK = "urn:pulumi:dev::nodepools"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
SPOT_TAINT = {"key": "spot", "value": "true", "effect": "PreferNoSchedule"}


@dataclass(frozen=True)
class Resource:
    type: str
    name: str
    props: dict[str, Any]
    parent_type: str | None = None

    @property
    def urn(self) -> str:
        qualified = f"{self.parent_type}${self.type}" if self.parent_type else self.type
        return f"{STACK}::{qualified}::{self.name}"


@dataclass(frozen=True)
class Case:
    """A rule, resources it sees, and how many violations of it they must produce."""

    id: str
    policy: str
    resources: tuple[Resource, ...]
    violations: int
    # A fragment every violation message must contain (what a reader needs to act on).
    mentions: str = ""
    config: dict[str, Any] = field(default_factory=dict)


def _eks_taints(taints: list[dict[str, str]]) -> list[dict[str, str]]:
    effects = {
        "NoSchedule": "NO_SCHEDULE",
        "PreferNoSchedule": "PREFER_NO_SCHEDULE",
        "NoExecute": "NO_EXECUTE",
    }
    return [{**t, "effect": effects[t["effect"]]} for t in taints]


def eks_node_group(
    pool: str = "train",
    *,
    instance_types: tuple[str, ...] = ("g5.xlarge",),
    capacity_type: str = "ON_DEMAND",
    min_size: float = 0.0,
    max_size: float = 3.0,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
) -> Resource:
    return Resource(
        EKS_NODE_GROUP,
        f"{pool}-node-group",
        {
            "clusterName": "ml",
            "nodeGroupName": pool,
            "instanceTypes": list(instance_types),
            "capacityType": capacity_type,
            "scalingConfig": {"minSize": min_size, "maxSize": max_size, "desiredSize": min_size},
            "labels": {POOL_LABEL: pool, "node-type": "gpu", **(labels or {})},
            "taints": _eks_taints([GPU_TAINT] if taints is None else taints),
            "diskSize": 200.0,
            "amiType": "AL2023_x86_64_NVIDIA",
        },
        parent_type="nodepools:index:MachinePool",
    )


def oke_user_data(kubelet_taints: str | None) -> str:
    args = (
        f' --kubelet-extra-args "--register-with-taints={kubelet_taints}"' if kubelet_taints else ""
    )
    script = (
        "#!/bin/bash\n"
        'curl --fail -H "Authorization: Bearer Oracle" -L0 '
        "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script "
        "| base64 --decode >/var/run/oke-init.sh\n"
        f"bash /var/run/oke-init.sh{args}\n"
    )
    return base64.b64encode(script.encode()).decode()


def oke_node_pool(
    pool: str = "mi300x",
    *,
    shape: str = "BM.GPU.MI300X.8",
    size: float = 1.0,
    max_nodes: str | None = "2",
    boot_volume_gb: str | None = "500",
    kubelet_taints: str | None = "amd.com/gpu=true:NoSchedule",
    preemptible: bool = False,
    labels: dict[str, str] | None = None,
) -> Resource:
    placement: dict[str, Any] = {"availabilityDomain": "AD-1", "subnetId": "ocid1.subnet.x"}
    if preemptible:
        placement["preemptibleNodeConfig"] = {
            "preemptionAction": {"type": "TERMINATE", "isPreserveBootVolume": False}
        }
    source: dict[str, Any] = {"sourceType": "IMAGE", "imageId": "ocid1.image.x"}
    if boot_volume_gb is not None:
        source["bootVolumeSizeInGbs"] = boot_volume_gb
    tags = {"nodepools.dev/min-nodes": "0"}
    if max_nodes is not None:
        tags["nodepools.dev/max-nodes"] = max_nodes
    all_labels = {POOL_LABEL: pool, SHARED_POOL_LABEL: "true", **(labels or {})}
    return Resource(
        OKE_NODE_POOL,
        f"{pool}-node-pool",
        {
            "clusterId": "ocid1.cluster.x",
            "compartmentId": "ocid1.compartment.x",
            "name": pool,
            "nodeShape": shape,
            "nodeConfigDetails": {"size": size, "placementConfigs": [placement]},
            "nodeSourceDetails": source,
            "initialNodeLabels": [{"key": k, "value": v} for k, v in all_labels.items()],
            "nodeMetadata": {"user_data": oke_user_data(kubelet_taints)},
            "freeformTags": tags,
        },
        parent_type="nodepools:index:SharedNodePool",
    )


def rosa_machine_pool(
    pool: str = "infer",
    *,
    instance_type: str = "g5.2xlarge",
    multi_az: bool = False,
    replicas: float | None = None,
    autoscaling: tuple[float, float] | None = (0.0, 3.0),
    spot_max_price: float | None = None,
    spot: bool = False,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
) -> Resource:
    body: dict[str, Any] = {
        "id": pool,
        "instance_type": instance_type,
        "labels": {POOL_LABEL: pool, **(labels or {})},
        "taints": [GPU_TAINT] if taints is None else taints,
        "root_volume": {"aws": {"size": 300.0}},
    }
    if replicas is not None:
        body["replicas"] = replicas
    if autoscaling is not None:
        body["autoscaling"] = {"min_replicas": autoscaling[0], "max_replicas": autoscaling[1]}
    if spot or spot_max_price is not None:
        options = {} if spot_max_price is None else {"max_price": spot_max_price}
        body["aws"] = {"spot_market_options": options}
    return Resource(
        ROSA_MACHINE_POOL_TYPE,
        f"{pool}-machine-pool",
        {
            "resource_type": ROSA_MACHINE_POOL,
            "cluster_id": "2a3b4c",
            "multi_az": multi_az,
            "body": body,
        },
        parent_type="nodepools:index:GpuSpotPool",
    )


def requirement(key: str, operator: str, *values: str) -> dict[str, Any]:
    found: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        found["values"] = list(values)
    return found


def karpenter_node_pool(
    pool: str = "llm",
    *,
    requirements: list[dict[str, Any]] | None = None,
    taints: list[dict[str, str]] | None = None,
    labels: dict[str, str] | None = None,
    limits: dict[str, Any] | None = None,
) -> Resource:
    if requirements is None:
        requirements = [
            requirement("karpenter.k8s.aws/instance-family", "In", "p5"),
            requirement("karpenter.sh/capacity-type", "In", "on-demand"),
        ]
    return Resource(
        KARPENTER_NODE_POOL,
        f"{pool}-node-pool",
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": pool},
            "spec": {
                "template": {
                    "metadata": {"labels": {POOL_LABEL: pool, **(labels or {})}},
                    "spec": {
                        "nodeClassRef": {
                            "group": "karpenter.k8s.aws",
                            "kind": "EC2NodeClass",
                            "name": pool,
                        },
                        "requirements": requirements,
                        "taints": [GPU_TAINT] if taints is None else taints,
                    },
                },
                "limits": {"cpu": "1000", "memory": "4000Gi", "nvidia.com/gpu": 32.0}
                if limits is None
                else limits,
                "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
            },
        },
        parent_type="nodepools:index:KarpenterNodePool",
    )


def static_karpenter_node_pool(pool: str = "llm-static", replicas: float = 2.0) -> Resource:
    """A NodePool with a fixed replica count (alpha), on which Karpenter allows no limits."""
    resource = karpenter_node_pool(pool, limits={})
    del resource.props["spec"]["limits"]
    resource.props["spec"]["replicas"] = replicas
    return resource


def pod_spec(
    pool: str | None = "train",
    *,
    gpus: float = 1.0,
    resource: str = "nvidia.com/gpu",
    privileged: bool = False,
    host_network: bool = False,
) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "server",
        "image": "vllm/vllm-openai:v0.6.0",
        "resources": {"limits": {resource: gpus} if gpus else {"cpu": "4"}},
    }
    if privileged:
        container["securityContext"] = {"privileged": True}
    spec: dict[str, Any] = {
        "containers": [container],
        "tolerations": [{"key": resource, "operator": "Exists", "effect": "NoSchedule"}],
    }
    if pool is not None:
        spec["nodeSelector"] = {POOL_LABEL: pool}
    if host_network:
        spec["hostNetwork"] = True
    return spec


def deployment(name: str = "vllm", **pod: Any) -> Resource:
    return Resource(
        DEPLOYMENT,
        f"{name}-deployment",
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "serving"},
            "spec": {
                "replicas": 1.0,
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec(**pod)},
            },
        },
        parent_type="nodepools:index:Recipe",
    )


def pod_template(name: str = "batch", **pod: Any) -> Resource:
    return Resource(
        POD_TEMPLATE,
        f"{name}-pod-template",
        {
            "apiVersion": "v1",
            "kind": "PodTemplate",
            "metadata": {"name": name, "namespace": "batch"},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec(**pod)},
        },
        parent_type="nodepools:index:PoolPlatforms",
    )


def resource_flavor(pool: str = "train") -> Resource:
    return Resource(
        KUEUE_RESOURCE_FLAVOR,
        f"{pool}-flavor",
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ResourceFlavor",
            "metadata": {"name": pool},
            "spec": {
                "nodeLabels": {POOL_LABEL: pool},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
            },
        },
        parent_type="nodepools:index:PoolQuotas",
    )


def cluster_queue(
    name: str = "research", *, flavor: str = "train", gpus: Any = 3.0, cpus: Any = "64"
) -> Resource:
    return Resource(
        KUEUE_CLUSTER_QUEUE,
        f"{name}-cluster-queue",
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ClusterQueue",
            "metadata": {"name": name},
            "spec": {
                "cohortName": "ml",
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "nvidia.com/gpu"],
                        "flavors": [
                            {
                                "name": flavor,
                                "resources": [
                                    {"name": "cpu", "nominalQuota": cpus},
                                    {"name": "nvidia.com/gpu", "nominalQuota": gpus},
                                ],
                            }
                        ],
                    }
                ],
            },
        },
        parent_type="nodepools:index:PoolQuotas",
    )


def well_formed_fleet() -> tuple[Resource, ...]:
    """One of everything, each as the components mean to emit it: violates nothing."""
    return (
        eks_node_group(),
        eks_node_group(
            "spot-t4",
            instance_types=("g4dn.xlarge",),
            capacity_type="SPOT",
            taints=[GPU_TAINT, SPOT_TAINT],
        ),
        oke_node_pool(),
        rosa_machine_pool(multi_az=True, autoscaling=(3.0, 6.0)),
        karpenter_node_pool(),
        deployment(pool="train"),
        pod_template(pool=None, gpus=0.0),
        resource_flavor("train"),
        cluster_queue(flavor="train", gpus=3.0),
    )


TRN_TAINT = {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}

RESOURCE_CASES = [
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

ALL_CASES = RESOURCE_CASES + STACK_CASES
