"""The EC2NodeClass a KarpenterNodePool creates: IAM identity, AMI, tags, and the
selector terms, volumes, network and metadata options of their own modules.

Rules mirror the `karpenter.k8s.aws/v1` EC2NodeClass CRD (v1.14.1) so that mistakes are
reported with their arg path; the rendered manifest is validated against the CRD as well.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from nodepools.specs.catalog.eks_ami import ami_volume_problem, family_volume_device
from nodepools.specs.core.aws_tags import MAX_TAGS, aws_tag_problem
from nodepools.specs.core.base import Issue, NestedIssues, SpecModel, wired
from nodepools.specs.core.kube import KubeObjectName
from nodepools.specs.karpenter.annotations import Annotations
from nodepools.specs.karpenter.block_devices import BlockDeviceMapping, one_root_volume
from nodepools.specs.karpenter.metadata_options import InstanceMetadataOptions
from nodepools.specs.karpenter.network import NetworkInterface, PlacementGroup, network_interfaces
from nodepools.specs.karpenter.restrictions import restricted_tag_problem
from nodepools.specs.karpenter.selector_terms import (
    AmiSelectorTerm,
    CapacityReservationTerm,
    SelectorTerms,
)
from pydantic import AfterValidator, Field, field_validator, model_validator

# gp3, which the node class uses for the boot volume, goes up to 16 TiB.
BOOT_VOLUME_GB = (1, 16384)

_ROLE_NAME = re.compile(r"^[\w+=,.@-]{1,64}$", re.ASCII)
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/")
_PROFILE_NAME = re.compile(r"^[\w+=,.@-]{1,128}$", re.ASCII)
# The CRD's amiSelectorTerms[].alias rules.
_ALIAS = re.compile(r"^(?P<family>[a-zA-Z0-9]+)@(?P<version>.+)$")
_ALIAS_FAMILIES = ("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025")
_ALIAS_MAX = 30


# Tags Karpenter puts on every instance besides the node class's (v1.14.1: utils.GetTags
# and the nodeclaim tagging controller); `Name` only when the class does not set it.
KARPENTER_INSTANCE_TAGS = (
    "kubernetes.io/cluster/<cluster>",
    "karpenter.sh/nodepool",
    "eks:eks-cluster-name",
    "karpenter.k8s.aws/ec2nodeclass",
    "karpenter.sh/nodeclaim",
    "Name",
)


def _instance_tags(tags: dict[str, str]) -> dict[str, str]:
    for key, value in tags.items():
        problem = restricted_tag_problem(key) or aws_tag_problem(key, value, selector=False)
        if problem:
            raise ValueError(problem)
    added = len(KARPENTER_INSTANCE_TAGS) - ("Name" in tags)
    if len(tags) + added > MAX_TAGS:
        raise ValueError(
            f"{len(tags)} tags are too many: Karpenter adds {added} of its own to every instance "
            f"({', '.join(KARPENTER_INSTANCE_TAGS)}) and EC2 allows {MAX_TAGS}, so at most "
            f"{MAX_TAGS - added} here"
        )
    return dict(sorted(tags.items()))


InstanceTags = Annotated[dict[str, str], AfterValidator(_instance_tags)]


def ami_family(alias: str) -> str:
    return alias.split("@", 1)[0]


AmiFamily = Literal[
    "AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"
]


class NodeClassArgs(SpecModel):
    """An EC2NodeClass created with the pool (named after it unless `name` says otherwise):
    how its nodes launch."""

    name: KubeObjectName | None = Field(
        default=None,
        description="Name of the EC2NodeClass, e.g. `default`, so that other pools can use it "
        "with `node_class_name`. Default None: the pool's name.",
    )

    role: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="Name of the IAM role the nodes assume (Karpenter makes the instance "
        "profile; immutable once created). Exactly one of `role` or `instance_profile`. "
        "Default None.",
    )
    instance_profile: Annotated[Any, wired(str | None)] = Field(
        default=None,
        description="Existing IAM instance profile name, instead of `role`. Default None.",
    )
    ami_alias: str = Field(
        default="al2023@latest",
        description="AMI alias `family@version` (families al2, al2023, bottlerocket, "
        "windows2019/2022/2025; Windows only `@latest`). Default `al2023@latest`.",
    )
    subnet_selector_tags: SelectorTerms = Field(
        description="Tags that select the nodes' subnets: one mapping (all tags must match) "
        "or a list of mappings (any may match); `*` matches any value. Required."
    )
    security_group_selector_tags: SelectorTerms = Field(
        description="Tags that select the nodes' security groups, like `subnet_selector_tags`. "
        "Required."
    )
    boot_volume_gb: int | None = Field(
        default=None,
        ge=BOOT_VOLUME_GB[0],
        le=BOOT_VOLUME_GB[1],
        description="Size of the encrypted gp3 volume that holds the OS and container images "
        "(Bottlerocket: its data volume), in GiB, 1..16384 and at least the AMI's snapshot "
        "(20, Windows 50). Default None: 100 on a pool that can launch accelerator "
        "instances, as managed accelerator pools get (Karpenter's 20 GiB fills with one GPU "
        "image and the kubelet evicts pods for disk pressure), else Karpenter's default (20 "
        "GiB, Windows 50 GiB); `block_device_mappings` given, those.",
    )
    tags: InstanceTags = Field(
        default_factory=dict,
        description="AWS tags on the instances, volumes and launch templates; Karpenter's and "
        "EKS's own keys are reserved, and at most 44 (45 with `Name`) leave room for the 6 "
        "Karpenter adds within EC2's 50. Default {}.",
    )
    detailed_monitoring: bool | None = Field(
        default=None, description="EC2 detailed (1-minute) monitoring. Default None (off)."
    )
    ami_family: AmiFamily | None = Field(
        default=None,
        description="`amiFamily`: how Karpenter bootstraps the AMI (AL2, AL2023, Bottlerocket, "
        "Windows2019/2022/2025, or Custom: `user_data` does everything). Required with "
        "`ami_selector_terms`; with an alias it must match the alias's family (or be Custom). "
        "Default None.",
    )
    ami_selector_terms: list[AmiSelectorTerm] | None = Field(
        default=None,
        min_length=1,
        description="Select AMIs by id, name/owner, tags or SSM parameter instead of "
        "`ami_alias` (one or the other). Default None.",
    )
    user_data: str | None = Field(
        default=None,
        description="`userData`: merged by Karpenter with its bootstrap (AL2023: a MIME "
        "multi-part or NodeConfig document; Bottlerocket: TOML; Custom: the whole user data). "
        "Default None.",
    )
    block_device_mappings: list[BlockDeviceMapping] | None = Field(
        default=None,
        min_length=1,
        max_length=50,
        description="The volumes, written exactly as given (`encrypted` as you set it); instead "
        "of `boot_volume_gb`. Default None.",
    )
    capacity_reservation_selector_terms: list[CapacityReservationTerm] | None = Field(
        default=None,
        min_length=1,
        max_length=30,
        description="On-demand capacity reservations and capacity blocks the class may launch "
        "into (`capacityReservationSelectorTerms`, ORed): `{id}`, or `{tags, owner_id, "
        "instance_match_criteria}`. Pools using it need the `reserved` capacity type, and "
        "Karpenter the `ReservedCapacity` feature gate. Default None.",
    )
    placement_group: PlacementGroup | None = Field(
        default=None,
        description="`placementGroupSelector`: `{id}` or `{name}` of the placement group every "
        "instance joins (a cluster placement group for EFA training). Default None.",
    )
    network_interfaces: Annotated[
        list[NetworkInterface] | None,
        AfterValidator(lambda v: None if v is None else network_interfaces(v)),
    ] = Field(
        default=None,
        max_length=150,
        description="`networkInterfaces`: the ENIs of each instance, e.g. the primary "
        "`interface` on card 0 plus one `efa-only` interface per network card for EFA. "
        "Default None (Karpenter's: one primary interface, EFA as the instance type offers).",
    )
    metadata_options: InstanceMetadataOptions | None = Field(
        default=None,
        description="`metadataOptions` of the instances' metadata service, each field as "
        "set. Default None (the CRD's defaults: IMDSv2 required, hop limit 1).",
    )
    annotations: Annotations = Field(
        default_factory=dict,
        description="`metadata.annotations` of the EC2NodeClass, e.g. "
        "`kubernetes.io/description`. Default {}.",
    )
    instance_store_policy: Literal["RAID0"] | None = Field(
        default=None,
        description="`RAID0` puts the local NVMe disks (e.g. of trn1, p4d) into one RAID0 "
        "array used for images and ephemeral storage. Default None (disks unused).",
    )

    @field_validator("role")
    @classmethod
    def _role(cls, role: Any) -> Any:
        if isinstance(role, str) and _ROLE_ARN.match(role):
            # Karpenter passes the role to IAM as a role name; an ARN fails at launch time.
            raise ValueError(
                f"{role!r} is a role ARN; give the role's name ({role.rsplit('/', 1)[-1]!r})"
            )
        if isinstance(role, str) and not _ROLE_NAME.fullmatch(role):
            raise ValueError(
                f"{role!r} is not an IAM role name (1 to 64 of letters, digits and '+=,.@_-')"
            )
        return role

    @field_validator("instance_profile")
    @classmethod
    def _instance_profile(cls, profile: Any) -> Any:
        if isinstance(profile, str) and not _PROFILE_NAME.fullmatch(profile):
            raise ValueError(
                f"{profile!r} is not an instance profile name (1 to 128 of letters, digits "
                "and '+=,.@_-')"
            )
        return profile

    @field_validator("ami_alias")
    @classmethod
    def _alias(cls, alias: str) -> str:
        found = _ALIAS.fullmatch(alias)
        if not found or len(alias) > _ALIAS_MAX:
            raise ValueError(
                f"{alias!r} is not an AMI alias 'family@version' of at most {_ALIAS_MAX} "
                "characters, e.g. 'al2023@latest' or 'bottlerocket@v1.30.0'"
            )
        if found["family"] not in _ALIAS_FAMILIES:
            raise ValueError(
                f"{alias!r}: family {found['family']!r} is not one of {', '.join(_ALIAS_FAMILIES)}"
            )
        if found["family"].startswith("windows") and found["version"] != "latest":
            raise ValueError(f"{alias!r}: Windows families only take version 'latest'")
        return alias

    @field_validator("block_device_mappings")
    @classmethod
    def _one_root(
        cls, mappings: list[BlockDeviceMapping] | None
    ) -> list[BlockDeviceMapping] | None:
        return None if mappings is None else one_root_volume(mappings)

    @model_validator(mode="after")
    def _across_fields(self) -> NodeClassArgs:
        issues: list[Issue] = []
        if self.ami_selector_terms is not None:
            if "ami_alias" in self.model_fields_set:
                issues.append(
                    Issue(
                        "ami_selector_terms",
                        f"set `ami_alias` ({self.ami_alias!r}) or `ami_selector_terms`, not both",
                    )
                )
            if self.ami_family is None:
                issues.append(
                    Issue(
                        "ami_family",
                        "must specify `ami_family` if `ami_selector_terms` does not contain an "
                        "alias",
                    )
                )
        elif self.ami_family not in (None, "Custom"):
            family = ami_family(self.ami_alias)
            if self.ami_family.lower() != family:
                named = next((f for f in get_args(AmiFamily) if f.lower() == family), family)
                issues.append(
                    Issue(
                        "ami_family",
                        f"{self.ami_family!r} is not the family of `ami_alias` "
                        f"{self.ami_alias!r} ({family!r}); use {named!r} or 'Custom'",
                    )
                )
        if self.block_device_mappings is not None and self.boot_volume_gb is not None:
            issues.append(
                Issue(
                    "block_device_mappings",
                    f"set `boot_volume_gb` ({self.boot_volume_gb!r}) or `block_device_mappings`, "
                    "not both",
                )
            )
        issues += self._volume_size_issues()
        # Either field may be an Output, so only their presence is checked here.
        if self.role is None and self.instance_profile is None:
            issues.append(
                Issue("instance_profile", "one of `role` or `instance_profile` is required")
            )
        if self.role is not None and self.instance_profile is not None:
            issues.append(
                Issue(
                    "instance_profile", "only one of `role` or `instance_profile` can be provided"
                )
            )
        if issues:
            raise NestedIssues(issues)
        return self

    def _volume_size_issues(self) -> list[Issue]:
        """Volumes smaller than the snapshot of the alias's AMI (EC2 refuses them). With
        `ami_selector_terms` the AMI, and so its snapshot, is not known here."""
        if self.ami_selector_terms is not None:
            return []
        family = ami_family(self.ami_alias)
        what = f"the {self.ami_alias} AMI"
        if self.boot_volume_gb is not None:
            problem = ami_volume_problem(self.boot_volume_gb, family, what)
            return [Issue("boot_volume_gb", problem)] if problem else []
        issues: list[Issue] = []
        device = family_volume_device(family)
        for index, mapping in enumerate(self.block_device_mappings or []):
            size = mapping.ebs.size_gib
            if mapping.device_name != device or size is None:
                continue
            if problem := ami_volume_problem(size, family, what):
                path = f"block_device_mappings[{index}].ebs.volume_size"
                issues.append(Issue(path, f"{mapping.ebs.volume_size!r} ({problem})"))
        return issues
