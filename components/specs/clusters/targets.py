"""Cluster targets: where a pool lives, discriminated by `kind`."""

from __future__ import annotations

import base64
import ipaddress
import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from nodepools.json_values import is_list
from nodepools.specs.clusters.identifiers import (
    check_compartment_id,
    check_image_id,
    check_oci_subnet_id,
    check_oke_cluster_id,
    check_subnet_id,
    eks_cluster_name_problem,
    written_by_user,
)
from nodepools.specs.clusters.rosa import RosaCluster
from nodepools.specs.core.aws_tags import MAX_TAGS, AwsTags
from nodepools.specs.core.base import (
    PathError,
    SpecModel,
    ValueNotShown,
    register_union_tags,
    wired,
)
from nodepools.specs.core.labels import POOL_LABEL
from pydantic import Field, ValidationInfo, field_validator, model_validator

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
        description="EKS cluster name (or an Output): 1 to 100 letters, digits, `-` and `_`, "
        "starting with a letter or digit. Required."
    )
    node_role_arn: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="IAM role ARN the nodes assume (or an Output, e.g. a shared `NodeRole`'s "
        "`role_arn`). Default None: each pool creates its own `NodeRole` (EC2 trust, the EKS "
        "worker, CNI, ECR read-only and SSM core managed policies).",
    )
    subnet_ids: Annotated[Any, wired(list[Annotated[Any, wired(str)]])] = Field(
        description="Subnets the nodes are launched in (`subnet-...` ids, or an Output). Required."
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
        "values up to 256 letters, digits, spaces and `_.:/=+-@`; no `aws:` keys); at most "
        f"{MAX_TAGS - 1}, as each pool adds `{POOL_LABEL}`; default {{}}.",
    )

    @field_validator("cluster_name")
    @classmethod
    def _cluster_name(cls, value: Any, info: ValidationInfo) -> Any:
        if written_by_user(info) and (problem := eks_cluster_name_problem(value)):
            raise ValueError(problem)
        return value

    @field_validator("tags")
    @classmethod
    def _room_for_the_pool_tag(cls, tags: dict[str, str]) -> dict[str, str]:
        # Every resource a pool makes (node group, launch template, security and placement
        # groups) carries these and the pool's own tag; AWS allows 50 per resource.
        if POOL_LABEL in tags:
            raise PathError(
                f'["{POOL_LABEL}"]',
                f"{tags[POOL_LABEL]!r}: every pool sets its own `{POOL_LABEL}` tag to its name; "
                "remove it",
            )
        if len(tags) > MAX_TAGS - 1:
            raise ValueError(
                f"{len(tags)} tags, and each pool adds `{POOL_LABEL}` to them on its node group, "
                f"launch template and groups, where AWS allows {MAX_TAGS}: give at most "
                f"{MAX_TAGS - 1}"
            )
        return tags

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
    def _some_subnets(cls, value: Any, info: ValidationInfo) -> Any:
        if is_list(value) and not value:
            raise ValueError("needs at least one subnet id (got [])")
        if is_list(value):
            for index, subnet in enumerate(value):
                try:
                    check_subnet_id(subnet, info)
                except ValueError as exc:
                    raise PathError(f"[{index}]", str(exc)) from None
        return value


class OkePlacement(SpecModel):
    """Where OKE nodes go: one availability domain and a worker subnet in it."""

    availability_domain: str = Field(min_length=1, description="e.g. `Uocm:PHX-AD-1`. Required.")
    subnet_id: Annotated[Any, wired(str)] = Field(
        description="Worker subnet OCID (or an Output). Required."
    )

    _subnet_ocid = field_validator("subnet_id")(check_oci_subnet_id)


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

    _cluster_ocid = field_validator("cluster_id")(check_oke_cluster_id)
    _compartment_ocid = field_validator("compartment_id")(check_compartment_id)
    _image_ocid = field_validator("image_id")(check_image_id)

    @model_validator(mode="after")
    def _workload_identity_is_enhanced(self) -> OkeCluster:
        addon = self.cluster_autoscaler
        if addon is not None and addon.auth_type == "workload" and self.cluster_type == "basic":
            raise PathError(
                "cluster_autoscaler.auth_type",
                "'workload' can't be used: workload identity needs an enhanced cluster and "
                "`cluster_type` is 'basic'; use `auth_type: instance`",
            )
        return self


def is_basic(cluster: object) -> bool:
    """Whether `cluster` is a basic OKE cluster (no add-ons, no node cycling)."""
    return getattr(cluster, "cluster_type", None) == "basic"


register_union_tags("eks", "oke", "rosa")

ClusterTarget = Annotated[EksCluster | OkeCluster | RosaCluster, Field(discriminator="kind")]
