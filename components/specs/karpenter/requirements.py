"""A Karpenter NodePool's free-form `requirements`: any label key, every operator the v1
CRD allows, `minValues`; checked by the CRD's rules and Karpenter's own runtime validation
(`ValidateRequirement`, `IsRestrictedLabel` of sigs.k8s.io/karpenter pkg/apis/v1), and
against each other (requirements on one key that no node could satisfy together).

The convenience args of `KarpenterNodePoolArgs` (`instance_types`, `instance_families`, ...)
render `In` requirements; a key is set by one or the other, never both, so what the
manifest says is what the user wrote. `In` requirements on those keys still tell the pool
what it launches (accelerator, taint, limits), through `folded_requirements`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from nodepools.specs.core.base import Issue, PathError, SpecModel
from nodepools.specs.core.labels import label_key_problem, label_value_problem
from nodepools.specs.karpenter.instance_names import requirement_value_problem
from pydantic import Field, field_validator, model_validator

Operator = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"]
NUMERIC = ("Gt", "Lt", "Gte", "Lte")
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
# Karpenter's WellKnownValuesForRequirements: an `In` on the key needs one of these.
KNOWN_VALUES = {CAPACITY_TYPE_LABEL: ("on-demand", "reserved", "spot")}
# Karpenter's IsRestrictedLabel: its own domain is reserved except its well-known keys, and
# the hostname label never makes sense on a pool.
_KARPENTER_WELL_KNOWN = frozenset({CAPACITY_TYPE_LABEL})
_RESTRICTED_KEYS = frozenset({"kubernetes.io/hostname", "karpenter.sh/nodepool"})
MAX_KEY_LENGTH = 316  # the CRD's maxLength for requirement keys
MAX_REQUIREMENTS = 100  # the CRD's maxItems


def requirement_key_problem(key: str) -> str | None:
    """Why the NodePool CRD or Karpenter's runtime validation refuses a requirement key."""
    from nodepools.specs.karpenter.restrictions import requirement_key_rules

    if problem := label_key_problem(key):
        return problem
    if len(key) > MAX_KEY_LENGTH:
        return f"key {key!r} is longer than {MAX_KEY_LENGTH} characters"
    if key in _RESTRICTED_KEYS:
        return f"key {key!r} is restricted by Karpenter (it sets the label itself, per node)"
    for rule in requirement_key_rules():
        if rule.rejects(key):
            return f"key {key!r} is restricted by Karpenter ({rule.message})"
    domain = key.split("/", 1)[0] if "/" in key else ""
    if (domain == "karpenter.sh" or domain.endswith(".karpenter.sh")) and (
        key not in _KARPENTER_WELL_KNOWN
    ):
        return (
            f"key {key!r} is in Karpenter's reserved `karpenter.sh` domain; of it only "
            f"{sorted(_KARPENTER_WELL_KNOWN)} may be required"
        )
    return None


class NodeRequirement(SpecModel):
    """One NodePool requirement, exactly as `spec.template.spec.requirements[]` holds it."""

    key: str = Field(
        description="Any well-known (`karpenter.k8s.aws/instance-generation`, "
        "`topology.kubernetes.io/zone`, ...) or custom node label key. Required."
    )
    operator: Operator = Field(
        description="`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte` or `Lte`. Required."
    )
    values: list[str] = Field(
        default_factory=list[str],
        description="Label values: at least one for `In`, exactly one non-negative integer for "
        "`Gt`/`Lt`/`Gte`/`Lte`. Default [].",
    )
    min_values: int | None = Field(
        default=None,
        ge=1,
        le=50,
        description="Least number of distinct values of the key Karpenter must keep when it "
        "picks instances (flexibility for spot); with `In`, at most the number of `values`. "
        "Default None.",
    )

    @field_validator("key")
    @classmethod
    def _key(cls, key: str) -> str:
        if problem := requirement_key_problem(key):
            raise ValueError(problem)
        return key

    @field_validator("values")
    @classmethod
    def _values(cls, values: list[str]) -> list[str]:
        for value in values:
            if problem := label_value_problem(value):
                raise ValueError(problem)
        return values

    @model_validator(mode="after")
    def _operator_rules(self) -> NodeRequirement:
        # The CRD's CEL rules and Karpenter's ValidateRequirement, in their words.
        if self.operator == "In" and not self.values:
            raise PathError(
                "values",
                f"requirements with operator 'In' must have a value defined (got [] for "
                f"{self.key})",
            )
        if self.operator in NUMERIC and (len(self.values) != 1 or not self.values[0].isdigit()):
            raise PathError(
                "values",
                f"requirements with operator {self.operator!r} must have a single positive "
                f"integer value (got {self.values!r} for {self.key})",
            )
        if (
            self.operator == "In"
            and self.min_values is not None
            and len(self.values) < self.min_values
        ):
            raise PathError(
                "min_values",
                f"minValues {self.min_values} needs at least that many values; {self.key} "
                f"lists {len(self.values)} ({self.values!r})",
            )
        for index, value in enumerate(self.values):
            if problem := requirement_value_problem(self.key, value):
                raise PathError(f"values[{index}]", problem)
        known = KNOWN_VALUES.get(self.key)
        if self.operator == "In" and known and not set(self.values) & set(known):
            raise PathError(
                "values", f"{self.values!r} for {self.key}: expected one of {list(known)}"
            )
        return self

    def to_manifest(self) -> dict[str, Any]:
        return requirement_manifest(self.key, self.operator, self.values, self.min_values)


