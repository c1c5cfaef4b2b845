"""What each cloud's pools can be: one `ClusterCapabilities` entry per cloud.

Every rule a pool spec checks against its cloud (a field the cloud has no setting for, a
range, a multiple, a limit on labels and taints, what spot capacity can be) is read from
this table through `capabilities_for(cluster)`, never from the cluster's `kind`: adding or
correcting a cloud's rule is an edit of its entry, and the checks stay one per rule.
"""

from __future__ import annotations

from typing import Any, Literal

from nodepools.specs.core.base import SpecModel
from nodepools.specs.core.taints import Taint
from pydantic import Field


class ClusterCapabilities(SpecModel):
    """What one cloud's pools can be; the pool specs check requests against it before any
    call. The `*_why` texts are quoted in the errors."""

    title: str = Field(description="The cloud's pools as errors name them. Required.")
    refused: dict[str, str] = Field(
        default_factory=dict,
        description="Pool arg (`update`), or a part of one (`boot_volume.iops`), that the "
        "cloud has no setting for -> why, with what to do instead; given at all, it is "
        "refused. Default {}.",
    )
    refused_values: dict[str, tuple[Any, str]] = Field(
        default_factory=dict,
        description="Part of a pool arg -> (the one value of it the cloud can't take, why). "
        "Default {}.",
    )
    spot_max_price: bool = Field(description="Can the spot price be capped? Required.")
    spot_max_price_why: str = Field(default="", description="Why not; default empty.")
    spot_bare_metal: bool = Field(
        default=True, description="Is there spot capacity of bare-metal shapes? Default true."
    )
    spot_bare_metal_why: str = Field(default="", description="Why not; default empty.")
    spot_node_taints: tuple[Taint, ...] = Field(
        default=(),
        description="Taints the cloud puts on spot nodes itself: part of the pool's taints "
        "(so pods are given tolerations for them), never registered by the backend. "
        "Default ().",
    )
    boot_volume_gb: tuple[int, int] = Field(
        description="Inclusive range of boot volume sizes in GiB. Required."
    )
    eks_ami_volumes: bool = Field(
        default=False,
        description="Is the boot volume made from an EKS AMI's snapshot, so that it can't be "
        "smaller than the AMI family's (`catalog.eks_ami.AMI_VOLUME_GB`)? Default false.",
    )
    accelerator_boot_volume_gb: int | None = Field(
        default=None,
        description="Boot volume (GiB) an accelerator pool gets when it names none; default "
        "None leaves the cloud's default, when that already fits GPU images.",
    )
    replicas_multiple: int = Field(
        default=1,
        description="Node counts must be multiples of this (unless the pool is pinned to "
        "one zone); default 1.",
    )
    replicas_multiple_why: str = Field(default="", description="Why; default empty.")
    max_nodes: int = Field(description="Most nodes one pool can ask for. Required.")
    max_nodes_why: str = Field(description="Where that limit comes from. Required.")
    capacity_reservations: Literal["ec2", "oci"] | None = Field(
        default=None,
        description="Whose capacity reservations a pool can launch into (their ids and "
        "rules differ); default None: none (then `capacity_reservation` is `refused`).",
    )
    label_key_max: int | None = Field(
        default=None,
        description="Longest node label key the cloud takes, prefix included; default None: "
        "Kubernetes' own rule (a 253-character prefix and a 63-character name).",
    )
    empty_label_values: bool = Field(
        default=True, description="Can a node label value be empty? Default true."
    )
    taint_key_max: int | None = Field(
        default=None,
        description="Longest taint key, prefix included; default None: Kubernetes' rule.",
    )
    taints_max: int | None = Field(
        default=None, description="Most taints on one pool; default None: no limit."
    )
    scale_from_zero_resources: tuple[str, ...] | None = Field(
        default=None,
        description="The only accelerator resources an autoscaled pool can scale up from "
        "zero nodes for; default None: any.",
    )
    scale_from_zero_why: str = Field(default="", description="Why only those; default empty.")
    cluster_addons: bool = Field(
        default=True, description="Can the cluster install add-ons? Default true."
    )
    cluster_addons_why: str = Field(default="", description="Why not; default empty.")
    basic: ClusterCapabilities | None = Field(
        default=None,
        description="What the cloud's basic clusters (`cluster_type: basic`) can be instead; "
        "default None: the cloud has no such clusters.",
    )
    multi_az: ClusterCapabilities | None = Field(
        default=None,
        description="What pools of a multi-AZ cluster (`multi_az: true`) can be instead; "
        "default None: the same.",
    )


