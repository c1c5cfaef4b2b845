"""When Karpenter may remove or replace a pool's nodes: consolidation, disruption budgets,
and the defaults the pool applies when the user says nothing (see `resolve`).

Patterns are the NodePool CRD's (v1.14.1), so that errors are reported with the arg's path.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from nodepools.specs.core.base import SpecModel
from nodepools.specs.karpenter.values import Duration, pattern_check, unique_sorted
from pydantic import BeforeValidator, Field, ValidationInfo, field_validator

# GPU nodes take minutes to come back (boot, driver, multi-GB image pulls), so an empty
# one is kept about as long as a replacement would take to be ready: the gap between two
# jobs of a pipeline does not cost a new node, and an idle one costs at most that long.
ACCELERATOR_CONSOLIDATION_POLICY = "WhenEmpty"
ACCELERATOR_CONSOLIDATE_AFTER = "10m"
# Karpenter's own defaults (NodePool CRD), written out so the manifest says what happens.
DEFAULT_CONSOLIDATION_POLICY = "WhenEmptyOrUnderutilized"
DEFAULT_CONSOLIDATE_AFTER = "0s"

_BUDGET_DURATION = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
_BUDGET_NODES = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
_CRON_MACRO = re.compile(r"^@(annually|yearly|monthly|weekly|daily|midnight|hourly)$")
_CRON_FIELDS = re.compile(r"^\S+(\s+\S+){4}$")


class Budget(SpecModel):
    """How many nodes Karpenter may disrupt at once, optionally only during a schedule."""

    nodes: Annotated[
        str,
        BeforeValidator(lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else v),
        pattern_check(_BUDGET_NODES, "a node count such as '0' or '5', or a percentage '10%'"),
    ] = Field(default="10%", description="Nodes (`5`) or share of nodes (`10%`). Default `10%`.")
    schedule: str | None = Field(
        default=None,
        description="When the budget starts: a cron expression (5 fields, UTC) or a macro "
        "such as `@daily`; needs `duration`. Default None (always active).",
    )
    duration: str | None = Field(
        default=None,
        validate_default=True,
        description="How long the budget lasts after each `schedule` start, e.g. `8h`, "
        "`1h30m`; needs `schedule`. Default None.",
    )
    reasons: list[Literal["Underutilized", "Empty", "Drifted"]] | None = Field(
        default=None,
        description="Disruption reasons the budget applies to. Default None (all).",
    )

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, schedule: str | None) -> str | None:
        if schedule is not None and not (
            _CRON_MACRO.fullmatch(schedule) or _CRON_FIELDS.fullmatch(schedule)
        ):
            raise ValueError(
                f"{schedule!r} is not a cron expression of 5 fields (e.g. '0 9 * * 1-5') "
                "or a macro such as '@daily'"
            )
        return schedule

    @field_validator("duration")
    @classmethod
    def _duration(cls, duration: str | None, info: ValidationInfo) -> str | None:
        if duration is not None and not _BUDGET_DURATION.fullmatch(duration):
            raise ValueError(f"{duration!r} is not a duration in hours and minutes, e.g. '8h'")
        if "schedule" in info.data and (info.data["schedule"] is None) != (duration is None):
            given, value = (
                ("schedule", info.data["schedule"]) if duration is None else ("duration", duration)
            )
            raise ValueError(
                f"`schedule` and `duration` must be set together (only `{given}` is set, to "
                f"{value!r})"
            )
        return duration

    @field_validator("reasons")
    @classmethod
    def _reasons(cls, reasons: list[str] | None) -> list[str] | None:
        return None if reasons is None else unique_sorted(reasons)


class Disruption(SpecModel):
    """When Karpenter may remove or replace the pool's nodes."""

    consolidation_policy: Literal["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"] | None = (
        Field(
            default=None,
            description="Which nodes may be consolidated. Default None: `WhenEmpty` when "
            "the pool only launches accelerator instances, else `WhenEmptyOrUnderutilized`.",
        )
    )
    consolidate_after: Duration | None = Field(
        default=None,
        description="How long a node must be consolidatable before Karpenter acts, or "
        "`Never`. Default None: `10m` for accelerator-only pools, else `0s`.",
    )
    budgets: list[Budget] | None = Field(
        default=None,
        max_length=50,
        description="Disruption budgets. Default None (Karpenter's: 10% of nodes at a time).",
    )

    @field_validator("budgets")
    @classmethod
    def _some_budget(cls, budgets: list[Budget] | None) -> list[Budget] | None:
        if budgets == []:
            # Karpenter reads no budget as no limit at all, not as its default budget.
            raise ValueError(
                "[] would let Karpenter disrupt every node at once; omit `budgets` for the "
                "default (10% of nodes at a time), or say `[{nodes: '100%'}]` to mean that"
            )
        return budgets
