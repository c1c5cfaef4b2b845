"""Engine-shaped resources for the policy tests, and the shape of a pass/fail case.

Properties are written the way the engine hands them to a policy pack: camelCase inputs for
provider resources, Kubernetes field names for Kubernetes objects, snake_case OCM bodies for
the ROSA dynamic resource, and every number a float. Each builder's defaults describe a
well-formed pool or object, so a case changes only what its rule is about. The cases are in
`pool_cases` (the rules on pools) and `cases` (workloads, stack rules, and all of them).
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


def oke_cluster_autoscaler(cluster_id: str | None = "ocid1.cluster.x") -> Resource:
    """OKE's Cluster Autoscaler add-on as `OkeClusterAutoscaler` registers it (None: a
    cluster id not known yet)."""
    props: dict[str, Any] = {"addonName": "ClusterAutoscaler", "removeAddonResourcesOnDelete": True}
    if cluster_id is not None:
        props["clusterId"] = cluster_id
    return Resource(
        "oci:ContainerEngine/addon:Addon",
        "oke-autoscaler-addon",
        props,
        parent_type="nodepools:index:OkeClusterAutoscaler",
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
        oke_cluster_autoscaler(),
        rosa_machine_pool(multi_az=True, autoscaling=(3.0, 6.0)),
        karpenter_node_pool(),
        deployment(pool="train"),
        pod_template(pool=None, gpus=0.0),
        resource_flavor("train"),
        cluster_queue(flavor="train", gpus=3.0),
    )
