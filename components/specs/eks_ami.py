"""Which EKS AMI type a node group gets: the node's CPU architecture and accelerator decide.

Without an explicit AMI type EKS picks its standard x86_64 AMI: a Graviton group would not
boot, and accelerator nodes would join without a driver and never advertise their devices.
AMI type names: EKS `Nodegroup.amiType` (AWS CDK `NodegroupAmiType` lists the same values:
https://docs.aws.amazon.com/cdk/api/v2/python/aws_cdk.aws_eks/NodegroupAmiType.html).
"""

from __future__ import annotations

from nodepools.specs.instance_types import architecture

NVIDIA = "nvidia.com/gpu"
NEURON = "aws.amazon.com/neuron"

# (architecture, accelerator resource or None) -> AMI type. x86_64 CPU pools keep EKS's
# default (None): naming it would replace every existing x86 group for no change.
DEFAULT_AMI_TYPES: dict[tuple[str, str | None], str] = {
    ("x86_64", NVIDIA): "AL2023_x86_64_NVIDIA",
    ("arm64", NVIDIA): "AL2023_ARM_64_NVIDIA",
    ("x86_64", NEURON): "AL2023_x86_64_NEURON",
    ("arm64", None): "AL2023_ARM_64_STANDARD",
}


def ami_architecture(ami_type: str) -> str | None:
    """The CPU architecture an AMI type boots, or None (CUSTOM: the launch template's AMI)."""
    if "ARM_64" in ami_type:
        return "arm64"
    if "x86_64" in ami_type:
        return "x86_64"
    return None


def default_ami_type(instance_type: str, accelerator_resource: str | None) -> str | None:
    """The AMI type for a pool of `instance_type` with that accelerator (None: EKS's default).

    An accelerator EKS has no AMI for (AMD GPUs) gets the standard AMI of the architecture:
    its driver comes from an operator, as on any other Kubernetes."""
    arch = architecture(instance_type)
    found = DEFAULT_AMI_TYPES.get((arch, accelerator_resource))
    return found if found is not None else DEFAULT_AMI_TYPES.get((arch, None))


def ami_type_problem(ami_type: str | None, instance_type: str) -> str | None:
    """Why the cluster's `ami_type` can't boot `instance_type` (an other architecture)."""
    if not ami_type:
        return None
    ami_arch = ami_architecture(ami_type)
    arch = architecture(instance_type)
    if ami_arch is None or ami_arch == arch:
        return None
    return (
        f"{instance_type!r} is an {arch} instance type, but `cluster.ami_type` "
        f"{ami_type!r} is an {ami_arch} AMI, so EKS can't launch it; remove "
        "`cluster.ami_type` (each pool then gets the AMI type of its architecture and "
        f"accelerator) or use an {arch} one for this pool's cluster entry"
    )
