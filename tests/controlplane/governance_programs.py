"""Every PoolQuotas and PoolPlatforms the project's stacks and example programs write, as the
args each component receives: found in the stack files (stacks/Pulumi.*.yaml by glob, and the
doctor's test stack) and the example programs (examples/*/Pulumi.yaml in Pulumi YAML, read
as our provider reads it: camelCase field names to the specs' snake_case, user map keys kept;
examples/typescript-gpu-pools/index.ts, transcribed, since no TypeScript runs here)."""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from tests.engines.mocks import STACKS, example_stacks

REPO = Path(__file__).resolve().parents[2]
DOCTOR_STACK = Path(__file__).parent / "doctor_project" / "stacks" / "Pulumi.doc.yaml"


@dataclass(frozen=True)
class Governed:
    """One component of a program: where it is written, its kind, name and args."""

    source: str
    component: str
    name: str
    args: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.source}: {self.component} {self.name}"


def _stack_entries(path: Path, source: str) -> list[Governed]:
    config = (yaml.safe_load(path.read_text()) or {}).get("config") or {}
    found = []
    for entry in config.get("nodepools:governance") or []:
        args = {k: v for k, v in entry.items() if k not in ("component", "name")}
        found.append(Governed(source, entry["component"], entry["name"], args))
    return found


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def _models(annotation: Any) -> list[type[BaseModel]]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _models(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models(arg)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


def _items(annotation: Any, container: type) -> Any:
    """The item annotation of a list (or the value annotation of a dict) in ANNOTATION."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _items(typing.get_args(annotation)[0], container)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _items(arg, container)
            if found is not None:
                return found
        return None
    if origin is container:
        return typing.get_args(annotation)[-1] if typing.get_args(annotation) else Any
    return None


def snake_args(annotation: Any, value: Any) -> Any:
    """VALUE as the provider hands it to a component whose field has ANNOTATION: field names
    of the specs' models in snake_case, everything else (user maps, pod specs) as written."""
    if isinstance(value, list):
        item = _items(annotation, list)
        return [snake_args(item, v) for v in value] if item is not None else value
    if not isinstance(value, dict):
        return value
    models = _models(annotation)
    if not models:
        inner = _items(annotation, dict)
        return {k: snake_args(inner, v) for k, v in value.items()} if inner is not None else value

    def field_of(model: type[BaseModel], key: str) -> str | None:
        return (
            key
            if key in model.model_fields
            else (_snake(key) if _snake(key) in model.model_fields else None)
        )

    model = max(models, key=lambda m: sum(field_of(m, k) is not None for k in value))
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = field_of(model, key)
        out[name or key] = (
            item if name is None else snake_args(model.model_fields[name].annotation, item)
        )
    return out


def _interpolate(value: Any, config: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("${") and value.endswith("}"):
        return config[value[2:-1]]
    if isinstance(value, dict):
        return {k: _interpolate(v, config) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, config) for v in value]
    return value


def _yaml_programs() -> list[Governed]:
    from nodepools.provider.host import component_kinds

    args_models = {component.__name__: model for component, model in component_kinds()}
    found = []
    for path in sorted((REPO / "examples").glob("*/Pulumi.yaml")):
        document = yaml.safe_load(path.read_text())
        if document.get("runtime") != "yaml":
            continue
        config = {key: spec.get("default") for key, spec in document.get("config", {}).items()}
        for name, resource in document["resources"].items():
            component = resource["type"].rsplit(":", 1)[-1]
            if component not in ("PoolQuotas", "PoolPlatforms"):
                continue
            props = _interpolate(resource.get("properties", {}), config)
            args = snake_args(args_models[component], props)
            found.append(Governed(f"examples/{path.parent.name}", component, name, args))
    return found


# examples/typescript-gpu-pools/index.ts, as written there (tests/engine/test_typescript_sdk.py
# compiles it against the generated SDK).
TYPESCRIPT_L40S = {
    "name": "l40s",
    "node_labels": {"nodepools.dev/pool": "l40s"},
    "taints": [{"key": "nodepools.dev/pool", "value": "l40s", "effect": "NoSchedule"}],
    "gpus": 16,
}
TYPESCRIPT_QUOTAS = {
    "pools": [{**TYPESCRIPT_L40S, "cpu": 192, "memory": "1536Gi"}],
    "departments": [
        {
            "name": "research",
            "projects": [
                {"name": "training", "quotas": {"l40s": {"gpu": 8, "cpu": 96, "memory": "768Gi"}}}
            ],
        }
    ],
}


def governed_components() -> list[Governed]:
    """Every PoolQuotas and PoolPlatforms of the stacks and example programs."""
    found = [
        g
        for s in example_stacks()
        for g in _stack_entries(STACKS / f"Pulumi.{s}.yaml", f"stacks/{s}")
    ]
    found += _stack_entries(DOCTOR_STACK, "doctor stack doc")
    found += _yaml_programs()
    found.append(
        Governed("examples/typescript-gpu-pools", "PoolQuotas", "quotas", TYPESCRIPT_QUOTAS)
    )
    return found


def typescript_source() -> str:
    return (REPO / "examples" / "typescript-gpu-pools" / "index.ts").read_text()
