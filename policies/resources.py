"""One small view of a node pool, whichever resource declares it.

The rules reason about pools (accelerators, taints, spot, scaling bounds, labels, boot
volume); EKS, OKE, ROSA and Karpenter each spell those differently. `pool_view` reads a
resource exactly as the engine sends it to a policy pack (camelCase inputs for provider
resources, Kubernetes field names for Kubernetes objects, numbers as floats, maps and lists
possibly wrapped in pulumi_policy's unknown-checking proxies) and returns a `PoolView`, so
the rules work the same on our components' children and on hand-written resources.
The readers are `cloud_pools` (EKS, OKE, ROSA) and `karpenter_pools`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nodepools.policies.cloud_pools import eks_pool, oke_pool, rosa_pool
from nodepools.policies.karpenter_pools import karpenter_pool
from nodepools.policies.pool_model import PoolView

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
EKS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
OKE_NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
DYNAMIC_RESOURCE = "pulumi-python:dynamic:Resource"
# ROSA machine pools are dynamic resources; this input says which OCM object they manage.
ROSA_MACHINE_POOL = "ocm:clusters_mgmt/v1:MachinePool"
# The type `nodepools.backends.rosa.machine_pool.OcmMachinePool` registers under (a dynamic resource
# subclass names its own module and type). The generic dynamic type is accepted as well,
# for a pool built directly on `pulumi.dynamic.Resource` with the OCM provider.
ROSA_MACHINE_POOL_TYPE = "pulumi-python:dynamic/ocm:MachinePool"
ROSA_RESOURCE_TYPES = (ROSA_MACHINE_POOL_TYPE, DYNAMIC_RESOURCE)
KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
KARPENTER_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"


def pool_view(resource_type: str, props: Mapping[str, Any], name: str) -> PoolView | None:
    """The pool `props` declare, or None when the resource is not a node pool."""
    if resource_type == EKS_NODE_GROUP:
        return eks_pool(props, name)
    if resource_type == OKE_NODE_POOL:
        return oke_pool(props, name)
    if is_rosa_machine_pool(resource_type, props):
        return rosa_pool(props, name)
    if resource_type == KARPENTER_NODE_POOL:
        return karpenter_pool(props, name)
    return None


def is_rosa_machine_pool(resource_type: str, props: Mapping[str, Any]) -> bool:
    return resource_type in ROSA_RESOURCE_TYPES and props.get("resource_type") == ROSA_MACHINE_POOL
