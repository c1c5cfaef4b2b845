"""NVIDIA OSMO's own config documents, as `osmo config update` takes them.

The models follow OSMO's (`PoolEditable`, `PlatformEditable`, `PoolResources`,
`TopologyKey`, `ResourceAssertion` in OSMO's sources; roles are in `osmo_roles`, the
checks of what is sent in `osmo_checks`); the facts they rest on (field names and defaults,
rules, built-in pod templates and resource validations, the name pattern, how the CLI sends
each config) are read from `data/osmo_config.json`, which `scripts/extract_osmo_facts.py`
regenerates from an OSMO checkout. Tests keep the models and the facts in step.

Unlike OSMO, which ignores unknown keys of a pool or platform, unknown keys are errors
here: a misspelt `overide_pod_template` would otherwise vanish silently.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal

from nodepools.specs.core.base import SpecModel
from pydantic import AfterValidator, Field, StrictBool, StrictInt, StrictStr


@cache
def osmo_facts() -> dict[str, Any]:
    """The facts `scripts/extract_osmo_facts.py` derived from OSMO's sources."""
    text = (
        resources.files("nodepools.specs.governance").joinpath("data/osmo_config.json").read_text()
    )
    return json.loads(text)


def builtin_pod_templates() -> dict[str, Any]:
    """OSMO's built-in pod templates (`default_user`, `default_ctrl`): installed by the
    service itself, referenced by pools, never redefined."""
    return osmo_facts()["builtin_pod_templates"]


def builtin_resource_validations() -> dict[str, Any]:
    """OSMO's built-in resource validations (`default_cpu`, `default_memory`, ...)."""
    return osmo_facts()["builtin_resource_validations"]


def config_name_problem(name: Any) -> str | None:
    """Why OSMO refuses `name` as a template, validation, pool or platform name, or None."""
    pattern = osmo_facts()["config_name_regex"]
    if isinstance(name, str) and re.fullmatch(pattern, name):
        return None
    return (
        f"{name!r} is not a valid OSMO config name (a letter, then letters, digits, '_', "
        "'.' or '-', not ending in '_', '.' or '-')"
    )


def _config_name(name: str) -> str:
    if problem := config_name_problem(name):
        raise ValueError(problem)
    return name


ConfigName = Annotated[StrictStr, AfterValidator(_config_name)]
Operator = Literal["GT", "GE", "LT", "LE", "EQ"]


class OsmoResourceRule(SpecModel):
    """One OSMO resource assertion: `left_operand operator right_operand`, both operands
    strings that may hold `{{USER_*}}` / `{{K8_*}}` tokens."""

    operator: Operator = Field(description="`GT`, `GE`, `LT`, `LE` or `EQ`. Required.")
    left_operand: StrictStr = Field(description="e.g. `{{USER_CPU}}`. Required.")
    right_operand: StrictStr = Field(description="e.g. `{{K8_CPU}}` or `0`. Required.")
    assert_message: StrictStr = Field(description="Shown when the rule fails. Required.")


class OsmoPlatform(SpecModel):
    """A platform (machine type) of an OSMO pool (OSMO's `PlatformEditable`)."""

    description: StrictStr = Field(default="", description="Free text; default empty.")
    host_network_allowed: StrictBool = Field(
        default=False, description="Whether tasks may use the host network; default false."
    )
    privileged_allowed: StrictBool = Field(
        default=False, description="Whether tasks may run privileged; default false."
    )
    allowed_mounts: list[StrictStr] = Field(
        default_factory=list[StrictStr], description="Host paths tasks may mount; default []."
    )
    default_variables: dict[str, Any] = Field(
        default_factory=dict,
        description="Overrides of the pool's `common_default_variables`; default {}.",
    )
    resource_validations: list[StrictStr] = Field(
        default_factory=list[StrictStr],
        description="Resource validation names added to the pool's; default [].",
    )
    override_pod_template: list[StrictStr] = Field(
        default_factory=list[StrictStr],
        description="Pod template names merged over the pool's, in order; default [].",
    )


