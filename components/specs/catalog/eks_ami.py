"""Which EKS AMI type a node group gets: the node's CPU architecture and accelerator decide;
and how big the volumes of the EKS AMI families are (a volume can't be smaller).

Without an explicit AMI type EKS picks its standard x86_64 AMI: a Graviton group would not
boot, and accelerator nodes would join without a driver and never advertise their devices.
AMI type names: EKS `Nodegroup.amiType` (AWS CDK `NodegroupAmiType` lists the same values:
https://docs.aws.amazon.com/cdk/api/v2/python/aws_cdk.aws_eks/NodegroupAmiType.html).
"""

from __future__ import annotations

from nodepools.specs.catalog.instance_types import architecture

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


# The volumes of the EKS AMI families, one source for the EKS launch template and Karpenter's
# EC2NodeClass. Amazon Linux (and the AL2023-based custom AMIs nodeadm boots) keep the OS,
# containers and images on one root volume, /dev/xvda; Windows's root is /dev/sda1.
# Bottlerocket keeps its OS on a small /dev/xvda and containers and images on a data
# volume, /dev/xvdb (Karpenter's amifamily `Bottlerocket.DefaultBlockDeviceMappings` and
# `EphemeralBlockDevice`): that is the volume a pool's boot volume size is for.
ROOT_DEVICE = "/dev/xvda"
WINDOWS_ROOT_DEVICE = "/dev/sda1"
BOTTLEROCKET_OS_DEVICE = ROOT_DEVICE
BOTTLEROCKET_DATA_DEVICE = "/dev/xvdb"


def is_bottlerocket(ami_type: str | None) -> bool:
    """Whether the EKS AMI type is a Bottlerocket one (`BOTTLEROCKET_x86_64_NVIDIA`, ...)."""
    return ami_type is not None and ami_type.startswith("BOTTLEROCKET_")


def container_volume_device(ami_type: str | None) -> str:
    """The device of the volume that holds containers and images on a node group of
    `ami_type` (None: EKS's default Amazon Linux AMI): Bottlerocket's data volume, else the
    root volume."""
    return BOTTLEROCKET_DATA_DEVICE if is_bottlerocket(ami_type) else ROOT_DEVICE


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


# The size (GiB) of the snapshot behind each EKS AMI family's volume that holds containers
# and images: EC2 refuses a volume smaller than its snapshot, so a launch template (a
# pool's or Karpenter's) asking for less never launches a node. Amazon Linux 2 and 2023:
# 20 (awslabs/amazon-eks-ami, the AMI's /dev/xvda mapping and the AL2023 build's
# `launch_block_device_mappings_volume_size`); Bottlerocket's data volume /dev/xvdb: 20
# (its EKS variants publish 2 GiB of OS and 20 of data; EKS's and Karpenter's 20 GiB
# default); Windows /dev/sda1: 50 (EKS CreateNodegroup's Windows default disk, Karpenter's
# Windows `DefaultBlockDeviceMappings`).
AMI_VOLUME_GB = {"al2": 20, "al2023": 20, "bottlerocket": 20, "windows": 50}


def ami_family(ami_type: str | None) -> str | None:
    """The AMI family (`AMI_VOLUME_GB`'s keys) of an EKS AMI type; None (EKS's default
    for the instance type) is Amazon Linux; CUSTOM, or a type of no known family, None."""
    if ami_type is None:
        return "al2023"
    for prefix, family in (
        ("AL2023_", "al2023"),
        ("AL2_", "al2"),
        ("BOTTLEROCKET_", "bottlerocket"),
        ("WINDOWS_", "windows"),
    ):
        if ami_type.startswith(prefix):
            return family
    return None


def family_volume_device(family: str) -> str:
    """The device of the volume that holds containers and images for an AMI family."""
    if family == "bottlerocket":
        return BOTTLEROCKET_DATA_DEVICE
    return WINDOWS_ROOT_DEVICE if family.startswith("windows") else ROOT_DEVICE


