"""Policy pack configuration, read and merged the way the Pulumi CLI does it.

`pulumi preview --policy-pack policies --policy-pack-config FILE` takes a JSON object whose
keys are policy names (or `all`) and whose values are an enforcement level
(`{"spot-pool-tainted": "disabled"}`) or an object with an optional `enforcementLevel` and
the policy's config properties (`{"autoscaling-max-nodes": {"enforcementLevel": "advisory",
"maxNodes": 20}}`). Before configuring the pack the CLI fills in every default from the
policies' config schemas, applies the `all` level to every policy, applies each policy's own
entry over that, and validates the result against each schema. The runner does the same here
so a config file means the same thing offline and under the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from nodepools.json_values import is_mapping
from nodepools.policies import config_schema
from nodepools.policies.pack import enforcement_level
from pulumi_policy import EnforcementLevel, Policy

ALL_POLICIES = "all"


class PolicyConfigError(ValueError):
    """The config can't be used; `problems` lists every reason, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid policy pack config:\n  " + "\n  ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class PolicySettings:
    """What one policy runs with once defaults and the given config are merged."""

    enforcement_level: EnforcementLevel
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Entry:
    enforcement_level: EnforcementLevel | None
    properties: dict[str, Any]


def _level(raw: Any, key: str) -> EnforcementLevel:
    try:
        return EnforcementLevel(raw)
    except ValueError:
        valid = ", ".join(level.value for level in EnforcementLevel)
        raise PolicyConfigError(
            [f"{key}: {json.dumps(raw)} is not a valid enforcement level (one of {valid})"]
        ) from None


def _entries(config: Mapping[str, Any]) -> dict[str, _Entry]:
    # Policy config is user JSON: not always the object its annotation promises.
    if not isinstance(config, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise PolicyConfigError(["the config must be a JSON object keyed by policy name"])
    entries: dict[str, _Entry] = {}
    problems: list[str] = []
    for key, value in config.items():
        try:
            if isinstance(value, str):
                entries[key] = _Entry(_level(value, key), {})
            elif is_mapping(value):
                properties: dict[str, Any] = dict(value)
                raw_level = properties.pop("enforcementLevel", None)
                level = None if raw_level is None else _level(raw_level, key)
                if level is not None or properties:
                    entries[key] = _Entry(level, properties)
            else:
                problems.append(
                    f"{key}: {json.dumps(value)} is not a valid value; must be an enforcement "
                    "level or an object"
                )
        except PolicyConfigError as error:
            problems += error.problems
    if problems:
        raise PolicyConfigError(problems)
    return entries


def load_policy_config(path: str | PathLike[str]) -> dict[str, Any]:
    """A `--policy-pack-config` JSON file, checked for shape (an empty file is no config)."""
    text = Path(path).read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise PolicyConfigError([f"{path}: not valid JSON ({error})"]) from None
    _entries(config)
    return config


def _defaults(policy: Policy) -> dict[str, Any]:
    if policy.config_schema is None:
        return {}
    return {
        name: prop["default"]
        for name, prop in policy.config_schema.properties.items()
        if "default" in prop
    }


def _schema(policy: Policy) -> dict[str, Any]:
    # The object schema the CLI wraps around a policy's property schemas before validating.
    assert policy.config_schema is not None
    schema: dict[str, Any] = {"type": "object"}
    if policy.config_schema.properties:
        schema["properties"] = policy.config_schema.properties
    if policy.config_schema.required:
        schema["required"] = policy.config_schema.required
    return schema


def reconcile_policy_config(
    policies: Iterable[Policy], config: Mapping[str, Any] | None = None
) -> dict[str, PolicySettings]:
    """Every policy's enforcement level and config properties after merging `config`.

    Keys that name no policy are ignored, as the CLI ignores them.
    """
    policies = list(policies)
    entries = _entries(config or {})
    levels = {p.name: enforcement_level(p) for p in policies}
    properties = {p.name: _defaults(p) for p in policies}
    everything = entries.get(ALL_POLICIES)
    if everything is not None and everything.enforcement_level is not None:
        levels = dict.fromkeys(levels, everything.enforcement_level)
    for name, entry in entries.items():
        if name not in levels:
            continue
        if entry.enforcement_level is not None:
            levels[name] = entry.enforcement_level
        properties[name].update(entry.properties)
    problems: list[str] = []
    for policy in policies:
        if policy.config_schema is not None:
            errors = config_schema.validate(_schema(policy), properties[policy.name])
            problems += [f"{policy.name}: {error}" for error in errors]
    if problems:
        raise PolicyConfigError(problems)
    return {name: PolicySettings(levels[name], properties[name]) for name in levels}