def requirement_manifest(
    key: str, operator: str, values: Sequence[str], min_values: int | None
) -> dict[str, Any]:
    """A NodePool requirement as Karpenter writes it: `values` only where the operator takes
    them (an Exists or DoesNotExist requirement has none), `minValues` only when set."""
    manifest: dict[str, Any] = {"key": key, "operator": operator}
    if values or operator in ("In", "NotIn"):
        manifest["values"] = list(values)
    if min_values is not None:
        manifest["minValues"] = min_values
    return manifest


@dataclass
class _Bounds:
    allowed: set[str] | None = None
    excluded: set[str] = field(default_factory=set[str])
    low: int | None = None  # inclusive
    high: int | None = None  # inclusive
    exists: bool = False
    absent: bool = False
    min_values: int | None = None  # the largest minValues of the key's `In` requirements
    paths: list[str] = field(default_factory=list[str])

    def admits(self, value: str) -> bool:
        if value in self.excluded:
            return False
        if self.low is None and self.high is None:
            return True
        if not value.lstrip("-").isdigit():
            return False  # numeric bounds only hold integer values
        number = int(value)
        return (self.low is None or number >= self.low) and (
            self.high is None or number <= self.high
        )


def contradiction_issues(
    requirements: list[NodeRequirement], path: str = "requirements"
) -> list[Issue]:
    """Requirements on one key that no node label can satisfy together (Karpenter would
    launch nothing for the pool), each reported at the last requirement that closes the door."""
    issues: list[Issue] = []
    by_key: dict[str, _Bounds] = {}
    for index, requirement in enumerate(requirements):
        bounds = by_key.setdefault(requirement.key, _Bounds())
        here = f"{path}[{index}]"
        bounds.paths.append(f"requirements[{index}]")
        values = set(requirement.values)
        match requirement.operator:
            case "In":
                bounds.allowed = values if bounds.allowed is None else bounds.allowed & values
                if requirement.min_values is not None:
                    bounds.min_values = max(bounds.min_values or 0, requirement.min_values)
            case "NotIn":
                bounds.excluded |= values
            case "Exists":
                bounds.exists = True
            case "DoesNotExist":
                bounds.absent = True
            case "Gt" | "Gte":
                floor = int(requirement.values[0]) + (requirement.operator == "Gt")
                bounds.low = floor if bounds.low is None else max(bounds.low, floor)
            case "Lt" | "Lte":
                ceiling = int(requirement.values[0]) - (requirement.operator == "Lt")
                bounds.high = ceiling if bounds.high is None else min(bounds.high, ceiling)
        others = ", ".join(bounds.paths[:-1])
        problem = None
        constrained = (
            bounds.exists
            or bounds.allowed is not None
            or bounds.low is not None
            or bounds.high is not None
        )
        if bounds.absent and constrained:
            problem = "the key must not exist here but must exist or have a value there"
        elif bounds.low is not None and bounds.high is not None and bounds.low > bounds.high:
            problem = f"no integer is at least {bounds.low} and at most {bounds.high}"
        elif bounds.allowed is not None and not any(bounds.admits(v) for v in bounds.allowed):
            problem = "no value of `In` is left once the other requirements on the key apply"
        elif (
            bounds.min_values is not None
            and bounds.allowed is not None
            and sum(bounds.admits(v) for v in bounds.allowed) < bounds.min_values
        ):
            problem = (
                f"fewer than minValues {bounds.min_values} values are left once the "
                "other requirements on the key apply"
            )
        if problem:
            issues.append(
                Issue(
                    here,
                    f"contradicts {others or 'itself'} on {requirement.key!r}: {problem}, so "
                    "Karpenter could launch no node for the pool",
                )
            )
    return issues
