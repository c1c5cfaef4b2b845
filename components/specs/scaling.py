"""Node counts and spot capacity."""

from __future__ import annotations

from nodepools.specs.base import SpecModel
from pydantic import Field, ValidationInfo, field_validator


class Scaling(SpecModel):
    """Autoscaling bounds; `min_replicas` 0 lets the pool scale from zero."""

    min_replicas: int = Field(ge=0, description="Fewest nodes; 0 allows scale from zero. Required.")
    max_replicas: int = Field(ge=1, description="Most nodes; at least 1. Required.")

    @field_validator("max_replicas")
    @classmethod
    def _min_not_above_max(cls, max_replicas: int, info: ValidationInfo) -> int:
        min_replicas = info.data.get("min_replicas")
        if min_replicas is not None and min_replicas > max_replicas:
            raise ValueError(
                f"`min_replicas` {min_replicas} can't be greater than `max_replicas` {max_replicas}"
            )
        return max_replicas


class Spot(SpecModel):
    """Spot (preemptible) capacity, optionally capped at a price per hour."""

    max_price: float | None = Field(
        default=None,
        gt=0,
        description="Highest price per instance-hour in USD; None (default) caps at the "
        "on-demand price. Not every cloud can cap it: EKS managed node groups, OKE and "
        "Karpenter reject it.",
    )
