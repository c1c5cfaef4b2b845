"""One program per component and backend, for the engine matrix (add yours here)."""

from __future__ import annotations

from collections.abc import Callable

from tests.conftest import EKS, OKE
from tests.governance.stacks import osmo_args

ROSA = {"kind": "rosa", "cluster_id": "2a8lld2m7drto9rj0c6umn9tb4d6f291"}
MI300X = {"cluster": OKE, "shape": "BM.GPU.MI300X.8", "size": 1, "boot_volume_gb": 500}
KARPENTER_GPU = {
    "node_class": {
        "role": "KarpenterNodeRole-ml",
        "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
        "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
    },
    "instance_types": ["g5.12xlarge"],
    "limits": {"nvidia.com/gpu": 8},
}
AUTOSCALED = {"autoscaling": {"min_replicas": 1, "max_replicas": 4}}


def _eks_wired() -> dict:
    """An EKS target whose role and subnets come from other resources: unknown in preview."""
    import pulumi_aws as aws

    role = aws.iam.Role("nodes", assume_role_policy="{}")
    subnet = aws.ec2.Subnet("nodes", vpc_id="vpc-1", cidr_block="10.0.0.0/24")
    return {**EKS, "node_role_arn": role.arn, "subnet_ids": [subnet.id]}


def machine_pool_eks() -> None:
    from nodepools import MachinePool

    MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", **AUTOSCALED})
    MachinePool("fixed", {"cluster": EKS, "instance_type": "m5.large", "replicas": 2})


def gpu_spot_pool_eks() -> None:
    from nodepools import GpuSpotPool

    GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g4dn.xlarge"})


def gpu_spot_pool_eks_wired() -> None:
    from nodepools import GpuSpotPool

    GpuSpotPool("gpu", {"cluster": _eks_wired(), "instance_type": "g5.12xlarge"})


# An EKS pool with every option the launch template, network and reservation take.
EKS_EVERY_OPTION = {
    "cluster": {**EKS, "ami_type": "AL2023_x86_64_NVIDIA", "tags": {"team": "ml"}},
    "instance_type": "p5.48xlarge",
    "autoscaling": {"min_replicas": 0, "max_replicas": 4},
    "labels": {"workload": "training"},
    "taints": ["training=true:NoSchedule"],
    "pool_name": "h100-block",
    "node_config": {
        "max_pods": 64,
        "kubelet": {"registryPullQPS": 10},
        "user_data": "#!/bin/bash\necho ready\n",
    },
    "metadata_options": {"http_put_response_hop_limit": 2},
    "boot_volume": {"size_gb": 500, "type": "gp3", "iops": 6000, "throughput": 500, "kms_key_id": "alias/nodes"},
    "update": {"max_unavailable_percent": 25},
    "auto_repair": True,
    "release_version": "1.33.0-20250704",
    "network": {
        "efa": True,
        "placement_group": "cluster",
        "subnet_id": "subnet-b",
        "vpc_id": "vpc-0a1b",
        "security_group_ids": ["sg-0c1a57e4"],
    },
    "capacity_reservation": {"type": "capacity_block", "ids": ["cr-02168da1478b509e0"]},
}  # fmt: skip
OKE_EVERY_OPTION = {
    "cluster": OKE,
    "instance_type": "BM.GPU.H100.8",
    "replicas": 1,
    "labels": {"workload": "training"},
    "taints": ["training=true:NoSchedule"],
    "node_config": {"max_pods": 64, "user_data": "#!/bin/bash\necho ready\n"},
    "boot_volume": {"size_gb": 500, "kms_key_id": "ocid1.key.oc1..k"},
    "update": {"max_unavailable": 1},
    "capacity_reservation": {"type": "on_demand", "ids": ["ocid1.capacityreservation.oc1.phx.aaaa1"]},
}  # fmt: skip


