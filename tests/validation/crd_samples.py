"""Well-formed custom resources of every covered kind, built fresh on each call.

They are what the library's components emit for a GPU pool on Karpenter and its Kueue
quotas; tests mutate copies to break one rule at a time.
"""

from __future__ import annotations

from typing import Any


def node_pool() -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu-training", "labels": {"app.kubernetes.io/managed-by": "pulumi"}},
        "spec": {
            "template": {
                "metadata": {"labels": {"node-type": "gpu", "team": "ml"}},
                "spec": {
                    "nodeClassRef": {
                        "group": "karpenter.k8s.aws",
                        "kind": "EC2NodeClass",
                        "name": "gpu",
                    },
                    "requirements": [
                        {
                            "key": "karpenter.sh/capacity-type",
                            "operator": "In",
                            "values": ["spot", "on-demand"],
                        },
                        {
                            "key": "karpenter.k8s.aws/instance-family",
                            "operator": "In",
                            "values": ["g5", "p4d"],
                            "minValues": 2,
                        },
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {
                            "key": "karpenter.k8s.aws/instance-generation",
                            "operator": "Gt",
                            "values": ["4"],
                        },
                    ],
                    "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                    "startupTaints": [
                        {"key": "node.example.com/initializing", "effect": "NoSchedule"}
                    ],
                    "expireAfter": "720h",
                },
            },
            "disruption": {
                "consolidationPolicy": "WhenEmpty",
                "consolidateAfter": "10m",
                "budgets": [
                    {"nodes": "10%"},
                    {"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h"},
                ],
            },
            "limits": {"cpu": "1000", "memory": "4000Gi", "nvidia.com/gpu": 64},
            "weight": 50,
        },
    }


def ec2_node_class() -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "gpu"},
        "spec": {
            "role": "KarpenterNodeRole-ml-cluster",
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml-cluster"}}],
            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml-cluster"}}],
            "blockDeviceMappings": [
                {
                    "deviceName": "/dev/xvda",
                    "rootVolume": True,
                    "ebs": {"volumeSize": "200Gi", "volumeType": "gp3", "encrypted": True},
                }
            ],
            "tags": {"team": "ml", "cost-center": "research"},
        },
    }


def resource_flavor() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "gpu-training"},
        "spec": {
            "nodeLabels": {"karpenter.sh/nodepool": "gpu-training"},
            "tolerations": [
                {
                    "key": "nvidia.com/gpu",
                    "operator": "Equal",
                    "value": "true",
                    "effect": "NoSchedule",
                },
                {"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"},
            ],
        },
    }


def cluster_queue() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "research-vision"},
        "spec": {
            "cohortName": "research",
            "namespaceSelector": {"matchLabels": {"kueue.x-k8s.io/project": "vision"}},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": "gpu-training",
                            "resources": [
                                {"name": "cpu", "nominalQuota": 96},
                                {"name": "memory", "nominalQuota": "768Gi"},
                                {
                                    "name": "nvidia.com/gpu",
                                    "nominalQuota": 8,
                                    "borrowingLimit": 8,
                                    "lendingLimit": 4,
                                },
                            ],
                        }
                    ],
                }
            ],
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
        },
    }


def local_queue() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "vision", "namespace": "vision"},
        "spec": {"clusterQueue": "research-vision"},
    }


def cohort() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "research"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": "gpu-training",
                            "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16}],
                        }
                    ],
                }
            ]
        },
    }


def workload_priority_class() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "WorkloadPriorityClass",
        "metadata": {"name": "production"},
        "value": 1000,
        "description": "Production training jobs",
    }


def topology() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Topology",
        "metadata": {"name": "default"},
        "spec": {
            "levels": [
                {"nodeLabel": "cloud.provider.com/topology-block"},
                {"nodeLabel": "kubernetes.io/hostname"},
            ]
        },
    }


def admission_check() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "AdmissionCheck",
        "metadata": {"name": "gpu-provisioning"},
        "spec": {
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": {
                "apiGroup": "kueue.x-k8s.io",
                "kind": "ProvisioningRequestConfig",
                "name": "gpu-check-capacity",
            },
        },
    }


def provisioning_request_config() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": "gpu-check-capacity"},
        "spec": {
            "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
            "managedResources": ["nvidia.com/gpu"],
            "retryStrategy": {
                "backoffLimitCount": 2,
                "backoffBaseSeconds": 60,
                "backoffMaxSeconds": 1800,
            },
        },
    }


def multikueue_config() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "MultiKueueConfig",
        "metadata": {"name": "gpu-workers"},
        "spec": {"clusters": ["worker-us-east-1", "worker-us-west-2"]},
    }


def multikueue_cluster() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "MultiKueueCluster",
        "metadata": {"name": "worker-us-east-1"},
        "spec": {
            "clusterSource": {
                "kubeConfig": {"locationType": "Secret", "location": "worker-us-east-1"}
            }
        },
    }


ALL = {
    "NodePool": node_pool,
    "EC2NodeClass": ec2_node_class,
    "ResourceFlavor": resource_flavor,
    "ClusterQueue": cluster_queue,
    "LocalQueue": local_queue,
    "Cohort": cohort,
    "WorkloadPriorityClass": workload_priority_class,
    "Topology": topology,
    "AdmissionCheck": admission_check,
    "ProvisioningRequestConfig": provisioning_request_config,
    "MultiKueueConfig": multikueue_config,
    "MultiKueueCluster": multikueue_cluster,
}
