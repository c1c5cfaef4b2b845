"""A Pulumi project as the CLI reads it: `Pulumi.yaml`, the stack's config file, overrides.

`plan` runs a user's own program offline, so it reads what `pulumi preview` would:
the project's name (config keys without a namespace belong to it), its program (`main`,
default the project folder), where stack files live (`stackConfigDir`), the project's
config defaults (`config:` in Pulumi.yaml, a value or `{default: ...}`), then
`Pulumi.<stack>.yaml`, then `--config` / `--secret` overrides, later ones winning.
Encrypted values (`secure:`) can't be decrypted offline: an override must give them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from nodepools.json_values import is_dict

# Without a Pulumi.yaml (the repository's own stacks folder): the project name used.
DEFAULT_PROJECT = "nodepools"


@dataclass(frozen=True)
class Project:
    name: str
    program: Path  # the program's folder or file
    stack_config_dir: Path
    defaults: dict[str, Any] = field(default_factory=dict)  # full keys -> values


@dataclass(frozen=True)
class StackConfig:
    values: dict[str, Any]  # full keys (`project:key`) -> values as the stack file gives
    secret_keys: frozenset[str]  # full keys whose values are secret


def load_project(directory: Path, stacks_dir: Path | None = None) -> Project:
    """The project in `directory` (its Pulumi.yaml), or the repository's stacks folder
    layout when there is none. `stacks_dir` overrides where program and stack files are."""
    path = directory / "Pulumi.yaml"
    if not path.is_file():
        folder = stacks_dir or directory / "stacks"
        return Project(DEFAULT_PROJECT, folder, folder)
    document: Any = yaml.safe_load(path.read_text()) or {}
    if not is_dict(document) or not isinstance(document.get("name"), str):
        raise ValueError(f"{path}: a Pulumi project file needs a `name`")
    name = document["name"]
    program = directory / str(document.get("main") or ".")
    config_dir = directory / str(document.get("stackConfigDir") or ".")
    if stacks_dir is not None:
        program = config_dir = stacks_dir
    defaults: dict[str, Any] = {}
    for key, value in (document.get("config") or dict[str, Any]()).items():
        full = full_key(name, key)
        if is_dict(value) and ("default" in value or "type" in value):
            if "default" in value:
                defaults[full] = value["default"]
        elif is_dict(value) and "value" in value:
            defaults[full] = value["value"]
        else:
            defaults[full] = value
    return Project(name, program, config_dir, defaults)


def full_key(project: str, key: str) -> str:
    """`key` in the project's namespace unless it names one (`aws:region`)."""
    return key if ":" in key else f"{project}:{key}"


def stack_names(directory: Path) -> list[str]:
    """The stacks that have a config file (`Pulumi.<stack>.yaml`) in `directory`, sorted."""
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in directory.glob("Pulumi.*.yaml"))


def stack_config(
    project: Project,
    stack: str,
    overrides: list[str] | None = None,
    secret_overrides: list[str] | None = None,
) -> StackConfig:
    """The stack's config: project defaults, the stack file, then overrides (`key=value`)."""
    path = project.stack_config_dir / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        available = stack_names(project.stack_config_dir)
        raise FileNotFoundError(
            f"{path}: no such stack file (stacks: {', '.join(available) or 'none'})"
        )
    document: Any = yaml.safe_load(path.read_text()) or {}
    values = dict(project.defaults)
    secret: set[str] = set()
    for key, value in (document.get("config") or dict[str, Any]()).items():
        full = full_key(project.name, key)
        values[full] = value
        if is_dict(value) and set(value) == {"secure"}:
            secret.add(full)
    for items, is_secret in ((overrides or [], False), (secret_overrides or [], True)):
        for item in items:
            key, sep, value = item.partition("=")
            if not sep or not key:
                option = "--secret" if is_secret else "--config"
                raise ValueError(f"{option} {item!r}: expected key=value")
            full = full_key(project.name, key)
            values[full] = value
            # A stack file's secret stays secret when its plaintext is given for the run.
            if is_secret or full in secret:
                secret.add(full)
    encrypted = sorted(k for k, v in values.items() if is_dict(v) and set(v) == {"secure"})
    if encrypted:
        raise ValueError(
            f"{path}: {', '.join(encrypted)} "
            f"{'is an encrypted secret' if len(encrypted) == 1 else 'are encrypted secrets'}, "
            "which can't be decrypted offline; give the plaintext for this run with "
            + " ".join(
                f"--secret {k.split(':', 1)[1] if k.startswith(project.name + ':') else k}=..."
                for k in encrypted
            )
        )
    return StackConfig(values, frozenset(secret))
