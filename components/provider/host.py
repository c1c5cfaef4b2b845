"""Serves the components as a Pulumi package through the SDK's component provider host.

Each component (those a fleet can name, `nodepools.fleet.deploy.SECTIONS`, and the standalone
`NodeRole` and `OkeClusterAutoscaler`) is hosted as a thin
subclass whose `__init__` is annotated with the TypedDict derived from its args model
and whose outputs are the component's own `pulumi.Output[...]` annotations, evaluated.
Construct hands the inputs, as a dict, to the real component: validation, errors (with
their paths) and the children registered are exactly those of the Python API.
"""

from __future__ import annotations

import inspect
import json
import sys
import typing
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import pulumi
from nodepools.provider.schema_types import SchemaTypes
from pulumi.provider.experimental import component as sdk_component
from pulumi.provider.experimental.analyzer import Analyzer
from pulumi.provider.experimental.component import ComponentProvider
from pydantic import BaseModel

PACKAGE = "nodepools"

_BARE = {dict: dict[str, Any], list: list[Any]}


# Components a program builds beside the fleet's sections: (module, class, args model).
STANDALONE_COMPONENTS = (
    ("nodepools.pools.node_role", "NodeRole", "NodeRoleArgs"),
    ("nodepools.pools.oke_autoscaler", "OkeClusterAutoscaler", "OkeClusterAutoscalerArgs"),
)


def component_kinds() -> list[tuple[type[Any], type[BaseModel]]]:
    """(component class, args model) for every component: each a fleet can name, and the
    standalone ones (`NodeRole`, `OkeClusterAutoscaler`), by name."""
    import importlib

    from nodepools.fleet.deploy import SECTIONS

    kinds = [kind for section in SECTIONS.values() for kind in section.values()]
    loaded = [kind.load() for kind in kinds]
    for module_name, class_name, args_name in STANDALONE_COMPONENTS:
        module = importlib.import_module(module_name)
        loaded.append((getattr(module, class_name), getattr(module, args_name)))
    return sorted(loaded, key=lambda pair: pair[0].__name__)


def component_outputs(component: type[Any]) -> dict[str, Any]:
    """The component's public `pulumi.Output[...]` annotations (its own and its bases'),
    evaluated in the module that declares each."""
    outputs: dict[str, Any] = {}
    for cls in reversed(component.__mro__):
        if cls.__module__.split(".")[0] != PACKAGE:
            continue
        module = sys.modules[cls.__module__]
        namespace = {**vars(module), "pulumi": pulumi}
        for name, annotation in inspect.get_annotations(cls).items():
            if name.startswith("_"):
                continue
            value = eval(annotation, namespace) if isinstance(annotation, str) else annotation
            if typing.get_origin(value) is not pulumi.Output:
                continue
            (inner,) = typing.get_args(value)
            outputs[name] = pulumi.Output[_BARE.get(inner, inner)]  # type: ignore[index]
    return outputs


def hosted_components(types: SchemaTypes) -> list[type[pulumi.ComponentResource]]:
    """One hosted subclass per component, named as the component (its schema token is
    `nodepools:index:<Name>`, the type the component registers itself under)."""
    hosted: list[type[pulumi.ComponentResource]] = []
    for component, args_model in component_kinds():
        args_type = types.args_type(args_model, f"{component.__name__}Args")

        def __init__(
            self: Any,
            name: str,
            args: Any,
            opts: pulumi.ResourceOptions | None = None,
            _component: Any = component,
        ) -> None:
            _component.__init__(self, name, _integral_numbers(dict(args)), opts)

        __init__.__annotations__ = {
            "name": str,
            "args": args_type,
            "opts": typing.Optional[pulumi.ResourceOptions],  # noqa: UP045
        }
        hosted.append(
            cast(
                "type[pulumi.ComponentResource]",
                type(
                    component.__name__,
                    (component,),
                    {
                        "__init__": __init__,
                        "__annotations__": component_outputs(component),
                        "__module__": __name__,
                        # The summary only: the schema lists the inputs and outputs itself.
                        "__doc__": (component.__doc__ or "").split("\n\nArgs (")[0],
                    },
                ),
            )
        )
    return hosted


def _integral_numbers(value: Any) -> Any:
    """Whole-number floats as ints. The wire format (a protobuf Struct) carries every number
    as a double, so `replicas: 2` written in TypeScript or YAML arrives as 2.0; the specs take
    counts as ints and refuse 2.5 as they should."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        mapping = cast("dict[str, Any]", value)
        return {key: _integral_numbers(item) for key, item in mapping.items()}
    if isinstance(value, list):
        return [_integral_numbers(item) for item in cast("list[Any]", value)]
    return value


class _Analyzer(Analyzer):
    """The SDK's schema analyzer, remembering the types it found no source for.

    It looks up each property's docstring by parsing its class's source, and caches what it
    finds, but not a failure: for the types made at run time here (SchemaTypes, the hosted
    subclasses) every property parsed this module again, 867 times: 7.3 s of start-up (2.5 s
    now), paid by every `pulumi preview` and `up` of a YAML or TypeScript program.
    Their descriptions come from the specs instead (`_describe`)."""

    def get_docstring(self, typ: type, name: str) -> str | None:
        found = super().get_docstring(typ, name)
        self.docstrings.setdefault(typ.__name__, {})
        return found


@contextmanager
def _remembering_analyzer() -> Generator[None, None, None]:
    """The SDK's ComponentProvider builds its analyzer itself, by its module's global name
    `Analyzer`: `_Analyzer` stands in for it while ours is built."""
    namespace = sdk_component.__dict__
    original = namespace["Analyzer"]
    namespace["Analyzer"] = _Analyzer
    try:
        yield
    finally:
        namespace["Analyzer"] = original


class NodepoolsProvider(ComponentProvider):
    """The SDK's component provider, with the specs' field descriptions in its schema."""

    def __init__(self, version: str) -> None:
        types = SchemaTypes()
        components = hosted_components(types)
        with _remembering_analyzer():
            super().__init__(components, PACKAGE, None, version)
        schema = json.loads(self.schema or "{}")
        _describe(schema, types)
        self.schema = json.dumps(schema, sort_keys=True)


def _describe(schema: dict[str, Any], types: SchemaTypes) -> None:
    """Copy each property's description from its spec field into the schema."""

    def fill(properties: dict[str, Any], type_name: str) -> None:
        docs = types.descriptions.get(type_name, {})
        for schema_name, prop in properties.items():
            python_name = _snake(schema_name)
            text = docs.get(python_name)
            if text and not prop.get("description"):
                prop["description"] = text

    for token, resource in schema.get("resources", {}).items():
        fill(resource.get("inputProperties", {}), f"{token.rsplit(':', 1)[-1]}Args")
    for token, type_def in schema.get("types", {}).items():
        fill(type_def.get("properties", {}), token.rsplit(":", 1)[-1])


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PACKAGE)
    except PackageNotFoundError:  # running from a checkout that is not installed
        return "0.0.0"


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the package (what `pulumi package add` and the engine run)."""
    from pulumi.provider import main as serve

    serve(NodepoolsProvider(package_version()), list(sys.argv[1:] if argv is None else argv))