def machine_pool_eks_every_option() -> None:
    from nodepools import GpuSpotPool, MachinePool

    MachinePool("every-option", EKS_EVERY_OPTION)
    GpuSpotPool(
        "odcr-mix",
        {
            "cluster": EKS,
            "instance_types": ["g6e.12xlarge", "g6e.24xlarge"],
            "spot": None,
            "capacity_reservation": {
                "type": "on_demand",
                "resource_group_arn": "arn:aws:resource-groups:us-east-1:123456789012:group/odcrs",
            },
            "network": {"placement_group": "existing-ring", "subnet_id": "subnet-a"},
        },
    )


def machine_pool_oke_every_option() -> None:
    from nodepools import MachinePool

    MachinePool("every-option", OKE_EVERY_OPTION)


def machine_pool_eks_custom_ami() -> None:
    """A custom AMI whose NodeConfig needs the cluster's endpoint, CA and service CIDR from
    another resource (unknown in preview), and no node role: the pool creates its own."""
    import pulumi_aws as aws
    from nodepools import MachinePool

    cluster = aws.eks.Cluster("ml", role_arn="arn:aws:iam::123456789012:role/eks", vpc_config={"subnet_ids": ["subnet-a"]})  # fmt: skip
    target = {
        **{k: v for k, v in EKS.items() if k != "node_role_arn"},
        "cluster_name": cluster.name,
        "endpoint": cluster.endpoint,
        # Computed outputs: None under mocks that echo inputs, unknown in preview.
        "certificate_authority": cluster.certificate_authority.apply(lambda c: c and c.data),
        "service_cidr": cluster.kubernetes_network_config.apply(
            lambda c: c and c.service_ipv4_cidr
        ),
    }
    MachinePool(
        "custom",
        {
            "cluster": target,
            "instance_type": "g5.12xlarge",
            "ami_id": "ami-0123456789abcdef0",
            "node_config": {"max_pods": 110},
            **AUTOSCALED,
        },
    )


def node_role_shared() -> None:
    from nodepools import GpuSpotPool, MachinePool, NodeRole

    role = NodeRole("ml-nodes", {"name_prefix": "ml-nodes"})
    cluster = {**EKS, "node_role_arn": role.role_arn}
    GpuSpotPool("gpu", {"cluster": cluster, "instance_type": "g5.12xlarge"})
    MachinePool("cpu", {"cluster": cluster, "instance_type": "m5.large", "replicas": 1})


def shared_node_pool_eks() -> None:
    from nodepools import SharedNodePool

    SharedNodePool(
        "h100",
        {
            "cluster": {k: v for k, v in EKS.items() if k != "node_role_arn"},
            "shape": "p5.48xlarge",
            "size": 2,
            "node_config": {"kubelet": {"cpuManagerPolicy": "static"}},
            "boot_volume": {"size_gb": 500, "iops": 16000, "throughput": 1000},
            "auto_repair": True,
            "update": {"max_unavailable": 1},
        },
    )


def machine_pool_oke() -> None:
    from nodepools import MachinePool

    MachinePool(
        "cpu",
        {
            "cluster": OKE,
            "instance_type": "VM.Standard.E4.Flex",
            "ocpus": 4,
            "memory_gb": 32,
            **AUTOSCALED,
        },
    )


