"""How an EC2NodeClass selects what its nodes launch into or from: subnets and security
groups by tags, AMIs other than by alias, and capacity reservations.

Rules mirror the `karpenter.k8s.aws/v1` EC2NodeClass CRD (v1.14.1) so that mistakes are
reported with their arg path; the rendered manifest is validated against the CRD as well.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from nodepools.json_values import is_dict
from nodepools.specs.core.aws_tags import aws_tag_problem
from nodepools.specs.core.base import PathError, SpecModel
from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator

# EC2 image names: 3 to 128 letters, digits and `()[] ./-'@_` (RegisterImage). A selector
# term's name is an EC2 DescribeImages `name` filter, where `*` and `?` are wildcards; a
# pattern with a wildcard may be shorter than a name (`*` selects every name).
_AMI_NAME = re.compile(r"^[A-Za-z0-9()\[\] ./\-'@_*?]+$")
_AMI_NAME_LENGTH = (3, 128)
# The CRD's capacityReservationSelectorTerms[] patterns.
_RESERVATION_ID = re.compile(r"^cr-[0-9a-z]+$")
_OWNER_ID = re.compile(r"^[0-9]{12}$")


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


class AmiSelectorTerm(SpecModel):
    """One `amiSelectorTerms[]` entry other than an alias: an AMI id, or a name/owner/tags
    lookup, or an SSM parameter."""

    id: str | None = Field(
        default=None, pattern=r"^ami-[0-9a-z]+$", description="AMI id. Default None."
    )
    name: str | None = Field(
        default=None,
        description="AMI name as EC2 names images (3..128 letters, digits and `()[] ./-'@_`), "
        "or a pattern with `*`/`?` wildcards, e.g. `amazon-eks-node-al2023-*`. Default None.",
    )
    owner: str | None = Field(
        default=None, description="AMI owner: an account id, `self` or `amazon`. Default None."
    )
    tags: dict[str, str] | None = Field(
        default=None, description="Tags the AMI must have. Default None."
    )
    ssm_parameter: str | None = Field(
        default=None, description="SSM parameter holding the AMI id. Default None."
    )

    @field_validator("name")
    @classmethod
    def _ami_name(cls, name: str | None) -> str | None:
        if name is None:
            return None
        least = 1 if ("*" in name or "?" in name) else _AMI_NAME_LENGTH[0]
        if not least <= len(name) <= _AMI_NAME_LENGTH[1] or not _AMI_NAME.fullmatch(name):
            raise ValueError(
                f"{name!r} is not an EC2 AMI name: {_AMI_NAME_LENGTH[0]} to "
                f'{_AMI_NAME_LENGTH[1]} letters, digits and "()[] ./-\'@_" characters, with '
                "`*` or `?` as wildcards"
            )
        return name

    @model_validator(mode="after")
    def _something(self) -> AmiSelectorTerm:
        given = [f for f in ("id", "name", "tags", "ssm_parameter") if getattr(self, f) is not None]
        if not given:
            owner = "" if self.owner is None else f" (got only `owner` {self.owner!r})"
            raise ValueError(
                f"expected at least one of `id`, `name`, `tags`, `ssm_parameter`{owner}"
            )
        others = [f for f in (*given, "owner") if f != "id" and getattr(self, f) is not None]
        if self.id is not None and others:
            raise PathError(
                "id",
                f"{self.id!r} is mutually exclusive with the other fields of a term (got "
                f"{', '.join(f'`{f}`' for f in others)} too)",
            )
        return self

    def to_manifest(self) -> dict[str, Any]:
        keys = {"id": "id", "name": "name", "owner": "owner", "tags": "tags"}
        term = {out: getattr(self, f) for f, out in keys.items() if getattr(self, f) is not None}
        if self.ssm_parameter is not None:
            term["ssmParameter"] = self.ssm_parameter
        return term


class CapacityReservationTerm(SpecModel):
    """One `capacityReservationSelectorTerms[]` entry: a reservation id, or tags (optionally
    of one owner account) and/or the reservations' instance match criteria."""

    id: str | None = Field(
        default=None, description="Capacity reservation id, `cr-...`. Default None."
    )
    tags: dict[str, str] | None = Field(
        default=None,
        description="Tags the reservations must all have (`*` matches any value). Default None.",
    )
    owner_id: str | None = Field(
        default=None,
        description="12-digit account id owning the reservations (with `tags`). Default None.",
    )
    instance_match_criteria: Literal["open", "targeted"] | None = Field(
        default=None,
        description="`open` or `targeted` reservations. Default None (either).",
    )

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value is not None and not _RESERVATION_ID.fullmatch(value):
            raise ValueError(f"{value!r} is not a capacity reservation id such as 'cr-0123abcd'")
        return value

    @field_validator("owner_id")
    @classmethod
    def _owner(cls, value: str | None) -> str | None:
        if value is not None and not _OWNER_ID.fullmatch(value):
            raise ValueError(f"{value!r} is not a 12-digit AWS account id")
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: dict[str, str] | None) -> dict[str, str] | None:
        return None if tags is None else _selector_term(tags)

    @model_validator(mode="after")
    def _crd_rules(self) -> CapacityReservationTerm:
        # The CRD's rules on the terms, in its words.
        if self.id is None and self.tags is None and self.instance_match_criteria is None:
            raise ValueError(
                "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']"
            )
        if self.id is not None and (
            self.tags is not None
            or self.owner_id is not None
            or self.instance_match_criteria is not None
        ):
            raise PathError(
                "id",
                f"'id' ({self.id!r}) is mutually exclusive, cannot be set along with other "
                "fields in a capacity reservation selector term",
            )
        return self

    def to_manifest(self) -> dict[str, Any]:
        term: dict[str, Any] = {}
        if self.id is not None:
            term["id"] = self.id
        if self.instance_match_criteria is not None:
            term["instanceMatchCriteria"] = self.instance_match_criteria
        if self.owner_id is not None:
            term["ownerID"] = self.owner_id
        if self.tags is not None:
            term["tags"] = dict(self.tags)
        return term
