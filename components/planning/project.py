"""A Pulumi project as the CLI reads it: `Pulumi.yaml`, the stack's config file, overrides.

`plan` runs a user's own program offline, so it reads what `pulumi preview` would:
the project's name (config keys without a namespace belong to it), its program (`main`,
default the project folder), where stack files live (`stackConfigDir`), the project's
config defaults (`config:` in Pulumi.yaml, a value or `{default: ...}`), then
`Pulumi.<stack>.yaml` (when there is one: Pulumi needs none), then `--config` / `--secret`
overrides, later ones winning. Each file is checked as it is read (see `config_files`).
Encrypted values (`secure:`) can't be decrypted offline: an override must give them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nodepools.json_values import is_dict
from nodepools.planning.config_files import ConfigFileError, load_yaml, type_name
from nodepools.specs.core.base import did_you_mean

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
    stack_file: Path | None = None  # None: the stack has no settings file (Pulumi needs none)


def load_project(directory: Path, stacks_dir: Path | None = None) -> Project:
    """The project in `directory` (its Pulumi.yaml). `stacks_dir` overrides where program
    and stack files are; with it, a folder without a Pulumi.yaml is the repository's stacks
    folder layout (project `nodepools`)."""
    path = directory / "Pulumi.yaml"
    if not path.is_file():
        if stacks_dir is not None:
            return Project(DEFAULT_PROJECT, stacks_dir, stacks_dir)
        raise ConfigFileError(
            f"{path}: no such Pulumi project file; `-C` names a Pulumi project's folder "
            "(the one holding its Pulumi.yaml), or give `--stacks-dir` for a folder of "
            "stack files and a program of this library's stacks layout"
        )
    document = load_yaml(path, "Pulumi project file")
    data: Any = document.data
    if not is_dict(data):
        raise ConfigFileError(
            f"{path}: a Pulumi project file is a mapping with a `name` (got {type_name(data)})"
        )
    for key in ("name", "main", "stackConfigDir"):
        value = data.get(key)
        if (key == "name" or value is not None) and (not isinstance(value, str) or not value):
            raise ConfigFileError(
                f"{document.where(key)}: `{key}` must be a non-empty string (got {value!r})"
                if key in data
                else f"{path}: a Pulumi project file needs a `name`"
            )
    name: str = data["name"]
    program = directory / str(data.get("main") or ".")
    config_dir = directory / str(data.get("stackConfigDir") or ".")
    if stacks_dir is not None:
        program = config_dir = stacks_dir
    config: Any = data.get("config") or {}
    if not is_dict(config):
        raise ConfigFileError(
            f"{document.where('config')}: `config` must be a mapping of key to value or "
            f"`{{type, default}}` (got {type_name(config)})"
        )
    defaults: dict[str, Any] = {}
    for key, value in config.items():
        full = full_key(name, str(key))
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
    values = dict(project.defaults)
    secret: set[str] = set()
    # Pulumi needs no stack file: a stack without one runs on the project's defaults.
    stack_values = stack_file_config(path, project.name) if path.is_file() else {}
    for key, value in stack_values.items():
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
    return StackConfig(values, frozenset(secret), path if path.is_file() else None)


# What a stack settings file may hold (Pulumi's "Stack settings file reference").
STACK_FILE_KEYS = ("config", "encryptedkey", "encryptionsalt", "environment", "secretsprovider")


def stack_file_config(path: Path, project: str = DEFAULT_PROJECT) -> dict[str, Any]:
    """The `config:` of the stack settings file `path`, checked: a mapping whose top-level
    keys are Pulumi's (a config key written at the top level, outside `config:`, would be
    ignored), with no key given twice, and no key in a misspelt namespace of `project`."""
    document = load_yaml(path, "stack file")
    data: Any = document.data
    if data is None:
        return {}
    if not is_dict(data):
        raise ConfigFileError(
            f"{path}:1: a stack file is a mapping with a `config:` mapping (got {type_name(data)})"
        )
    for key in data:
        if key not in STACK_FILE_KEYS:
            hint = (
                "; config keys go under `config:`"
                if ":" in str(key)
                else did_you_mean(str(key), STACK_FILE_KEYS)
            )
            raise ConfigFileError(
                f"{document.where(key)}: unknown stack file key {key!r} "
                f"(a stack file has {', '.join(STACK_FILE_KEYS)}){hint}"
            )
    config: Any = data.get("config")
    if config is None:
        return {}
    if not is_dict(config):
        raise ConfigFileError(
            f"{document.where('config')}: `config` must be a mapping of key to value "
            f"(got {type_name(config)}: {config!r})"
        )
    for key in config:
        if not isinstance(key, str) or not key:
            raise ConfigFileError(
                f"{document.where('config', key)}: config key {key!r} must be a string"
            )
        namespace = key.split(":", 1)[0] if ":" in key else project
        if namespace != project and (hint := did_you_mean(namespace, [project])):
            raise ConfigFileError(
                f"{document.where('config', key)}: config key {key!r} is in namespace "
                f"`{namespace}`, which nothing reads{hint}"
            )
    return dict(config)
