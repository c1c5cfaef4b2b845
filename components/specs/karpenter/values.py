"""Value types of the Karpenter pool args: durations, the value lists of requirement args,
and resource limits, each checked by the NodePool CRD's (v1.14.1) patterns so that a
mistake is reported with its arg path, and each bad value of a list at its index.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from nodepools.specs.catalog.accelerators import ACCELERATOR_RESOURCES
from nodepools.specs.catalog.instance_checks import (
    ec2_instance_categories,
    ec2_instance_families,
    ec2_instance_types,
)
from nodepools.specs.core.base import PathError
from nodepools.specs.core.labels import label_key_problem, label_value_problem
from pydantic import AfterValidator, BeforeValidator

_DURATION = re.compile(r"^(([0-9]+(s|m|h))+|Never)$")
_GRACE_PERIOD = re.compile(r"^([0-9]+(s|m|h))+$")
# A Kubernetes quantity without a sign (a negative limit means nothing).
_QUANTITY = re.compile(
    r"^\+?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_CORE_LIMITS = ("cpu", "memory", "ephemeral-storage", "nodes", "pods")
WHOLE_UNIT_LIMITS = ("nodes", "pods")


def pattern_check(pattern: re.Pattern[str], what: str) -> Any:
    """A validator refusing a string that `pattern` does not match, as not `what`."""

    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"{value!r} is not {what}")
        return value

    return AfterValidator(check)


Duration = Annotated[
    str, pattern_check(_DURATION, "a duration such as '30s', '10m', '1h30m' or 'Never'")
]
GracePeriod = Annotated[str, pattern_check(_GRACE_PERIOD, "a duration such as '30m' or '24h'")]


def _requirement_values(values: list[str]) -> list[str]:
    if not values:
        raise ValueError("must not be empty (got []); omit the field to allow any value")
    for index, value in enumerate(values):
        problem = label_value_problem(value)
        if problem or not value:
            raise PathError(f"[{index}]", problem or "values must not be empty strings (got '')")
    return sorted(set(values))


def _lowercase_values(values: list[str]) -> list[str]:
    for index, value in enumerate(values):
        # A value that is no label value at all is reported as such (`_requirement_values`).
        if value != value.lower() and label_value_problem(value) is None:
            raise PathError(
                f"[{index}]",
                f"{value!r} would never match: Karpenter publishes these names in lowercase "
                f"(use {value.lower()!r})",
            )
    return values


def unique_sorted(values: list[str]) -> list[str]:
    """A set of choices, in one order whatever order the user wrote them in."""
    if not values:
        raise ValueError("must not be empty (got []); omit the field to use the default")
    return sorted(set(values))


# Checked as given, before sorting, so that an error points at the user's own index.
RequirementValues = Annotated[list[str], AfterValidator(_requirement_values)]
InstanceTypeValues = Annotated[
    list[str], AfterValidator(ec2_instance_types), AfterValidator(_requirement_values)
]
FamilyValues = Annotated[
    list[str], AfterValidator(ec2_instance_families), AfterValidator(_requirement_values)
]
CategoryValues = Annotated[
    list[str], AfterValidator(ec2_instance_categories), AfterValidator(_requirement_values)
]
LowercaseValues = Annotated[
    list[str], AfterValidator(_lowercase_values), AfterValidator(_requirement_values)
]


def _limit_value(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{value!r} is not a quantity (a number or a string such as '64Gi')")
    if isinstance(value, int) and value < 0:
        raise ValueError(f"{value!r} is negative; a limit is at least 0")
    if isinstance(value, str) and not _QUANTITY.fullmatch(value):
        raise ValueError(f"{value!r} is not a non-negative quantity such as '16', '500m', '64Gi'")
    return value


def _limit_key(key: str) -> str:
    if key in _CORE_LIMITS:
        return key
    if "/" in key and label_key_problem(key) is None:
        return key  # an extended resource, e.g. nvidia.com/gpu
    raise ValueError(
        f"unknown limit {key!r}: use {', '.join(_CORE_LIMITS)} or an extended resource "
        f"such as {', '.join(ACCELERATOR_RESOURCES)}"
    )


Limits = Annotated[
    dict[
        Annotated[str, AfterValidator(_limit_key)],
        Annotated[int | str, BeforeValidator(_limit_value)],
    ],
    AfterValidator(lambda limits: dict(sorted(limits.items()))),
]
