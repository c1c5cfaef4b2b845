"""Fields that take an Output are checked again when the Output resolves.

A `wired` field can't be checked at construction when it holds an Output. Each such Output
is replaced by `output.apply(check)`, where `check` validates the resolved value exactly as
a plain value would have been (the field's type and validators, and the model's own rules)
and raises our SpecError with the field's path. The program then fails when the engine
resolves the value (at `up`, or in a preview whose inputs are known), not with the
provider's error later. Unknown values (preview), and None, are never checked. Pure: Outputs are
recognised and used by duck typing, pulumi is never imported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from enum import Enum
from functools import partial
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from nodepools.json_values import is_dict, is_sequence
from nodepools.specs.core.base import (
    SpecError,
    format_path,
    is_output,
    issues_from_validation_error,
)
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

# The validation context of a resolved Output's check: validators of what a user writes (an
# identifier's documented format) skip values a provider, or a user's mocks, resolved.
RESOLVED_OUTPUT = "resolved_output"
RESOLVED_CONTEXT: dict[str, bool] = {RESOLVED_OUTPUT: True}


def check_when_resolved(model: M, subject: str, prefix: str = "") -> M:
    """`model` with every Output in its wired fields checked when it resolves."""
    # Most specs hold no Output at all: one cheap scan spares them the walk with paths.
    if not _holds_output(model):
        return model
    updates: dict[str, Any] = {}
    fields = type(model).model_fields
    for name in _reaching_fields(type(model)):
        info = fields[name]
        value = getattr(model, name)
        path = format_path([name], prefix)
        if is_wired(info):
            new = _wrap(value, partial(_check, model, name, subject, prefix), ())
        else:
            new = _descend(value, subject, path)
        if new is not value:
            updates[name] = new
    return model.model_copy(update=updates) if updates else model


def _holds_output(value: Any) -> bool:
    if is_output(value):
        return True
    if isinstance(value, BaseModel):
        values = value.__dict__
        return any(_holds_output(values[name]) for name in _reaching_fields(type(value)))
    if is_sequence(value):
        return any(_holds_output(item) for item in value)
    if is_dict(value):
        return any(_holds_output(item) for item in value.values())
    return False


# Model class -> the names of its fields that can hold an Output (wired fields, and fields
# whose type allows a model or anything at all); computed once per class, on first parse.
_REACHING: dict[type[BaseModel], tuple[str, ...]] = {}
_PLAIN_TYPES = frozenset({str, int, float, bool, bytes, type(None)})
_CONTAINERS = frozenset({list, tuple, set, frozenset, dict, Sequence, Mapping, Set})


def _reaching_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    found = _REACHING.get(cls)
    if found is None:
        found = _REACHING[cls] = tuple(
            name
            for name, info in cls.model_fields.items()
            if is_wired(info) or not _plain_type(info.annotation)
        )
    return found


def _plain_type(annotation: Any) -> bool:
    """True when a validated value of this type can hold neither an Output nor a model:
    scalars, enums, literals, and unions and containers of them. Anything else (Any, a
    model, a type this doesn't know) counts as able to."""
    if isinstance(annotation, type):
        return annotation in _PLAIN_TYPES or issubclass(annotation, Enum)
    origin = get_origin(annotation)
    if origin is Literal:
        return True
    if origin is Annotated:
        return _plain_type(get_args(annotation)[0])
    if origin in (Union, UnionType) or origin in _CONTAINERS:
        return all(arg is Ellipsis or _plain_type(arg) for arg in get_args(annotation))
    return False


def is_wired(info: Any) -> bool:
    return any(getattr(getattr(m, "func", None), "wired", False) for m in info.metadata)


def _descend(value: Any, subject: str, path: str) -> Any:
    """Nested models (alone, in lists or in dicts) get their wired fields checked too."""
    if isinstance(value, BaseModel):
        return check_when_resolved(value, subject, path)
    if is_sequence(value):
        items = [_descend(item, subject, format_path([i], path)) for i, item in enumerate(value)]
        changed = any(new is not old for new, old in zip(items, value, strict=True))
        return type(value)(items) if changed else value
    if is_dict(value):
        entries = {k: _descend(v, subject, format_path([k], path)) for k, v in value.items()}
        return entries if any(entries[k] is not value[k] for k in value) else value
    return value


def _wrap(value: Any, check: Any, loc: tuple[Any, ...]) -> Any:
    if is_output(value):
        return value.apply(partial(check, loc))
    if is_sequence(value):
        items = [_wrap(item, check, (*loc, i)) for i, item in enumerate(value)]
        changed = any(new is not old for new, old in zip(items, value, strict=True))
        return type(value)(items) if changed else value
    if is_dict(value):
        entries = {k: _wrap(v, check, (*loc, k)) for k, v in value.items()}
        return entries if any(entries[k] is not value[k] for k in value) else value
    return value


def _check(
    model: BaseModel, name: str, subject: str, prefix: str, loc: tuple[Any, ...], resolved: Any
):
    """Validate the model again with the resolved value in place; the resolved value, or
    SpecError naming the field's path. None is let through: it is what a provider output
    resolves to under a user's mocks when they don't model it, and never a real value of a
    required field at deploy time (the provider would refuse it anyway)."""
    if resolved is None:
        return resolved
    field_value = _replace(getattr(model, name), loc, resolved)
    data = {field: getattr(model, field) for field in type(model).model_fields}
    data[name] = field_value
    try:
        type(model).model_validate(data, context=RESOLVED_CONTEXT)
    except ValidationError as exc:
        issues = issues_from_validation_error(exc, prefix, data)
        mine = format_path([name], prefix)
        ours = [issue for issue in issues if issue.path.startswith(mine)] or issues
        raise SpecError(f"{subject} (a value known only at deploy time)", ours) from None
    except SpecError as exc:
        raise SpecError(f"{subject} (a value known only at deploy time)", exc.issues) from None
    return resolved


def _replace(value: Any, loc: tuple[Any, ...], new: Any) -> Any:
    if not loc:
        return new
    head, *rest = loc
    if is_sequence(value):
        items = list(value)
        items[head] = _replace(items[head], tuple(rest), new)
        return items
    return {**value, head: _replace(value[head], tuple(rest), new)}
