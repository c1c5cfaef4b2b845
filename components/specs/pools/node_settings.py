"""Node settings a pool may give beyond its size: kubelet configuration, instance metadata
options and the boot volume.

On EKS any of them makes the pool create its own launch template
(`backends.eks.launch_template`); OKE takes what its node pool has an argument for; ROSA
refuses what OpenShift owns. Which cloud takes what is its `ClusterCapabilities` entry,
checked by `pools.checks` before anything is registered.
"""

from __future__ import annotations

from typing import Any, Literal

from nodepools.json_values import is_list
from nodepools.specs.catalog.ebs_limits import ebs_volume_issues
from nodepools.specs.core.base import Issue, NestedIssues, PathError, SpecModel
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

    local_storage: Literal["RAID0", "RAID10", "Mount"] | None = Field(
        default=None,
        description="What nodeadm does with the instance-store NVMe disks "
        "(`spec.instance.localStorage.strategy`): `RAID0` one striped volume, `RAID10` a "
        "mirrored one (at least 4 disks), `Mount` each disk on its own; mounted where the "
        "kubelet and containerd keep their data. AL2023 only. Default None: left alone.",
    )
    bottlerocket: dict[str, Any] = Field(
        default_factory=dict,
        description="Bottlerocket settings: the user data's `[settings]` TOML table as a "
        "mapping, e.g. `{kubernetes: {image-gc-high-threshold-percent: '85'}, "
        "bootstrap-containers: {...}}` (a TOML file reads into this with `tomllib`). Only on "
        "a Bottlerocket `cluster.ami_type` or `ami_family`. The cluster's coordinates, "
        "labels, taints and `max-pods` come from the pool's own settings. Default {}.",
    )

    @field_validator("bottlerocket")
    @classmethod
    def _toml_table(cls, settings: dict[str, Any]) -> dict[str, Any]:
        if problems := bottlerocket_settings_problems(settings):
            raise NestedIssues([Issue(path, problem) for path, problem in problems])
        return settings

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


# Bottlerocket settings the pool writes itself -> the setting of ours to use instead.
BOTTLEROCKET_OWN_SETTINGS = {
    "kubernetes.cluster-name": "the cluster's `cluster_name`",
    "kubernetes.api-server": "the cluster's `endpoint`",
    "kubernetes.cluster-certificate": "the cluster's `certificate_authority`",
    "kubernetes.node-labels": "the pool's `labels`",
    "kubernetes.node-taints": "the pool's `taints`",
    "kubernetes.max-pods": "`node_config.max_pods`",
}


def bottlerocket_settings_problems(table: Any, path: str = "") -> list[tuple[str, str]]:
    """(path, problem) for what TOML can't hold (a null, a list mixing tables and values) or
    what the pool sets itself (`BOTTLEROCKET_OWN_SETTINGS`)."""
    problems: list[tuple[str, str]] = []
    for key, value in dict[str, Any](table).items():
        here = f"{path}.{key}" if path else str(key)
        if here in BOTTLEROCKET_OWN_SETTINGS:
            problems.append(
                (here, f"{value!r}: the pool writes it from {BOTTLEROCKET_OWN_SETTINGS[here]}")
            )
        elif isinstance(value, dict):
            problems += bottlerocket_settings_problems(value, here)
        elif not _toml_value(value):
            problems.append(
                (
                    here,
                    f"{value!r} has no TOML form (a string, number, boolean, "
                    "table, or list of one kind of them)",
                )
            )
    return problems


def _toml_value(value: Any) -> bool:
    if isinstance(value, str | bool | int | float):
        return True
    if is_list(value):
        items: list[Any] = value
        kinds: set[type[Any]] = {type(item) for item in items}
        return len(kinds) <= 1 and all(isinstance(item, str | bool | int | float) for item in items)
    return False


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
    instance_metadata_tags: Literal["enabled", "disabled"] | None = Field(
        default=None,
        description="Whether the instance's tags can be read from the metadata service; "
        "default None: EC2's (disabled).",
    )
    http_protocol_ipv6: Literal["enabled", "disabled"] | None = Field(
        default=None,
        description="The metadata service's IPv6 endpoint; default None: EC2's (disabled).",
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