def gpu_spot_pool_oke() -> None:
    from nodepools import GpuSpotPool

    GpuSpotPool("gpu", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"})


def oke_cluster_autoscaler() -> None:
    from nodepools import GpuSpotPool, MachinePool
    from nodepools.pools.oke_autoscaler import OkeClusterAutoscaler

    cpu = MachinePool(
        "cpu",
        {
            "cluster": OKE,
            "instance_type": "VM.Standard.E4.Flex",
            "ocpus": 4,
            "memory_gb": 32,
            **AUTOSCALED,
        },
    )
    gpu = GpuSpotPool("gpu", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"})
    OkeClusterAutoscaler.for_pools("oke-autoscaler", [gpu, cpu])


def machine_pool_rosa() -> None:
    from nodepools import GpuSpotPool, MachinePool

    MachinePool("batch", {"cluster": ROSA, "instance_type": "m5.2xlarge", **AUTOSCALED})
    GpuSpotPool("gpu", {"cluster": ROSA, "instance_type": "p3.2xlarge"})


def shared_node_pool() -> None:
    from nodepools import SharedNodePool

    SharedNodePool("mi300x", {**MI300X, "selector": "selector_1"})


def recipe() -> None:
    from nodepools import Recipe, SharedNodePool

    pool = SharedNodePool("mi300x", {**MI300X, "selector": "selector_1"})
    Recipe(
        "echo",
        {
            "image": "hashicorp/http-echo",
            "port": 5678,
            "node_shape": "BM.GPU.MI300X.8",
            "shared_pool_selector": "selector_1",
            "pools": [pool],
        },
    )


def recipe_on_spot() -> None:
    from nodepools import Recipe, SharedNodePool

    pool = SharedNodePool("a10g", {"cluster": EKS, "shape": "g5.12xlarge", "size": 1, "spot": {}})
    Recipe(
        "serve",
        {
            "image": "vllm/vllm-openai:v0.6.0",
            "node_shape": "g5.12xlarge",
            "pools": [pool],
            "disruption_budget": {"max_unavailable": 1},
            "termination_grace_period_seconds": 90,
        },
    )


def karpenter_node_pool() -> None:
    from nodepools import KarpenterNodePool

    KarpenterNodePool("gpu", KARPENTER_GPU)
    KarpenterNodePool("existing", {"node_class_name": "default"})


def karpenter_node_pool_wired() -> None:
    """A reserved-capacity EFA pool whose node role comes from another resource (unknown in
    preview), as a NodeRole component's `role_name` would."""
    import pulumi_aws as aws
    from nodepools import KarpenterNodePool

    role = aws.iam.Role("karpenter-nodes", assume_role_policy="{}")
    KarpenterNodePool(
        "h100",
        {
            "node_class": {
                **KARPENTER_GPU["node_class"],
                "role": role.name,
                "capacity_reservation_selector_terms": [{"tags": {"team": "ml"}}],
                "placement_group": {"name": "training"},
            },
            "capacity_types": ["reserved", "on-demand"],
            "instance_types": ["p5.48xlarge"],
            "limits": {"nvidia.com/gpu": 16},
            "efa": True,
        },
    )


def kueue_queues() -> None:
    from nodepools import KueueQueues

    flavor = "default-flavor"
    quota = [{"name": "cpu", "nominalQuota": 9}, {"name": "memory", "nominalQuota": "36Gi"}]
    group = {
        "coveredResources": ["cpu", "memory"],
        "flavors": [{"name": flavor, "resources": quota}],
    }
    KueueQueues(
        "queues",
        {
            "resource_flavors": [{"name": flavor}],
            "cluster_queues": [
                {
                    "name": "cluster-queue",
                    "spec": {
                        "namespaceSelector": {},
                        "resourceGroups": [group],
                        "admissionChecksStrategy": {
                            "admissionChecks": [{"name": "prov"}, {"name": "mk"}]
                        },
                    },
                }
            ],
            "local_queues": [
                {
                    "name": "user-queue",
                    "namespace": "default",
                    "spec": {"clusterQueue": "cluster-queue"},
                }
            ],
            "admission_checks": [
                {
                    "name": "prov",
                    "spec": {
                        "controllerName": "kueue.x-k8s.io/provisioning-request",
                        "parameters": {
                            "apiGroup": "kueue.x-k8s.io",
                            "kind": "ProvisioningRequestConfig",
                            "name": "prov",
                        },
                    },
                },
                {
                    "name": "mk",
                    "spec": {
                        "controllerName": "kueue.x-k8s.io/multikueue",
                        "parameters": {
                            "apiGroup": "kueue.x-k8s.io",
                            "kind": "MultiKueueConfig",
                            "name": "mk",
                        },
                    },
                },
            ],
            "provisioning_request_configs": [
                {
                    "name": "prov",
                    "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io"},
                }
            ],
            "multikueue_configs": [{"name": "mk", "spec": {"clusters": ["worker1"]}}],
            "multikueue_clusters": [
                {
                    "name": "worker1",
                    "spec": {
                        "clusterSource": {
                            "kubeConfig": {"locationType": "Secret", "location": "worker1-secret"}
                        }
                    },
                }
            ],
        },
    )


def pool_quotas() -> None:
    from nodepools import GpuSpotPool, PoolQuotas

    pool = GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g5.12xlarge"})
    quota = {"gpu": 4, "cpu": 96, "memory": "384Gi"}
    PoolQuotas(
        "org",
        {
            "pools": [pool],
            "departments": [{"name": "d", "projects": [{"name": "p", "quotas": {"gpu": quota}}]}],
        },
    )


def pool_platforms() -> None:
    from nodepools import PoolPlatforms

    PoolPlatforms("shared-pool", osmo_args())


def accelerator_stack_eks() -> None:
    from nodepools import AcceleratorStack, GpuSpotPool, MachinePool

    gpu = GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g5.12xlarge"})
    cpu = MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})
    AcceleratorStack("devices", {"platform": "eks", "pools": AcceleratorStack.served([gpu, cpu])})


