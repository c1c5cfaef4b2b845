"""Node settings a pool may give beyond its size: kubelet configuration, instance metadata
options and the boot volume.

On EKS any of them makes the pool create its own launch template
(`backends.eks.launch_template`); OKE takes what its node pool has an argument for; ROSA
refuses what OpenShift owns. Which cloud takes what is its `ClusterCapabilities` entry,
checked by `pools.checks` before anything is registered.
"""

from __future__ import annotations

from typing import Any, Literal

from nodepools.specs.catalog.ebs_limits import ebs_volume_issues
from nodepools.specs.core.base import NestedIssues, PathError, SpecModel
from nodepools.specs.pools.kubelet_config import kubelet_field_problem
from pydantic import Field, field_validator, model_validator

# The boundary of the MIME multi-part user data; a user part containing it is refused.
MIME_BOUNDARY = "//nodepools-boundary//"
# The heredoc delimiter that carries the script into OKE's cloud-init.
OKE_SCRIPT_EOF = "NODEPOOLS_USER_DATA_EOF"


class NodeConfig(SpecModel):
    """Kubelet settings and an extra user-data part for the pool's nodes."""

    max_pods: int | None = Field(
        default=None,
        gt=0,
        description="Most pods per node (kubelet `maxPods`); default None: the AMI's value "
        "(on EKS derived from the instance type's ENIs).",
    )
    kubelet: dict[str, Any] = Field(
        default_factory=dict,
        description="KubeletConfiguration (kubelet.config.k8s.io/v1beta1) fields by their "
        "camelCase names, e.g. `{registryPullQPS: 10}`, each checked against the type's field "
        "list and value kind (k8s.io/kubelet v0.37.2; `maxPods` and `registerWithTaints` come "
        "from the pool's own settings); on EKS merged by nodeadm into the AMI's kubelet "
        "configuration; default {}.",
    )
    user_data: str | None = Field(
        default=None,
        min_length=1,
        description="A shell script (`#!...`) run at boot as one more user-data part, beside "
        "the bootstrap, never replacing it; default None.",
    )

    @field_validator("kubelet")
    @classmethod
    def _kubelet_fields(cls, kubelet: dict[str, Any]) -> dict[str, Any]:
        for key, value in kubelet.items():
            if problem := kubelet_field_problem(key, value):
                raise PathError(key, problem)
        return kubelet

    @field_validator("user_data")
    @classmethod
    def _a_script(cls, user_data: str | None) -> str | None:
        if user_data is None:
            return None
        if not user_data.startswith("#!"):
            raise ValueError(
                f"must be a script starting with `#!` (got {user_data[:20]!r}...); it runs as a "
                "text/x-shellscript part beside the bootstrap"
            )
        for marker in (MIME_BOUNDARY, OKE_SCRIPT_EOF):
            if marker in user_data:
                raise ValueError(f"contains {marker!r}, which the pool's user data uses itself")
        return user_data


class MetadataOptions(SpecModel):
    """Instance metadata service settings of the pool's launch template."""

    http_tokens: Literal["required", "optional"] = Field(
        default="required",
        description="`required`: IMDSv2 only (session tokens); default `required`.",
    )
    http_put_response_hop_limit: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Hops a metadata response may travel; 1 (the default) keeps it from pods "
        "on the pod network; 2 lets containers reach it.",
    )
    http_endpoint: Literal["enabled", "disabled"] = Field(
        default="enabled", description="Whether the metadata service answers; default `enabled`."
    )


EbsVolumeType = Literal["gp3", "gp2", "io1", "io2", "standard"]


class BootVolume(SpecModel):
    """The node's root volume."""

    size_gb: int | None = Field(
        default=None,
        gt=0,
        description="Size in GiB; default None: as `boot_volume_gb` would be left out.",
    )
    type: EbsVolumeType = Field(default="gp3", description="EBS volume type; default `gp3`.")
    iops: int | None = Field(
        default=None,
        gt=0,
        description="Provisioned IOPS (gp3 3,000-80,000 and at most 500 per GiB; io1 "
        "100-64,000, 50 per GiB; io2 100-256,000, 1,000 per GiB); default None: gp3's "
        "baseline 3,000.",
    )
    throughput: int | None = Field(
        default=None,
        gt=0,
        description="Throughput in MiB/s, gp3 only: 125-2,000 and at most 0.25 per IOPS "
        "(of `iops`, else the 3,000 baseline); default None: the 125 baseline.",
    )
    encrypted: bool = Field(default=True, description="EBS encryption; default true.")
    kms_key_id: str | None = Field(
        default=None,
        min_length=1,
        description="KMS key (EKS: key id, alias or ARN; OKE: key OCID); default None: the "
        "cloud's default key.",
    )

    @model_validator(mode="after")
    def _ebs_rules(self) -> BootVolume:
        issues = ebs_volume_issues(
            self.type,
            self.size_gb,
            self.iops,
            self.throughput,
            encrypted=self.encrypted,
            kms_key_id=self.kms_key_id,
        )
        if issues:
            raise NestedIssues(issues)
        return self

    def given_ebs_fields(self) -> list[str]:
        """The EBS-only settings the user gave (`type`, `iops`, `throughput`)."""
        return [f for f in ("type", "iops", "throughput") if f in self.model_fields_set]


class UpdatePolicy(SpecModel):
    """How many nodes a rolling update may take down at once: exactly one of the two."""

    max_unavailable: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="Nodes unavailable at once during an update (1-100); default None.",
    )
    max_unavailable_percent: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="Percent of the pool's nodes unavailable at once (1-100); default None.",
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> UpdatePolicy:
        if (self.max_unavailable is None) == (self.max_unavailable_percent is None):
            raise ValueError(
                "give exactly one of `max_unavailable` or `max_unavailable_percent` (got "
                f"{self.max_unavailable!r} and {self.max_unavailable_percent!r})"
            )
        return self
