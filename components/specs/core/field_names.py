"""Keys a spec doesn't know, found by walking the user's input against the model: pydantic
reports an unknown field only when validation gets that far, and a model-level check that
fails first (`instance_type` is required) would hide the misspelt `instance_tpye` that
caused it. With the closest known name, a camelCase name's snake_case spelling first.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel

Location = tuple[str | int, ...]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean `x`?` naming the closest of `known` (a camelCase name's snake_case
    spelling first), or an empty string when none is close."""
    candidates = sorted(known)
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    if snake != name and snake in candidates:
        return f"; did you mean `{snake}`?"
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f"; did you mean `{close[0]}`?" if close else ""


def unknown_keys(annotation: Any, data: Any) -> dict[Location, list[str]]:
    """Location of every key of `data` that the model (or type) `annotation` forbids ->
    the names it knows there."""
    found: dict[Location, list[str]] = {}
    _walk(annotation, data, (), found)
    return found


def _known_names(model: type[BaseModel]) -> list[str]:
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(name)
        if isinstance(info.alias, str):
            names.add(info.alias)
    return sorted(names)


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _fits(model: type[BaseModel], data: Mapping[Any, Any]) -> bool:
    """Whether `data` is tagged for `model`: each Literal field it gives has a listed value."""
    for name, info in model.model_fields.items():
        if (
            typing.get_origin(info.annotation) is Literal
            and name in data
            and data[name] not in typing.get_args(info.annotation)
        ):
            return False
    return True


def _walk(annotation: Any, data: Any, loc: Location, found: dict[Location, list[str]]) -> None:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        _walk(args[0], data, loc, found)
    elif origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if isinstance(data, dict):
            models = [m for m in members if _is_model(m)]
            if len(models) > 1:
                models = [m for m in models if _fits(m, typing.cast("dict[Any, Any]", data))]
            if len(models) == 1:
                _walk(models[0], data, loc, found)
        elif isinstance(data, list):
            lists = [m for m in members if typing.get_origin(m) in (list, tuple, Sequence)]
            if len(lists) == 1:
                _walk(lists[0], data, loc, found)
    elif origin in (list, tuple, Sequence, set, frozenset) and isinstance(data, list) and args:
        for index, item in enumerate(typing.cast("list[Any]", data)):
            _walk(args[0], item, (*loc, index), found)
    elif origin in (dict, Mapping) and isinstance(data, dict) and len(args) == 2:
        for key, value in typing.cast("dict[Any, Any]", data).items():
            _walk(args[1], value, (*loc, key), found)
    elif _is_model(annotation) and isinstance(data, dict):
        model = typing.cast("type[BaseModel]", annotation)
        if model.model_config.get("extra") != "forbid":
            return
        known = _known_names(model)
        by_alias = {
            (info.alias if isinstance(info.alias, str) else name): info
            for name, info in model.model_fields.items()
        }
        for key, value in typing.cast("dict[Any, Any]", data).items():
            info = model.model_fields.get(key) if isinstance(key, str) else None
            info = info or (by_alias.get(key) if isinstance(key, str) else None)
            if info is None:
                found[(*loc, key)] = known
            else:
                _walk(info.annotation, value, (*loc, key), found)
