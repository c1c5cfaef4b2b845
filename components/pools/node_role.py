"""NodeRole: the IAM role EKS nodes assume, with the managed policies nodes need."""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.backends.extras import AWS, require
from nodepools.documentation import documented
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.pools.node_role import NodeRoleArgs


@documented(NodeRoleArgs)
class NodeRole(pulumi.ComponentResource):
    """An IAM role for EKS nodes: EC2 trust, AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy,
    AmazonEC2ContainerRegistryReadOnly and AmazonSSMManagedInstanceCore.

    An EKS pool whose `EksCluster` has no `node_role_arn` creates one of its own, named
    after the pool (`<pool>-node-role`). To share one between pools, create it once and
    give its `role_arn` as their cluster's `node_role_arn`; a Karpenter EC2NodeClass takes
    its `role_name` as `role`.

    Outputs: `role_arn`, `role_name`.
    """

    TYPE = "nodepools:index:NodeRole"

    role_arn: pulumi.Output[str]
    role_name: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: NodeRoleArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        spec = parse_spec(NodeRoleArgs, args, f"NodeRole {name!r}")
        require(AWS, f"NodeRole {name!r}", "an IAM role")
        super().__init__(self.TYPE, name, {"spec": spec.summary()}, opts)
        from nodepools.backends.eks.iam import build_node_role

        built = build_node_role(name, spec, self)
        self.role_arn = built.role.arn
        self.role_name = built.role.name
        self.register_outputs({"role_arn": self.role_arn, "role_name": self.role_name})
