"""Node counts and spot capacity."""

from __future__ import annotations

from nodepools.specs.core.base import PathError, SpecModel
from pydantic import Field, model_validator


def bounds_problem(low: int, high: int, low_name: str, high_name: str) -> str | None:
    """Why `low`..`high` are not bounds (the lower one is greater), naming both fields."""
    if low > high:
        return f"`{low_name}` {low} can't be greater than `{high_name}` {high}"
    return None


class Scaling(SpecModel):
    """Autoscaling bounds; `min_replicas` 0 lets the pool scale from zero."""

    min_replicas: int = Field(ge=0, description="Fewest nodes; 0 allows scale from zero. Required.")
    max_replicas: int = Field(ge=1, description="Most nodes; at least 1. Required.")

    @model_validator(mode="after")
    def _min_not_above_max(self) -> Scaling:
        if problem := bounds_problem(
            self.min_replicas, self.max_replicas, "min_replicas", "max_replicas"
        ):
            raise PathError("max_replicas", problem)
        return self


class Spot(SpecModel):
    """Spot (preemptible) capacity, optionally capped at a price per hour."""

    max_price: float | None = Field(
        default=None,
        gt=0,
        description="Highest price per instance-hour in USD; None (default) caps at the "
        "on-demand price. Not every cloud can cap it: EKS managed node groups, OKE and "
        "Karpenter reject it.",
    )
