"""Turning user input into a spec: validation with every problem collected and raised once,
then the checks of fields that hold Pulumi Outputs, deferred until those resolve."""

from __future__ import annotations

from typing import Any, TypeVar

from nodepools.specs.core.base import SpecError, issues_from_validation_error
from nodepools.specs.core.deferred_checks import check_when_resolved
from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)


def parse_spec(model: type[T], data: Any, subject: str, prefix: str = "") -> T:
    """Validate `data` into `model`, raising one SpecError that lists every problem."""
    if isinstance(data, model):
        return check_when_resolved(data, subject, prefix)
    if isinstance(data, BaseModel):
        data = data.model_dump(exclude_unset=True)
    try:
        spec = model.model_validate(data)
    except ValidationError as exc:
        raise SpecError(
            subject, issues_from_validation_error(exc, prefix, data, model=model)
        ) from None
    # Outputs can't be checked now: each is checked when it resolves.
    return check_when_resolved(spec, subject, prefix)