class OsmoTopologyKey(SpecModel):
    """A topology key of a pool: a friendly name for a node label."""

    key: StrictStr = Field(description="Name, e.g. `rack`. Required.")
    label: StrictStr = Field(
        description="Node label, e.g. `topology.kubernetes.io/rack`. Required."
    )


class OsmoPoolResourceCount(SpecModel):
    """Guarantee, maximum and weight of one countable resource (OSMO's
    `PoolResourceCountable`); -1 is no limit."""

    guarantee: StrictInt = Field(default=-1, description="Default -1 (no limit).")
    maximum: StrictInt = Field(default=-1, description="Default -1 (no limit).")
    weight: StrictInt = Field(default=1, description="Default 1.")


class OsmoPoolResources(SpecModel):
    """Resources of a pool for schedulers that support them (OSMO's `PoolResources`)."""

    gpu: OsmoPoolResourceCount | None = Field(default=None, description="Default None.")


class OsmoPool(SpecModel):
    """An OSMO pool document (OSMO's `PoolEditable`), as `osmo config update POOL` takes it."""

    name: ConfigName = Field(
        description="Pool name, e.g. `shared_simulation_training_pool`. Required."
    )
    backend: StrictStr = Field(description="The OSMO backend (cluster) of the pool. Required.")
    description: StrictStr = Field(default="", description="Free text; default empty.")
    default_platform: StrictStr | None = Field(
        default=None, description="Platform of tasks that name none; default None."
    )
    common_default_variables: dict[str, Any] = Field(
        default_factory=dict,
        description="`USER_CPU`, `USER_GPU`, `USER_MEMORY`, `USER_STORAGE`, ... of every "
        "platform; default {}.",
    )
    common_resource_validations: list[StrictStr] = Field(
        default_factory=list[StrictStr],
        description="Resource validation names of every platform; default [].",
    )
    common_pod_template: list[StrictStr] = Field(
        default_factory=list[StrictStr],
        description="Pod template names every platform starts from, in order (e.g. "
        "`default_user`, `default_ctrl`); default [].",
    )
    common_group_templates: list[StrictStr] = Field(
        default_factory=list[StrictStr],
        description="Group template names; default []. Not managed here: must be empty.",
    )
    platforms: dict[ConfigName, OsmoPlatform] = Field(
        default_factory=dict, description="Platforms by name; default {}."
    )
    status: Literal["ONLINE", "OFFLINE", "MAINTENANCE"] | None = Field(
        default=None, description="Reported by OSMO; default None."
    )
    download_type: Literal["download"] | None = Field(
        default=None, description="Data download mode; default None."
    )
    enable_maintenance: StrictBool = Field(
        default=False, description="Put the pool in maintenance; default false."
    )
    default_exec_timeout: StrictStr = Field(
        default="", description="e.g. `7d`; default empty (the workflow config's)."
    )
    default_queue_timeout: StrictStr = Field(default="", description="Default empty.")
    max_exec_timeout: StrictStr = Field(default="", description="Default empty.")
    max_queue_timeout: StrictStr = Field(default="", description="Default empty.")
    default_exit_actions: dict[str, StrictStr] = Field(
        default_factory=dict, description="Exit code actions; default {}."
    )
    resources: OsmoPoolResources = Field(
        default_factory=lambda: OsmoPoolResources(),
        description="Scheduler resources, e.g. `{gpu: {guarantee, maximum, weight}}`; default {}.",
    )
    topology_keys: list[OsmoTopologyKey] = Field(
        default_factory=list[OsmoTopologyKey], description="Topology keys; default []."
    )


__all__ = [
    "ConfigName",
    "OsmoPlatform",
    "OsmoPool",
    "OsmoPoolResourceCount",
    "OsmoPoolResources",
    "OsmoResourceRule",
    "OsmoTopologyKey",
    "builtin_pod_templates",
    "builtin_resource_validations",
    "config_name_problem",
    "osmo_facts",
]
