"""TypedDicts the component provider host reads, derived from the pydantic specs.

The host (`pulumi.provider.experimental`) infers a package schema from type annotations:
an `args: <TypedDict>` parameter and `pulumi.Output[...]` class attributes. The specs stay
the single source of truth: each args model is walked once and turned into TypedDicts of
`pulumi.Input[...]` values; field descriptions are kept aside (the host reads docstrings
from source, which generated classes have none of) and put into the schema afterwards.

Mapping: str/int/float/bool as themselves; `Literal` as the type of its values; enums as
str; models as TypedDicts (named after the model); a union of models (the cluster targets)
as one TypedDict with every variant's fields, the discriminator `kind` required; `X | str`
shorthands as X; any other union, and `Any`, as `pulumi.json#/Any`.
"""

from __future__ import annotations

import enum
import types
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict, Union

import pulumi
from pydantic import BaseModel, SecretStr

_SIMPLE = (str, int, float, bool)


@dataclass
class SchemaTypes:
    """TypedDicts built so far, by name, and the descriptions of their properties."""

    typed_dicts: dict[str, type] = field(default_factory=dict)
    # the variants of a union of models -> the name its TypedDict got (shared by every field)
    unions: dict[frozenset[type], str] = field(default_factory=dict)
    # type name -> python property name -> description
    descriptions: dict[str, dict[str, str]] = field(default_factory=dict)

    def args_type(self, model: type[BaseModel], name: str | None = None) -> type:
        """The TypedDict for `model` (built once per name)."""
        return self._model(model, name or model.__name__)

    def _model(self, model: type[BaseModel], name: str) -> type:
        if name in self.typed_dicts:
            return self.typed_dicts[name]
        fields: dict[str, Any] = {}
        docs: dict[str, str] = {}
        self.typed_dicts[name] = typing.cast(type, None)  # recursion guard
        for field_name, info in model.model_fields.items():
            key = info.alias or field_name
            value = pulumi.Input[self._annotation(info.annotation, name, key)]
            fields[key] = Required[value] if info.is_required() else NotRequired[value]
            if info.description:
                docs[key] = info.description
        # Built at run time from the args model: the functional form with computed arguments.
        typed = TypedDict(name, fields)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
        typed.__doc__ = (model.__doc__ or "").strip() or None
        self.typed_dicts[name] = typed
        self.descriptions[name] = docs
        return typed

    def _union_of_models(self, models: list[type[BaseModel]], name: str) -> type:
        """One TypedDict with every variant's fields; each variant's own checks still apply
        (the args are validated by the spec itself once the component gets them)."""
        if name in self.typed_dicts:
            return self.typed_dicts[name]
        fields: dict[str, Any] = {}
        docs: dict[str, str] = {}
        for model in models:
            for field_name, info in model.model_fields.items():
                key = info.alias or field_name
                if key in fields:
                    continue
                annotation = self._annotation(info.annotation, name, key)
                fields[key] = NotRequired[pulumi.Input[annotation]]
                if info.description:
                    docs[key] = info.description
        if "kind" in fields:
            fields["kind"] = Required[pulumi.Input[str]]
            kinds = ", ".join(sorted(_kinds(models)))
            docs["kind"] = f"Which target this is: one of {kinds}; the other fields follow it."
        typed = TypedDict(name, fields)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
        typed.__doc__ = "One of: " + ", ".join(m.__name__ for m in models) + " (by `kind`)."
        self.typed_dicts[name] = typed
        self.descriptions[name] = docs
        return typed

    def _annotation(self, annotation: Any, owner: str, key: str) -> Any:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin is Annotated:
            return self._annotation(args[0], owner, key)
        if annotation in _SIMPLE:
            return annotation
        if annotation is SecretStr:
            return str
        if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
            return str
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self._model(annotation, annotation.__name__)
        if origin is Literal:
            kinds: set[type[Any]] = {type(value) for value in args}
            return kinds.pop() if len(kinds) == 1 and _SIMPLE_SET & kinds else Any
        if origin in (Union, types.UnionType):
            return self._union(args, owner, key)
        if origin in (list, tuple, set, frozenset) or origin in _SEQUENCES:
            item = args[0] if args else Any
            return list[pulumi.Input[self._annotation(item, owner, key)]]  # type: ignore[misc]
        if origin in (dict,) or origin in _MAPPINGS:
            value = args[1] if len(args) == 2 else Any
            return dict[str, pulumi.Input[self._annotation(value, owner, key)]]  # type: ignore[misc]
        return Any

    def _union(self, members: tuple[Any, ...], owner: str, key: str) -> Any:
        present = [_strip(m) for m in members if m is not type(None)]
        if len(present) == 1:
            return self._annotation(present[0], owner, key)
        models = [m for m in present if isinstance(m, type) and issubclass(m, BaseModel)]
        others = [m for m in present if m not in models]
        if len(models) > 1 and not others:
            variants = frozenset(models)
            if variants not in self.unions:
                # Named after the field (`cluster` -> `Cluster`) unless that name is taken.
                short = _pascal(key)
                taken = short in self.typed_dicts
                self.unions[variants] = f"{owner}{short}" if taken else short
            return self._union_of_models(models, self.unions[variants])
        if len(models) == 1 and all(m is str for m in others):
            return self._annotation(models[0], owner, key)  # a string shorthand of a model
        if not models and len({self._annotation(m, owner, key) for m in present}) == 1:
            return self._annotation(present[0], owner, key)
        return Any


_SIMPLE_SET = set(_SIMPLE)
_SEQUENCES = {typing.get_origin(typing.Sequence[int]), typing.get_origin(typing.List[int])}  # noqa: UP006
_MAPPINGS = {typing.get_origin(typing.Mapping[str, int]), typing.get_origin(typing.Dict[str, int])}  # noqa: UP006


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _kinds(models: list[type[BaseModel]]) -> list[str]:
    kinds: list[str] = []
    for model in models:
        info = model.model_fields.get("kind")
        if info is not None and typing.get_origin(info.annotation) is Literal:
            kinds.extend(str(v) for v in typing.get_args(info.annotation))
    return kinds


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))
