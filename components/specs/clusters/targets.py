"""Cluster targets: where a pool lives, discriminated by `kind`."""

from __future__ import annotations

import base64
import ipaddress
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from nodepools.json_values import is_list
from nodepools.specs.clusters.rosa import RosaCluster
from nodepools.specs.core.aws_tags import AwsTags
from nodepools.specs.core.base import (
    Issue,
    PathError,
    SpecError,
    SpecModel,
    ValueNotShown,
    register_union_tags,
    wired,
)
from nodepools.specs.core.taints import Taint, merge_taints
from pydantic import Field, ValidationInfo, field_validator

if TYPE_CHECKING:
    from nodepools.specs.pools.args import ResolvedPool

_EKS_AMI_TYPES = (
    "AL2023_x86_64_STANDARD",
    "AL2023_ARM_64_STANDARD",
    "AL2023_x86_64_NVIDIA",
    "AL2023_ARM_64_NVIDIA",
    "AL2023_x86_64_NEURON",
    "AL2_x86_64",
    "AL2_x86_64_GPU",
    "AL2_ARM_64",
    "BOTTLEROCKET_x86_64",
    "BOTTLEROCKET_ARM_64",
    "BOTTLEROCKET_x86_64_NVIDIA",
    "BOTTLEROCKET_ARM_64_NVIDIA",
    "CUSTOM",
)
if TYPE_CHECKING:
    EksAmiType = str  # one of _EKS_AMI_TYPES, checked by pydantic
else:
    EksAmiType = Literal[_EKS_AMI_TYPES]

_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$")


