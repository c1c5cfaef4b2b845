"""How a recipe's pods meet spot capacity: its PodDisruptionBudget and termination grace.

Spot and preemptible nodes are reclaimed by the cloud with a short notice; Karpenter and
the node termination handlers drain them through the eviction API, which honours
PodDisruptionBudgets. A recipe placed on a spot pool therefore gets a budget (policy/v1),
`minAvailable: 0` unless told otherwise: its pods may all be evicted, so a drain never waits
on them, and the budget states that the workload was written to be interrupted. A stricter
budget (say `max_unavailable: 1`) keeps a serving recipe partly up during voluntary
disruptions (consolidation, upgrades); it can't stop the cloud from taking the node.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from nodepools.specs.core.base import SpecModel
from pydantic import BeforeValidator, Field, model_validator

PERCENT_PATTERN = re.compile(r"^(100|[1-9]?[0-9])%$")


def _count_or_percent(value: Any) -> Any:
    # One message instead of one per member of the union `int | str`.
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{value!r} must be 0 or more")
        return value
    if isinstance(value, str) and PERCENT_PATTERN.fullmatch(value):
        return value
    raise ValueError(
        f"{value!r} must be a number of pods (0 or more) or a percentage from '0%' to '100%'"
    )


CountOrPercent = Annotated[int | str, BeforeValidator(_count_or_percent)]


class DisruptionBudget(SpecModel):
    """A PodDisruptionBudget's bound: exactly one of `min_available` or `max_unavailable`."""

    min_available: CountOrPercent | None = Field(
        default=None,
        description="Pods that must stay available during an eviction (`minAvailable`), a "
        "count or a percentage such as `50%`; default None.",
    )
    max_unavailable: CountOrPercent | None = Field(
        default=None,
        description="Pods that may be unavailable during an eviction (`maxUnavailable`), a "
        "count or a percentage; default None.",
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> DisruptionBudget:
        if (self.min_available is None) == (self.max_unavailable is None):
            raise ValueError(
                "give exactly one of `min_available` or `max_unavailable` (got "
                f"min_available={self.min_available!r}, max_unavailable={self.max_unavailable!r})"
            )
        return self

    def spec_bound(self) -> dict[str, int | str]:
        """The bound as the PodDisruptionBudget's spec spells it."""
        if self.min_available is not None:
            return {"minAvailable": self.min_available}
        assert self.max_unavailable is not None  # exactly one, by validation
        return {"maxUnavailable": self.max_unavailable}


DEFAULT_DISRUPTION_BUDGET = DisruptionBudget(min_available=0)


def disruption_budget_field() -> Any:
    return Field(
        default=DEFAULT_DISRUPTION_BUDGET,
        description="PodDisruptionBudget (policy/v1) of the recipe's pods when it runs on spot "
        "capacity (placed on a pool with `spot`, or waiting for a matching spot pool): "
        "`{min_available: N | 'P%'}` or `{max_unavailable: N | 'P%'}`. Default "
        "`{min_available: 0}`: every pod may be evicted, so node drains never wait on the "
        "recipe. null: no budget. Recipes on on-demand pools get none.",
    )


def termination_grace_field() -> Any:
    return Field(
        default=None,
        ge=0,
        description="Seconds the recipe's pods get between SIGTERM and SIGKILL "
        "(`terminationGracePeriodSeconds`), e.g. to write a checkpoint; default None: "
        "Kubernetes' 30. On spot capacity keep it below the cloud's notice (two minutes on "
        "AWS) minus the time the drain takes.",
    )
