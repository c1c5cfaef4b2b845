"""Args of `NodeRole`: the IAM role EKS nodes assume, when the cluster target names none."""

from __future__ import annotations

from typing import Literal

from nodepools.specs.core.aws_tags import AwsTags
from nodepools.specs.pools.eks_settings import NodeRoleOptions
from pydantic import Field

# IAM role names are at most 64 characters; with a prefix, the provider appends a
# 26-character unique suffix, so a prefix is at most 38.
ROLE_NAME_PREFIX_MAX = 38

# Managed policies every EKS node needs (EKS user guide, "Amazon EKS node IAM role"), plus
# SSM's so nodes can be reached without SSH keys.
# Policy name -> the end of its attachment's child name.
NODE_POLICIES = {
    "AmazonEKSWorkerNodePolicy": "worker-node-policy",
    "AmazonEKS_CNI_Policy": "cni-policy",
    "AmazonEC2ContainerRegistryReadOnly": "ecr-read-only",
    "AmazonSSMManagedInstanceCore": "ssm-managed-instance-core",
}
DNS_SUFFIX = {"aws": "amazonaws.com", "aws-cn": "amazonaws.com.cn", "aws-us-gov": "amazonaws.com"}


class NodeRoleArgs(NodeRoleOptions):
    """An IAM role for EKS nodes: EC2 may assume it; the EKS worker node, CNI, ECR
    read-only and SSM managed instance core policies are attached, and any
    `additional_policy_arns`."""

    name_prefix: str = Field(
        min_length=1,
        pattern=r"^[\w+=,.@-]+$",
        description="Start of the role's name (a pool's or cluster's name); the provider adds "
        f"a unique suffix, so a replacement never collides. Cut to {ROLE_NAME_PREFIX_MAX - 1} "
        "characters and ended with `-`. Required.",
    )
    partition: Literal["aws", "aws-cn", "aws-us-gov"] = Field(
        default="aws",
        description="AWS partition, for the policy ARNs (`arn:<partition>:iam::aws:policy/...`) "
        "and the EC2 service principal; default `aws`.",
    )
    tags: AwsTags = Field(default_factory=dict, description="Tags on the role; default {}.")

    def role_name_prefix(self) -> str:
        room = ROLE_NAME_PREFIX_MAX - 1
        return f"{self.name_prefix[:room].rstrip('-')}-"

    def policy_arns(self) -> dict[str, str]:
        """Policy name -> ARN in this partition."""
        return {name: f"arn:{self.partition}:iam::aws:policy/{name}" for name in NODE_POLICIES}

    def trust_policy(self) -> dict[str, object]:
        return {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "EKSNodeAssumeRole",
                    "Effect": "Allow",
                    "Principal": {"Service": f"ec2.{DNS_SUFFIX[self.partition]}"},
                    "Action": "sts:AssumeRole",
                }
            ],
        }

    def summary(self) -> dict[str, object]:
        """The role's spec as its component registers it: the role details (`path`,
        `permissions_boundary`, `additional_policy_arns`) only when given, so the inputs of
        a role without them read as they always have."""
        spec = self.model_dump()
        for field in ("path", "permissions_boundary", "additional_policy_arns"):
            if field not in self.model_fields_set:
                spec.pop(field)
        return spec