def _variant(base: ClusterCapabilities, **changes: Any) -> ClusterCapabilities:
    return base.model_copy(update=changes)


ONE_INSTANCE_TYPE = "one instance type per pool; give `instance_type`, or one pool per type"
NO_LAUNCH_TEMPLATE = "there is no launch template to take it (EKS only)"
EKS_ONLY_NETWORK = "`network` is EKS only"
ROSA_ONLY_GROUPS = "`additional_security_group_ids` is ROSA only"

# The settings only an EKS node group has (`pools.eks_settings`) -> why OKE and ROSA
# refuse them.
_EKS_ONLY_SETTINGS = {
    "tags": "it tags an EKS node group's AWS resources; `tags` is EKS only",
    "instance_tags": "it is an EKS launch template's `tag_specifications`; `instance_tags` "
    "is EKS only",
    "node_group_name": "it names an EKS node group; the pool's cloud name is `pool_name`",
    "ami_family": "it says what a custom `ami_id` boots; `ami_family` is EKS only",
    "remote_access": "it is an EKS node group's SSH access; `remote_access` is EKS only",
    "launch_template": NO_LAUNCH_TEMPLATE,
    "node_role": "the pool creates no IAM role there; `node_role` is EKS only",
    "follow_latest_release": "it follows EKS-optimized AMI releases; `follow_latest_release` "
    "is EKS only",
    "force_update_version": "it is an EKS node group's forced update; "
    "`force_update_version` is EKS only",
    "gpu_node_label": "its nodes never get the EKS cluster autoscaler's GPU label, so there is "
    "nothing to leave out; remove it",
    "network.efa_only": f"{EKS_ONLY_NETWORK}",
    "node_config.local_storage": "it is nodeadm's (EKS AL2023); format instance storage in "
    "`node_config.user_data`",
    "node_config.bottlerocket": "it is Bottlerocket's, an EKS AMI; remove it",
}

_EKS = ClusterCapabilities(
    title="EKS managed node groups",
    refused={
        "availability_zone": "a node group is placed by subnets; give the zone's subnet as "
        "`network.subnet_id`",
        "subnet_id": "give the pool's one subnet as `network.subnet_id` (the node group's "
        "`subnet_ids`); `subnet_id` is ROSA's",
        "additional_security_group_ids": "security groups in a node group's launch template "
        "replace the cluster security group rather than add to it; put the rules on the "
        f"cluster's groups ({ROSA_ONLY_GROUPS})",
    },
    spot_max_price=False,
    spot_max_price_why="EKS refuses spot options in a node group's launch template, so "
    "the price is always capped at on-demand",
    boot_volume_gb=(1, 16384),
    eks_ami_volumes=True,
    # EKS's default disk is 20 GiB (CreateNodegroup `diskSize`): the NVIDIA/Neuron AMI
    # plus one CUDA or PyTorch image (10-20 GB unpacked) fill it, and the kubelet then
    # evicts pods for disk pressure. eksctl settled on 80 GiB for every node
    # (eksctl-io/eksctl#780), GKE uses 100 GB; accelerator nodes pull the largest
    # images, so 100 GiB.
    accelerator_boot_volume_gb=100,
    # EKS's own quota (nodes per managed node group, 450 by default) can be raised on
    # request, so it is not a refusal here; no cluster goes past Kubernetes' limit.
    max_nodes=5000,
    max_nodes_why="a Kubernetes cluster supports at most 5,000 nodes (kubernetes.io, "
    "Considerations for large clusters); EKS's quota of nodes per managed node group "
    "is 450 unless raised",
    capacity_reservations="ec2",
    # Stricter than Kubernetes (a key may have a 253-character prefix before its
    # 63-character name, a label value may be empty): the EKS API's `labelKey` and
    # `labelValue` are 1 to 63 characters, `taintKey` 1 to 63 (botocore's EKS model;
    # pulumi_aws `NodeGroupTaint`), and a node group has at most 50 taints
    # (terraform-provider-aws `aws_eks_node_group` `taint` MaxItems).
    label_key_max=63,
    empty_label_values=False,
    taint_key_max=63,
    taints_max=50,
)