def ami_volume_problem(size_gb: float, family: str | None, what: str) -> str | None:
    """Why a `size_gb` GiB container volume can't boot an AMI of `family` (`al2023`,
    `bottlerocket`, `windows2022`...; None: unknown, not checked). `what` names the AMI
    for the message."""
    if family is None:
        return None
    least = AMI_VOLUME_GB.get("windows" if family.startswith("windows") else family)
    if least is None or size_gb >= least:
        return None
    device = family_volume_device(family)
    return (
        f"{size_gb:g} GiB is smaller than the {least} GiB snapshot of {what}'s {device}, "
        f"and EC2 refuses a volume smaller than its snapshot: give at least {least}"
    )


# The public SSM parameter holding the latest release of each EKS AMI family
# (terraform-aws-eks `ssm_ami_type_to_ssm_param`; EKS user guide, "Retrieve recommended
# Amazon Linux AMI IDs" and "... Bottlerocket AMI IDs"). `{k}` is the Kubernetes version.
_AL2023_RELEASE = "/aws/service/eks/optimized-ami/{k}/amazon-linux-2023/{arch}/{variant}/recommended/release_version"
_AL2_RELEASE = "/aws/service/eks/optimized-ami/{k}/{name}/recommended/release_version"
_BOTTLEROCKET_RELEASE = "/aws/service/bottlerocket/aws-k8s-{k}{variant}/{arch}/latest/image_version"
_RELEASE_PARAMETERS = {
    "AL2023_x86_64_STANDARD": _AL2023_RELEASE.format(k="{k}", arch="x86_64", variant="standard"),
    "AL2023_ARM_64_STANDARD": _AL2023_RELEASE.format(k="{k}", arch="arm64", variant="standard"),
    "AL2023_x86_64_NVIDIA": _AL2023_RELEASE.format(k="{k}", arch="x86_64", variant="nvidia"),
    "AL2023_ARM_64_NVIDIA": _AL2023_RELEASE.format(k="{k}", arch="arm64", variant="nvidia"),
    "AL2023_x86_64_NEURON": _AL2023_RELEASE.format(k="{k}", arch="x86_64", variant="neuron"),
    "AL2_x86_64": _AL2_RELEASE.format(k="{k}", name="amazon-linux-2"),
    "AL2_x86_64_GPU": _AL2_RELEASE.format(k="{k}", name="amazon-linux-2-gpu"),
    "AL2_ARM_64": _AL2_RELEASE.format(k="{k}", name="amazon-linux-2-arm64"),
    "BOTTLEROCKET_x86_64": _BOTTLEROCKET_RELEASE.format(k="{k}", variant="", arch="x86_64"),
    "BOTTLEROCKET_ARM_64": _BOTTLEROCKET_RELEASE.format(k="{k}", variant="", arch="arm64"),
    "BOTTLEROCKET_x86_64_NVIDIA": _BOTTLEROCKET_RELEASE.format(k="{k}", variant="-nvidia", arch="x86_64"),
    "BOTTLEROCKET_ARM_64_NVIDIA": _BOTTLEROCKET_RELEASE.format(k="{k}", variant="-nvidia", arch="arm64"),
}  # fmt: skip


def release_parameter(ami_type: str | None, kubernetes_version: str) -> str:
    """The SSM parameter of the latest release of `ami_type` (None: EKS's default, the
    standard x86_64 AL2023 AMI) for `kubernetes_version` (`1.33`)."""
    template = _RELEASE_PARAMETERS[ami_type or "AL2023_x86_64_STANDARD"]
    return template.format(k=kubernetes_version)


def has_release_parameter(ami_type: str | None) -> bool:
    """Whether EKS publishes the latest release of `ami_type` in SSM (CUSTOM: no)."""
    return (ami_type or "AL2023_x86_64_STANDARD") in _RELEASE_PARAMETERS
