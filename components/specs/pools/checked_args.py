"""Args models whose rules between fields are plain functions, run by one model validator.

A field validator that reads another field sees it only when it is declared above (pydantic
validates in declaration order), so such rules made the order of fields matter. Here each
rule is a plain function `(value, cluster, fields) -> list[Issue]` (`pools.checks`), and one
model validator runs them all over the validated fields and raises every problem at once.

It runs even when some fields failed their own validation: it then gets the fields that
validated (a failed one is absent, so the rules reading it stay silent), and its problems
are raised with pydantic's, so a bad label never hides a value the cloud refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from typing import Any, ClassVar

from nodepools.json_values import is_dict
from nodepools.specs.core.base import Issue, NestedIssues, SpecModel
from pydantic import (
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails

# A rule: the field's validated value, the pool's cluster (None when unknown) and the
# args' fields that validated -> the problems, each with its path from the args.
Check = Callable[[Any, Any, Mapping[str, Any]], list[Issue]]

# The fields of the args being validated, as each validates (for the rules to run on when
# another field fails).
_VALIDATED: ContextVar[dict[str, Any] | None] = ContextVar("nodepools_validated", default=None)


def run_checks(checks: Iterable[tuple[str, Check]], fields: Mapping[str, Any]) -> list[Issue]:
    """Every problem the `checks` (field name, rule) find in `fields`; a rule runs only
    when its field is known."""
    cluster = fields.get("cluster")
    return [
        issue
        for name, check in checks
        if name in fields
        for issue in check(fields[name], cluster, fields)
    ]


class CheckedArgs(SpecModel):
    """Args whose `checks` run once every field has validated (see the module)."""

    checks: ClassVar[tuple[tuple[str, Check], ...]] = ()

    @field_validator("*")
    @classmethod
    def _remember(cls, value: Any, info: ValidationInfo) -> Any:
        validated = _VALIDATED.get()
        if validated is not None and info.field_name is not None:
            validated[info.field_name] = value
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _run_checks(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        validated: dict[str, Any] = {}
        token = _VALIDATED.set(validated)
        try:
            args = handler(data)
        except ValidationError as exc:
            issues = run_checks(cls.checks, cls._known_fields(data, validated, exc))
            if not issues:
                raise
            raise _with_issues(exc, data, issues) from None
        finally:
            _VALIDATED.reset(token)
        issues = run_checks(cls.checks, {name: getattr(args, name) for name in cls.model_fields})
        if issues:
            raise NestedIssues(issues)
        return args

    @classmethod
    def _known_fields(
        cls, data: Any, validated: dict[str, Any], exc: ValidationError
    ) -> dict[str, Any]:
        """The fields whose value is known although validation failed: those that
        validated, and the defaults of those not given."""
        if not is_dict(data):
            return {}
        failed = {error["loc"][0] for error in exc.errors() if error["loc"]}
        known = {name: value for name, value in validated.items() if name not in failed}
        for name, field in cls.model_fields.items():
            if name not in data and name not in failed and not field.is_required():
                known[name] = field.get_default(call_default_factory=True, validated_data=known)
        return known


def _with_issues(exc: ValidationError, data: Any, issues: list[Issue]) -> ValidationError:
    """`exc`'s errors and `issues`, as one ValidationError."""
    line_errors: list[InitErrorDetails] = []
    for error in exc.errors(include_url=False):
        line_error: InitErrorDetails = {
            "type": error["type"],
            "loc": tuple(error["loc"]),
            "input": error["input"],
        }
        if "ctx" in error:
            line_error["ctx"] = error["ctx"]
        line_errors.append(line_error)
    line_errors.append(
        {"type": "value_error", "loc": (), "input": data, "ctx": {"error": NestedIssues(issues)}}
    )
    return ValidationError.from_exception_data(exc.title, line_errors)