def accelerator_stack_mixed() -> None:
    from nodepools import AcceleratorStack, lookup_accelerator

    taint = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    pools = [
        {"name": "h100", "accelerator": lookup_accelerator("p5.48xlarge"), "taints": [taint]},
        {"name": "mi300x", "accelerator": lookup_accelerator("BM.GPU.MI300X.8")},
        {"name": "trn1", "accelerator": lookup_accelerator("trn1.32xlarge")},
    ]
    AcceleratorStack("devices", {"platform": "rosa", "pools": pools})


def accelerator_stack_oke() -> None:
    from nodepools import AcceleratorStack, SharedNodePool

    mi300x = SharedNodePool(
        "mi300x", {"cluster": OKE, "shape": "BM.GPU.MI300X.8", "size": 1, "boot_volume_gb": 500}
    )
    a10 = SharedNodePool(
        "a10", {"cluster": OKE, "shape": "BM.GPU.A10.4", "size": 1, "boot_volume_gb": 500}
    )
    AcceleratorStack(
        "devices",
        {
            "platform": "oke",
            "oke_cluster_id": OKE["cluster_id"],
            "pools": AcceleratorStack.served([mi300x, a10]),
        },
    )


COMPONENTS: dict[str, Callable[[], None]] = {
    "AcceleratorStack/eks": accelerator_stack_eks,
    "AcceleratorStack/oke": accelerator_stack_oke,
    "AcceleratorStack/mixed": accelerator_stack_mixed,
    "MachinePool/eks": machine_pool_eks,
    "MachinePool/eks-every-option": machine_pool_eks_every_option,
    "MachinePool/oke-every-option": machine_pool_oke_every_option,
    "MachinePool/oke": machine_pool_oke,
    "MachinePool/rosa": machine_pool_rosa,
    "GpuSpotPool/eks": gpu_spot_pool_eks,
    "GpuSpotPool/eks-wired": gpu_spot_pool_eks_wired,
    "MachinePool/eks-custom-ami-wired": machine_pool_eks_custom_ami,
    "NodeRole/shared": node_role_shared,
    "SharedNodePool/eks-settings": shared_node_pool_eks,
    "GpuSpotPool/oke": gpu_spot_pool_oke,
    "OkeClusterAutoscaler": oke_cluster_autoscaler,
    "SharedNodePool/oke": shared_node_pool,
    "Recipe/oke": recipe,
    "Recipe/eks-spot": recipe_on_spot,
    "KarpenterNodePool": karpenter_node_pool,
    "KarpenterNodePool/wired": karpenter_node_pool_wired,
    "KueueQueues": kueue_queues,
    "PoolQuotas": pool_quotas,
    "PoolPlatforms": pool_platforms,
}