_OKE = ClusterCapabilities(
    title="OKE node pools",
    refused={
        "instance_types": f"they run {ONE_INSTANCE_TYPE}",
        "metadata_options": NO_LAUNCH_TEMPLATE,
        "auto_repair": "`oci.containerengine.NodePool` has no node auto-repair setting",
        "release_version": "the cluster's `image_id` picks the image; `release_version` is "
        "EKS only",
        "ami_id": "set the image with the cluster's `image_id`; `ami_id` is EKS only",
        "availability_zone": "availability domains come from the cluster's `placements`",
        "subnet_id": "worker subnets come from the cluster's `placements`",
        "additional_security_group_ids": "node pools take network security groups, not AWS "
        f"security groups ({ROSA_ONLY_GROUPS})",
        "network": "`oci.containerengine.NodePool` has no EFA, placement group or per-pool "
        f"subnet argument (RDMA needs an OCI cluster network); {EKS_ONLY_NETWORK}",
        "node_config.kubelet": "their cloud-init passes kubelet flags, not a "
        "KubeletConfiguration; `max_pods` and `user_data` work there",
        **dict.fromkeys(
            ("boot_volume.type", "boot_volume.iops", "boot_volume.throughput"),
            "OCI boot volumes are set by size (and performance per GB on the volume, which "
            "node pools don't expose); `size_gb` and `kms_key_id` work there",
        ),
        "capacity_reservation.resource_group_arn": "it is an AWS resource group; OKE takes "
        "OCI capacity reservation OCIDs in `ids`",
        **_EKS_ONLY_SETTINGS,
    },
    refused_values={
        "boot_volume.encrypted": (False, "OCI always encrypts boot volumes; remove it"),
        "capacity_reservation.type": (
            "capacity_block",
            "it is an EC2 purchase option; OCI capacity reservations are `on_demand`",
        ),
    },
    spot_max_price=False,
    spot_max_price_why="OCI preemptible capacity has a fixed discount and no bid price",
    # OCI: "Preemptible capacity does not support bare metal instances".
    spot_bare_metal=False,
    spot_bare_metal_why="OCI preemptible capacity does not support bare metal instances; set "
    "`spot: null` for on-demand nodes, or use a VM shape for spot",
    # OKE taints every node on preemptible capacity itself (OCI docs, "Using Preemptible
    # Capacity to Provision Worker Nodes"); NoSchedule with no value to match, as
    # oracle/karpenter-provider-oci documents it (FAQ: "Spot / preemptible nodes").
    spot_node_taints=(Taint(key="oci.oraclecloud.com/oke-is-preemptible", effect="NoSchedule"),),
    boot_volume_gb=(50, 32768),
    # OKE's default boot volume is 46.6 GB, about 12 GB free for images on an Oracle
    # Linux node (Oracle A-Team, "OKE node sizing for very large container images"):
    # one GPU framework image does not fit. The node's cloud-init grows the root
    # filesystem to the volume (oci-growfs), without which the size would go unused.
    accelerator_boot_volume_gb=100,
    max_nodes=2000,
    max_nodes_why="an OKE enhanced cluster has at most 2,000 managed nodes (a basic "
    "cluster 1,000; OCI docs, Kubernetes Engine Limits)",
    capacity_reservations="oci",
    # kubernetes/autoscaler, cluster-autoscaler/cloudprovider/oci: nodepools/oci_manager.go
    # `buildNodeFromTemplate`, instancepools/consts `ResourceGPU`.
    scale_from_zero_resources=("nvidia.com/gpu",),
    scale_from_zero_why="the OCI cluster autoscaler models an empty node pool with GPUs only "
    "as `nvidia.com/gpu`",
)
# OCI docs, Comparing Enhanced Clusters with Basic Clusters.
_OKE_BASIC = _variant(
    _OKE,
    refused={
        **_OKE.refused,
        "update": "it is OKE's node cycling, which basic clusters don't have "
        "(`cluster.cluster_type` is 'basic'); remove `update`, or upgrade the cluster to "
        "enhanced and set `cluster_type: enhanced`",
    },
    max_nodes=1000,
    cluster_addons=False,
    cluster_addons_why="basic clusters can't install add-ons (`cluster.cluster_type` is 'basic')",
)