class EksCluster(SpecModel):
    """An existing EKS cluster; pools become EKS managed node groups."""

    kind: Literal["eks"] = Field(description="Discriminator: `eks`.")
    cluster_name: Annotated[Any, wired(str)] = Field(
        description="EKS cluster name (or an Output). Required."
    )
    node_role_arn: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="IAM role ARN the nodes assume (or an Output, e.g. a shared `NodeRole`'s "
        "`role_arn`). Default None: each pool creates its own `NodeRole` (EC2 trust, the EKS "
        "worker, CNI, ECR read-only and SSM core managed policies).",
    )
    subnet_ids: Annotated[Any, wired(list[Annotated[Any, wired(str)]])] = Field(
        description="Subnets the nodes are launched in (or an Output). Required."
    )
    ami_type: EksAmiType | None = Field(
        default=None,
        description="EKS AMI type; default None picks the accelerated AL2023 variant for "
        "NVIDIA/Neuron instance types and EKS's default otherwise.",
    )
    partition: Literal["aws", "aws-cn", "aws-us-gov"] = Field(
        default="aws",
        description="AWS partition of the account, for the managed policy ARNs a created "
        "`NodeRole` attaches (`arn:<partition>:iam::aws:policy/...`); default `aws`.",
    )
    endpoint: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="API server endpoint (`https://...`, e.g. `aws.eks.Cluster.endpoint`); "
        "required by pools with `ami_id` (their nodeadm NodeConfig), unused otherwise. "
        "Default None.",
    )
    certificate_authority: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="The cluster's base64 certificate authority data (e.g. "
        "`aws.eks.Cluster.certificate_authority.data`); required by pools with `ami_id`. "
        "Default None.",
    )
    service_cidr: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="The cluster's Kubernetes service CIDR (e.g. "
        "`aws.eks.Cluster.kubernetes_network_config.service_ipv4_cidr`), from which nodeadm "
        "derives the cluster DNS address; required by pools with `ami_id`. Default None.",
    )
    tags: AwsTags = Field(
        default_factory=dict,
        description="AWS tags on every node group, checked by AWS's tag rules (keys 1-128, "
        "values up to 256 letters, digits, spaces and `_.:/=+-@`; no `aws:` keys); default {}.",
    )

    @field_validator("node_role_arn")
    @classmethod
    def _role_arn(cls, value: Any) -> Any:
        if isinstance(value, str) and not _ROLE_ARN.fullmatch(value):
            raise ValueError(
                f"{value!r} is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)"
            )
        return value

    @field_validator("endpoint")
    @classmethod
    def _https_endpoint(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.startswith("https://"):
            raise ValueError(f"{value!r} is not an API server URL (https://...)")
        return value

    @field_validator("service_cidr")
    @classmethod
    def _cidr(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                ipaddress.ip_network(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a CIDR block (e.g. 10.100.0.0/16)") from None
        return value

    @field_validator("certificate_authority")
    @classmethod
    def _base64(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                base64.b64decode(value, validate=True)
            except ValueError:
                # The name matches the secret-key rule; the message quotes no value.
                raise ValueNotShown(
                    "is not base64 certificate authority data (the value of "
                    "`certificateAuthority.data` in DescribeCluster)"
                ) from None
        return value

    @field_validator("subnet_ids")
    @classmethod
    def _some_subnets(cls, value: Any) -> Any:
        if is_list(value) and not value:
            raise ValueError("needs at least one subnet id (got [])")
        return value


class OkePlacement(SpecModel):
    """Where OKE nodes go: one availability domain and a worker subnet in it."""

    availability_domain: str = Field(min_length=1, description="e.g. `Uocm:PHX-AD-1`. Required.")
    subnet_id: Annotated[Any, wired(str)] = Field(
        description="Worker subnet OCID (or an Output). Required."
    )


class OkeAutoscalerAddon(SpecModel):
    """OKE's Cluster Autoscaler add-on (`ClusterAutoscaler`), configured with the cluster's
    autoscaled pools. The add-on runs the upstream cluster autoscaler in the cluster; it
    calls OCI to resize node pools with the identity `auth_type` names: `instance` (the
    worker nodes' instance principal: a dynamic group of the cluster's nodes needs a policy
    such as `Allow dynamic-group <group> to manage cluster-node-pools in compartment <c>`,
    plus `manage instance-family`, `use subnets`, `read virtual-network-family`, `use vnics`,
    `inspect compartments`) or `workload` (workload identity: enhanced clusters only, with a
    policy for the add-on's service account)."""

    auth_type: Literal["instance", "workload"] = Field(
        default="instance",
        description="How the autoscaler authenticates to OCI: `instance` (default) or "
        "`workload` (enhanced clusters only).",
    )
    num_of_replicas: int = Field(
        default=1, ge=1, le=3, description="Replicas of the autoscaler deployment; default 1."
    )


class OkeCluster(SpecModel):
    """An existing Oracle Kubernetes Engine cluster; pools become OKE node pools."""

    kind: Literal["oke"] = Field(description="Discriminator: `oke`.")
    cluster_id: Annotated[Any, wired(str)] = Field(
        description="Cluster OCID (or an Output). Required."
    )
    compartment_id: Annotated[Any, wired(str)] = Field(
        description="Compartment OCID (or an Output). Required."
    )
    image_id: Annotated[Any, wired(str)] = Field(
        description="Node image OCID (or an Output). Required."
    )
    placements: list[OkePlacement] = Field(
        min_length=1, description="Availability domains and subnets; at least one. Required."
    )
    kubernetes_version: str | None = Field(
        default=None,
        pattern=r"^v\d+\.\d+\.\d+$",
        description="Node Kubernetes version such as `v1.31.1`; default None uses the cluster's.",
    )
    # Before `cluster_autoscaler`, whose validator reads it.
    cluster_type: Literal["enhanced", "basic"] = Field(
        default="enhanced",
        description="The cluster's OKE type (its `type`: `ENHANCED_CLUSTER` or "
        "`BASIC_CLUSTER`; clusters created through the API or CLI without one are basic); "
        "default `enhanced`. A `basic` cluster has no cluster add-ons, no node cycling, no "
        "workload identity and at most 1,000 nodes (OCI docs, Comparing Enhanced Clusters "
        "with Basic Clusters), so on one an autoscaled pool needs `cluster_autoscaler: null` "
        "(run the cluster autoscaler yourself), a pool's `update` is refused, an "
        "AcceleratorStack needs `oke_addons: false` and `cluster_autoscaler.auth_type` "
        "can't be `workload`.",
    )
    cluster_autoscaler: OkeAutoscalerAddon | None = Field(
        default_factory=OkeAutoscalerAddon,
        description="The Cluster Autoscaler add-on that resizes the cluster's autoscaled "
        "pools (one per cluster, fed by every autoscaled pool of it in the stack); default "
        "`{auth_type: instance}`. None: you run an autoscaler yourself (without one, an "
        "autoscaled OKE pool never scales); required on a `basic` cluster with autoscaled "
        "pools, which can't install add-ons.",
    )

    @field_validator("cluster_autoscaler")
    @classmethod
    def _workload_identity_is_enhanced(
        cls, addon: OkeAutoscalerAddon | None, info: ValidationInfo
    ) -> OkeAutoscalerAddon | None:
        if (
            addon is not None
            and addon.auth_type == "workload"
            and info.data.get("cluster_type") == "basic"
        ):
            raise PathError(
                "auth_type",
                "'workload' can't be used: workload identity needs an enhanced cluster and "
                "`cluster_type` is 'basic'; use `auth_type: instance`",
            )
        return addon


def is_basic(cluster: object) -> bool:
    """Whether `cluster` is a basic OKE cluster (no add-ons, no node cycling)."""
    return getattr(cluster, "kind", None) == "oke" and getattr(cluster, "cluster_type", None) == (
        "basic"
    )


# OKE taints every node on preemptible capacity itself (OCI docs, "Using Preemptible
# Capacity to Provision Worker Nodes"); NoSchedule with no value to match, as
# oracle/karpenter-provider-oci documents it (FAQ: "Spot / preemptible nodes").
OKE_PREEMPTIBLE_TAINT = Taint(key="oci.oraclecloud.com/oke-is-preemptible", effect="NoSchedule")


def cloud_node_taints(cluster: object, spot: bool) -> list[Taint]:
    """Taints the cloud puts on a pool's nodes by itself: part of the pool's taints (so its
    scheduling info, recipes, Kueue flavors and device software tolerate them), never
    registered by its backend. OKE's preemptible taint on a spot pool; none elsewhere."""
    if spot and getattr(cluster, "kind", None) == "oke":
        return [OKE_PREEMPTIBLE_TAINT]
    return []


def pool_taints(
    defaults: Iterable[Taint], taints: Iterable[Taint], cluster: object, spot: bool
) -> tuple[Taint, ...]:
    """A pool's taints: its kind's `defaults`, overridden by the user's `taints` (same key
    and effect), then what the cloud taints its nodes with itself (`cloud_node_taints`),
    last because pods must tolerate those as the cloud writes them."""
    return tuple(merge_taints(defaults, [*taints, *cloud_node_taints(cluster, spot)]))


# The OCI cluster autoscaler models a node of an empty pool from its shape and offers its
# GPUs only as this resource (kubernetes/autoscaler, cluster-autoscaler/cloudprovider/oci:
# nodepools/oci_manager.go `buildNodeFromTemplate`, instancepools/consts `ResourceGPU`).
OCI_AUTOSCALER_GPU_RESOURCE = "nvidia.com/gpu"


def check_oke_pool(pool: ResolvedPool) -> None:
    """Raise SpecError for what OKE can't do with `pool` (run by every pool on an OKE cluster
    before it registers anything): the enhanced-cluster features a basic cluster lacks, and
    scale from zero the OCI cluster autoscaler can't do."""
    cluster = pool.cluster
    issues: list[Issue] = []
    if is_basic(cluster) and pool.update is not None:
        issues.append(
            Issue(
                "update",
                f"{pool.update.model_dump(exclude_none=True)!r} can't be used: it is OKE's "
                "node cycling, which basic clusters don't have (`cluster.cluster_type` is "
                "'basic'); remove `update`, or upgrade the cluster to enhanced and set "
                "`cluster_type: enhanced`",
            )
        )
    bounds = f"{pool.min_nodes}..{pool.max_nodes}"
    if pool.autoscaled and is_basic(cluster) and cluster.cluster_autoscaler is not None:
        issues.append(
            Issue(
                "autoscaling",
                f"{bounds} needs a cluster autoscaler, and the cluster's `cluster_autoscaler` "
                "would install OKE's ClusterAutoscaler add-on, which basic clusters can't "
                "install (`cluster.cluster_type` is 'basic'); set the cluster's "
                "`cluster_autoscaler: null` and run the cluster autoscaler yourself, use "
                "fixed `replicas`, or an enhanced cluster",
            )
        )
    accelerator = pool.node_accelerator
    if (
        pool.autoscaled
        and pool.min_nodes == 0
        and accelerator is not None
        and accelerator.resource != OCI_AUTOSCALER_GPU_RESOURCE
    ):
        issues.append(
            Issue(
                "autoscaling.min_replicas",
                f"0 (autoscaling {bounds}) can't be used: the OCI cluster autoscaler models an "
                f"empty node pool with GPUs only as `{OCI_AUTOSCALER_GPU_RESOURCE}`, so pods "
                f"asking for `{accelerator.resource}` never scale this pool up from zero; "
                "set `min_replicas` to at least 1",
            )
        )
    if issues:
        raise SpecError(f"pool {pool.component_name!r}", issues)


register_union_tags("eks", "oke", "rosa")

ClusterTarget = Annotated[EksCluster | OkeCluster | RosaCluster, Field(discriminator="kind")]


class ClusterCapabilities(SpecModel):
    """What a kind of cluster can do; specs check requests against it before any call."""

    title: str
    spot_max_price: bool = Field(description="Can the spot price be capped?")
    spot_max_price_why: str = ""
    boot_volume_gb: tuple[int, int] = Field(description="Inclusive range of boot volume sizes.")
    replicas_multiple: int = Field(default=1, description="Node counts must be multiples of this.")
    multi_az_replicas_multiple: int = Field(
        default=1,
        description="`replicas_multiple` on a cluster whose `multi_az` is true; default 1.",
    )
    replicas_multiple_why: str = Field(
        default="", description="Why counts must be multiples, quoted in errors; default empty."
    )
    accelerator_boot_volume_gb: int | None = Field(
        default=None,
        description="Boot volume (GiB) an accelerator pool gets when it names none; default "
        "None leaves the cloud's default, when that already fits GPU images.",
    )
    max_nodes: int = Field(description="Most nodes one pool can ask for on this cloud.")
    max_nodes_why: str = Field(description="Where that limit comes from, quoted in errors.")


# Managed nodes a basic OKE cluster holds (an enhanced one: the capabilities' 2,000).
OKE_BASIC_MAX_NODES = 1000

CAPABILITIES: dict[str, ClusterCapabilities] = {
    "eks": ClusterCapabilities(
        title="EKS managed node groups",
        spot_max_price=False,
        spot_max_price_why="EKS refuses spot options in a node group's launch template, so "
        "the price is always capped at on-demand",
        boot_volume_gb=(1, 16384),
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
    ),
    "oke": ClusterCapabilities(
        title="OKE node pools",
        spot_max_price=False,
        spot_max_price_why="OCI preemptible capacity has a fixed discount and no bid price",
        boot_volume_gb=(50, 32768),
        # OKE's default boot volume is 46.6 GB, about 12 GB free for images on an Oracle
        # Linux node (Oracle A-Team, "OKE node sizing for very large container images"):
        # one GPU framework image does not fit. The node's cloud-init grows the root
        # filesystem to the volume (oci-growfs), without which the size would go unused.
        accelerator_boot_volume_gb=100,
        max_nodes=2000,
        max_nodes_why="an OKE enhanced cluster has at most 2,000 managed nodes (a basic "
        "cluster 1,000; OCI docs, Kubernetes Engine Limits)",
    ),
    "rosa": ClusterCapabilities(
        title="ROSA Classic machine pools",
        spot_max_price=True,
        boot_volume_gb=(128, 16384),
        # None: OCM's default root volume for Classic is 300 GiB, which fits GPU images.
        multi_az_replicas_multiple=3,
        replicas_multiple_why="a multi-AZ cluster spreads every machine pool evenly over "
        "its 3 availability zones",
        max_nodes=180,
        max_nodes_why="a ROSA Classic cluster is supported up to 180 compute nodes (Red Hat, "
        "ROSA limits and scalability)",
    ),
}


def capabilities_for(cluster: object, *, single_zone: bool = False) -> ClusterCapabilities | None:
    """What `cluster` can do: its kind's capabilities, adjusted for a multi-AZ cluster (unless
    the pool is pinned to one of its zones: `single_zone`)."""
    kind = getattr(cluster, "kind", None)
    caps = CAPABILITIES.get(kind) if isinstance(kind, str) else None
    if caps is not None and getattr(cluster, "multi_az", False) is True and not single_zone:
        return caps.model_copy(update={"replicas_multiple": caps.multi_az_replicas_multiple})
    if caps is not None and is_basic(cluster):
        return caps.model_copy(update={"max_nodes": OKE_BASIC_MAX_NODES})
    return caps


def default_boot_volume_gb(cluster: object, accelerated: bool) -> int | None:
    """The boot volume a pool gets when it names none: a size that fits GPU images on
    accelerator pools where the cloud's default does not, else None (the cloud's)."""
    caps = CAPABILITIES.get(getattr(cluster, "kind", None) or "")
    return caps.accelerator_boot_volume_gb if caps is not None and accelerated else None


def boot_volume_problem(size: int, cluster: object) -> str | None:
    """Why `size` GiB is not a boot volume `cluster` can take, or None."""
    caps = capabilities_for(cluster)
    if caps is None:
        return None
    low, high = caps.boot_volume_gb
    if low <= size <= high:
        return None
    return f"{size} is outside {low}..{high} GiB for {caps.title}"
