"""How a spec field reads in documentation: its type and its default, in words.

Shared by the generated reference (`docs/reference.md`) and the components' docstrings.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, cast

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined


def type_label(annotation: Any, any_label: str = "any (an Output is accepted)") -> str:
    """A reader's spelling of a field's type (`list[Taint]`, `int | None`)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return type_label(args[0], any_label)
    if annotation is type(None):
        return "None"
    if annotation is Any:
        return any_label
    if annotation is SecretStr:
        return "secret str"
    if origin is Literal:
        return " | ".join(repr(value) for value in args)
    if origin in (Union, types.UnionType):
        return " | ".join(type_label(arg, any_label) for arg in args)
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(type_label(arg) for arg in args)}]"
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return " | ".join(repr(member.value) for member in annotation)
        return annotation.__name__
    return str(annotation)


def default_text(info: FieldInfo) -> str:
    """`required`, or the default as Python writes it."""
    if info.is_required():
        return "required"
    if info.default_factory is not None:
        # Our specs' factories take no arguments (none reads the validated data).
        factory = cast("Callable[[], Any]", info.default_factory)
        return f"`{factory()!r}`"
    if info.default is PydanticUndefined:
        return "-"
    return f"`{info.default!r}`"