_ROSA = ClusterCapabilities(
    title="ROSA Classic machine pools",
    refused={
        "instance_types": f"they run {ONE_INSTANCE_TYPE}",
        "node_config": "OpenShift owns the kubelet config (set it cluster-wide with a "
        "KubeletConfig through the machine config operator)",
        "metadata_options": NO_LAUNCH_TEMPLATE,
        "update": "OpenShift's machine config pool rolls nodes (its `maxUnavailable`, "
        "cluster-wide)",
        "auto_repair": "OpenShift's machine health checks repair nodes",
        "release_version": "OpenShift versions its nodes; `release_version` is EKS only",
        "ami_id": "OpenShift picks the machine image; `ami_id` is EKS only",
        "availability_zone": "a machine pool's zone can only be chosen on a multi-AZ cluster "
        "(OCM), and this cluster's `multi_az` is false",
        "network": "OCM machine pools have no network interface or placement group setting; "
        f"{EKS_ONLY_NETWORK}",
        "capacity_reservation": "OCM machine pools have no capacity reservation setting",
        **dict.fromkeys(
            (
                "boot_volume.type",
                "boot_volume.iops",
                "boot_volume.throughput",
                "boot_volume.encrypted",
                "boot_volume.kms_key_id",
            ),
            "OCM machine pools take the root volume size only (`size_gb`)",
        ),
        **_EKS_ONLY_SETTINGS,
    },
    spot_max_price=True,
    boot_volume_gb=(128, 16384),
    # None: OCM's default root volume for Classic is 300 GiB, which fits GPU images.
    max_nodes=180,
    max_nodes_why="a ROSA Classic cluster is supported up to 180 compute nodes (Red Hat, "
    "ROSA limits and scalability)",
)
_ROSA_MULTI_AZ = _variant(
    _ROSA,
    refused={k: why for k, why in _ROSA.refused.items() if k != "availability_zone"},
    replicas_multiple=3,
    replicas_multiple_why="a multi-AZ cluster spreads every machine pool evenly over its "
    "3 availability zones",
)

# One entry per cloud, by cluster `kind`.
CAPABILITIES: dict[str, ClusterCapabilities] = {
    "eks": _EKS,
    "oke": _variant(_OKE, basic=_OKE_BASIC),
    "rosa": _variant(_ROSA, multi_az=_ROSA_MULTI_AZ),
}


def capabilities_for(cluster: object) -> ClusterCapabilities | None:
    """What `cluster` can do: its cloud's entry, or the entry's variant for a basic or a
    multi-AZ cluster; None for no known cluster (an invalid one, say)."""
    kind = getattr(cluster, "kind", None)
    caps = CAPABILITIES.get(kind) if isinstance(kind, str) else None
    if caps is None:
        return None
    if caps.basic is not None and getattr(cluster, "cluster_type", None) == "basic":
        caps = caps.basic
    if caps.multi_az is not None and getattr(cluster, "multi_az", False) is True:
        caps = caps.multi_az
    return caps


def default_boot_volume_gb(cluster: object, accelerated: bool) -> int | None:
    """The boot volume a pool gets when it names none: a size that fits GPU images on
    accelerator pools where the cloud's default does not, else None (the cloud's)."""
    caps = capabilities_for(cluster)
    return caps.accelerator_boot_volume_gb if caps is not None and accelerated else None


def cloud_node_taints(cluster: object, spot: bool) -> list[Taint]:
    """Taints the cloud puts on a pool's nodes by itself: part of the pool's taints (so its
    scheduling info, recipes, Kueue flavors and device software tolerate them), never
    registered by its backend."""
    caps = capabilities_for(cluster)
    return list(caps.spot_node_taints) if spot and caps is not None else []
