"""The EC2NodeClass a KarpenterNodePool creates: IAM identity, AMI, network, disk, tags.

Rules mirror the `karpenter.k8s.aws/v1` EC2NodeClass CRD (v1.14.1) so that mistakes are
reported with their arg path; the rendered manifest is validated against the CRD as well.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from nodepools.json_values import is_dict
from nodepools.specs.aws_tags import aws_tag_problem
from nodepools.specs.base import SpecModel, wired
from nodepools.specs.karpenter_restrictions import restricted_tag_problem
from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator

# gp3, which the node class uses for the boot volume, goes up to 16 TiB.
BOOT_VOLUME_GB = (1, 16384)

_ROLE_NAME = re.compile(r"^[\w+=,.@-]{1,64}$", re.ASCII)
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/")
_PROFILE_NAME = re.compile(r"^[\w+=,.@-]{1,128}$", re.ASCII)
# The CRD's amiSelectorTerms[].alias rules.
_ALIAS = re.compile(r"^(?P<family>[a-zA-Z0-9]+)@(?P<version>.+)$")
_ALIAS_FAMILIES = ("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025")
_ALIAS_MAX = 30


def _selector_term(tags: dict[str, str]) -> dict[str, str]:
    if not tags:
        raise ValueError("a selector term needs at least one tag (got {})")
    if len(tags) > 20:
        raise ValueError(f"a selector term matches at most 20 tags (got {len(tags)})")
    for key, value in tags.items():
        if problem := aws_tag_problem(key, value, selector=True):
            raise ValueError(problem)
    return dict(sorted(tags.items()))


def _as_terms(value: Any) -> Any:
    # One mapping is one term; a list of mappings is several terms, ORed by Karpenter.
    return [value] if is_dict(value) else value


def _sorted_terms(terms: list[dict[str, str]]) -> list[dict[str, str]]:
    if not terms:
        raise ValueError("needs at least one selector term (got [])")
    # Terms are ORed, so their order carries no meaning; sorted, equal ones merged.
    unique = {tuple(term.items()): term for term in terms}
    if len(unique) > 30:
        raise ValueError(f"at most 30 selector terms are allowed (got {len(unique)})")
    return [unique[key] for key in sorted(unique)]


SelectorTerms = Annotated[
    list[Annotated[dict[str, str], AfterValidator(_selector_term)]],
    BeforeValidator(_as_terms),
    AfterValidator(_sorted_terms),
]


def _instance_tags(tags: dict[str, str]) -> dict[str, str]:
    for key, value in tags.items():
        problem = restricted_tag_problem(key) or aws_tag_problem(key, value, selector=False)
        if problem:
            raise ValueError(problem)
    return dict(sorted(tags.items()))


InstanceTags = Annotated[dict[str, str], AfterValidator(_instance_tags)]


def ami_family(alias: str) -> str:
    return alias.split("@", 1)[0]


class NodeClassArgs(SpecModel):
    """An EC2NodeClass created with the pool and named after it: how its nodes launch."""

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
        "(Bottlerocket: its data volume), in GiB, 1..16384. Default None (Karpenter's "
        "default: 20 GiB, Windows 50 GiB).",
    )
    tags: InstanceTags = Field(
        default_factory=dict,
        description="AWS tags on the instances, volumes and launch templates; Karpenter's and "
        "EKS's own keys are reserved. Default {}.",
    )
    detailed_monitoring: bool | None = Field(
        default=None, description="EC2 detailed (1-minute) monitoring. Default None (off)."
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

    @model_validator(mode="after")
    def _one_identity(self) -> NodeClassArgs:
        if self.role is None and self.instance_profile is None:
            raise ValueError("One of `role` or `instance_profile` is required.")
        if self.role is not None and self.instance_profile is not None:
            raise ValueError("Only one of `role` or `instance_profile` can be provided.")
        return self
