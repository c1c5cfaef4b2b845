"""Node counts and spot capacity."""

from __future__ import annotations

from nodepools.specs.core.base import SpecModel
from pydantic import Field, ValidationInfo, field_validator


def check_bounds(high: int, info: ValidationInfo, low_field: str) -> int:
    """`high` (the validated upper bound), unless the lower bound declared before it is
    greater: then an error naming both fields."""
    low = info.data.get(low_field)
    if low is not None and low > high:
        raise ValueError(f"`{low_field}` {low} can't be greater than `{info.field_name}` {high}")
    return high


class Scaling(SpecModel):
    """Autoscaling bounds; `min_replicas` 0 lets the pool scale from zero."""

    min_replicas: int = Field(ge=0, description="Fewest nodes; 0 allows scale from zero. Required.")
    max_replicas: int = Field(ge=1, description="Most nodes; at least 1. Required.")

    @field_validator("max_replicas")
    @classmethod
    def _min_not_above_max(cls, max_replicas: int, info: ValidationInfo) -> int:
        return check_bounds(max_replicas, info, "min_replicas")


class Spot(SpecModel):
    """Spot (preemptible) capacity, optionally capped at a price per hour."""

    max_price: float | None = Field(
        default=None,
        gt=0,
        description="Highest price per instance-hour in USD; None (default) caps at the "
        "on-demand price. Not every cloud can cap it: EKS managed node groups, OKE and "
        "Karpenter reject it.",
    )
