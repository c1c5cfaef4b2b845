"""NVIDIA OSMO's own config documents, as `osmo config update` takes them.

The models follow OSMO's (`PoolEditable`, `PlatformEditable`, `ResourceAssertion`, `Role`
in OSMO's sources); the facts they rest on (field names and defaults, built-in pod
templates and resource validations, the name pattern, the operators, how the CLI sends each
config) are read from `data/osmo_config.json`, which `scripts/extract_osmo_facts.py`
regenerates from an OSMO checkout. A test keeps the models and the facts in step.

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
from pydantic import AfterValidator, Field, StrictBool, StrictStr, model_validator


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
    resources: dict[str, Any] = Field(
        default_factory=dict,
        description="Scheduler resources, e.g. `{gpu: {guarantee, maximum, weight}}`; default {}.",
    )
    topology_keys: list[OsmoTopologyKey] = Field(
        default_factory=list[OsmoTopologyKey], description="Topology keys; default []."
    )


class OsmoRoleAction(SpecModel):
    """A role action in the form OSMO's pool documentation shows: `{base, path, method}`."""

    base: Literal["http"] = Field(description="`http`. Required.")
    path: StrictStr = Field(
        min_length=1, description="API path glob, e.g. `/api/pool/shared*`. Required."
    )
    method: StrictStr = Field(min_length=1, description="HTTP method or `*`. Required.")


def _semantic_action(value: str) -> str:
    if not re.fullmatch(osmo_facts()["semantic_action_pattern"], value):
        raise ValueError(
            f"{value!r} is not an OSMO action ('resource:Action', e.g. 'workflow:Create', '*:*')"
        )
    return value


class OsmoRolePolicy(SpecModel):
    """A policy of a role in OSMO's current form: semantic actions on resources."""

    effect: Literal["Allow", "Deny"] = Field(default="Allow", description="Default `Allow`.")
    actions: list[Annotated[StrictStr, AfterValidator(_semantic_action)]] = Field(
        min_length=1, description="e.g. `workflow:*`. Required."
    )
    resources: list[StrictStr] = Field(
        default_factory=list[StrictStr], description="e.g. `pool/shared*`; default [] (all)."
    )


class OsmoRole(SpecModel):
    """An OSMO role. `actions` (the pool documentation's form) or `policies` (OSMO's
    current form), exactly one of them."""

    name: StrictStr = Field(min_length=1, description="Role name, e.g. `osmo-shared`. Required.")
    description: StrictStr = Field(description="Free text. Required (OSMO requires it).")
    actions: list[OsmoRoleAction] | None = Field(
        default=None, description="`[{base, path, method}]`; default None."
    )
    policies: list[OsmoRolePolicy] | None = Field(
        default=None, description="`[{effect, actions, resources}]`; default None."
    )
    immutable: StrictBool = Field(default=False, description="Default false.")
    sync_mode: Literal["force", "import", "ignore"] = Field(
        default="import", description="How IdP sync treats the role; default `import`."
    )
    external_roles: list[StrictStr] | None = Field(
        default=None, description="IdP roles mapped to this one; default None (unchanged)."
    )

    @model_validator(mode="after")
    def _one_form(self) -> OsmoRole:
        if (self.actions is None) == (self.policies is None):
            raise ValueError("give exactly one of `actions` and `policies`")
        return self

    def pool_globs(self) -> list[tuple[str, str]]:
        """(path of the field, pool name glob) of each grant on pools."""
        found: list[tuple[str, str]] = []
        for i, action in enumerate(self.actions or []):
            if action.path.startswith("/api/pool/"):
                found.append((f"actions[{i}].path", action.path.removeprefix("/api/pool/")))
        for i, policy in enumerate(self.policies or []):
            for j, resource in enumerate(policy.resources):
                if resource.startswith("pool/"):
                    found.append((f"policies[{i}].resources[{j}]", resource.removeprefix("pool/")))
        return found


__all__ = [
    "ConfigName",
    "OsmoPlatform",
    "OsmoPool",
    "OsmoResourceRule",
    "OsmoRole",
    "OsmoRoleAction",
    "OsmoRolePolicy",
    "OsmoTopologyKey",
    "builtin_pod_templates",
    "builtin_resource_validations",
    "config_name_problem",
    "osmo_facts",
]
