"""OSMO roles: OSMO's current form (`policies` of semantic actions) and the legacy form the
OSMO pool documentation shows (`actions: [{base, path, method}]`), translated.

OSMO's `Role` requires `policies: [{effect, actions: ["resource:Action"], resources}]`; a
role without them is refused. A legacy role is translated the way OSMO's own CLI changed
what `osmo config set ROLE osmo-<pool> pool` writes (`create_role` in `src/cli/config.py`,
then and now, both in the facts):

- then `http:/api/pool/<pool>*:post`, now `workflow:*` on `pool/<pool>*`: a legacy action
  on `/api/pool/<glob>` with method `post` or `*` becomes `workflow:*` on `pool/<glob>`;
- then `http:/api/profile/*:*`, now nothing: every user has `profile:*` through OSMO's
  built-in role `osmo-default`, so the action is dropped.

Any other legacy action has no translation and is refused with a suggested policy. Each
legacy field must match OSMO's legacy pattern (in the facts) and the method be one OSMO
knew; the pool documentation's `path: "http:/api/profile/*"` (the `http:` of `base`
repeated, as in the CLI's `http:/api/profile/*:*`) is read as `/api/profile/*`.
"""

from __future__ import annotations

import difflib
import re
from functools import cache
from typing import Annotated, Any, Literal

from nodepools.specs.core.base import Issue, SpecModel
from nodepools.specs.governance.osmo_models import osmo_facts
from pydantic import (
    AfterValidator,
    Field,
    StrictBool,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

POOL_PLACEHOLDER = "{pool_name}"


def _legacy_pattern(key: str) -> str:
    return f"^{osmo_facts()['legacy_role_action'][key]}$"


def _path_fix(value: str) -> str:
    # A scheme-like prefix (`http:`, `https:`) dropped, other ':' read as '/'.
    path = re.sub(r"^[A-Za-z]+:(?=/)", "", value).replace(":", "/")
    return "/" + re.sub("/+", "/", path).lstrip("/")


class OsmoRoleAction(SpecModel):
    """A legacy role action `{base, path, method}`, as OSMO's pool documentation shows it;
    translated into a policy when sent (see the module)."""

    base: StrictStr = Field(description="`http`. Required.")
    path: StrictStr = Field(description="API path glob, e.g. `/api/pool/shared*`. Required.")
    method: StrictStr = Field(description="HTTP method (`post`, `get`, ...) or `*`. Required.")

    @field_validator("base")
    @classmethod
    def _base(cls, value: str) -> str:
        if not re.fullmatch(_legacy_pattern("base"), value):
            raise ValueError(
                f"{value!r} does not match OSMO's legacy pattern `{_legacy_pattern('base')}`: "
                "use 'http'"
            )
        return value

    @field_validator("path")
    @classmethod
    def _path(cls, value: str, info: ValidationInfo) -> str:
        base = info.data.get("base", "")
        pattern = _legacy_pattern("path")
        if re.fullmatch(pattern, value) or (
            base and re.fullmatch(pattern, value.removeprefix(f"{base}:"))
        ):
            return value
        raise ValueError(
            f"{value!r} does not match OSMO's legacy pattern `{pattern}` (`*`, or a path "
            f"starting with '/' and without ':'): did you mean {_path_fix(value)!r}?"
        )

    @field_validator("method")
    @classmethod
    def _method(cls, value: str) -> str:
        pattern = _legacy_pattern("method")
        known = osmo_facts()["legacy_role_methods"]
        if re.fullmatch(pattern, value) and value.lower() in known:
            return value
        close: list[str] = difflib.get_close_matches(value.lower(), list[str](known), n=1)
        fix = (
            f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(map(repr, known))}"
        )
        reason = (
            f"does not match OSMO's legacy pattern `{pattern}`"
            if not re.fullmatch(pattern, value)
            else f"is not one of OSMO's methods ({', '.join(map(repr, known))})"
        )
        raise ValueError(f"{value!r} {reason}: {fix}")

    @property
    def api_path(self) -> str:
        """The path, the pool documentation's `http:` prefix removed."""
        return self.path.removeprefix(f"{self.base}:")

    def text(self) -> str:
        return f"{self.base}:{self.path}:{self.method}"


def _semantic_action(value: str) -> str:
    pattern = osmo_facts()["semantic_action_pattern"]
    if not re.fullmatch(pattern, value):
        raise ValueError(
            f"{value!r} does not match OSMO's action pattern `{pattern}` ('resource:Action', "
            "e.g. 'workflow:Create', 'workflow:*', '*:*')"
        )
    return value


class OsmoRolePolicy(SpecModel):
    """A policy of a role in OSMO's current form: semantic actions on resources."""

    effect: Literal["Allow", "Deny"] = Field(default="Allow", description="Default `Allow`.")
    actions: list[Annotated[StrictStr, AfterValidator(_semantic_action)]] = Field(
        description="e.g. `workflow:*`. Required."
    )
    resources: list[StrictStr] = Field(
        default_factory=list[StrictStr],
        description="e.g. `pool/shared*`; default [] (globally scoped actions only).",
    )


class _Legacy:
    """The CLI's pool role then and now (facts), as the translation reads them."""

    def __init__(self) -> None:
        facts = osmo_facts()
        pattern = re.compile(
            f"^{''.join(facts['legacy_role_action'][k] + ':' for k in ('base', 'path'))}"
            f"{facts['legacy_role_action']['method']}$"
        )
        self.pool: tuple[str, str] | None = None  # (path prefix, method)
        self.dropped: dict[str, str] = {}  # path -> method
        for action in facts["legacy_cli_pool_role"]["policies"][0]["actions"]:
            parsed = pattern.fullmatch(action)
            assert parsed is not None, action
            path, method = parsed.group("path"), parsed.group("method")
            if POOL_PLACEHOLDER in path:
                self.pool = (path.split(POOL_PLACEHOLDER)[0], method.lower())
            else:
                self.dropped[path] = method.lower()
        policy = next(
            p
            for p in facts["cli_pool_role"]["policies"]
            if any(POOL_PLACEHOLDER in r for r in p["resources"])
        )
        self.actions: list[str] = policy["actions"]
        self.resource_prefix: str = next(
            r.split(POOL_PLACEHOLDER)[0] for r in policy["resources"] if POOL_PLACEHOLDER in r
        )
        self.everyone: list[str] = [
            a for p in facts["default_role"]["policies"] for a in p["actions"]
        ]


@cache
def _legacy() -> _Legacy:
    return _Legacy()


def _translate(
    actions: list[OsmoRoleAction],
) -> tuple[list[dict[str, Any]], list[str], list[Issue]]:
    """(policies, notes, issues) of legacy actions."""
    legacy = _legacy()
    resources: list[str] = []
    notes: list[str] = []
    issues: list[Issue] = []
    for i, action in enumerate(actions):
        path, method = action.api_path, action.method.lower()
        given = f"`actions[{i}]` {action.text()!r}"
        read = f" (read as {path!r})" if path != action.path else ""
        if legacy.pool and path.startswith(legacy.pool[0]) and method in (legacy.pool[1], "*"):
            resource = legacy.resource_prefix + path.removeprefix(legacy.pool[0])
            resources.append(resource)
            notes.append(f"{given}{read} -> {', '.join(legacy.actions)} on {resource!r}")
            continue
        segment = path.split("/")[2] if path.count("/") >= 2 else ""
        granted = [a for a in legacy.everyone if a.split(":")[0] == segment]
        if path in legacy.dropped and legacy.dropped[path] in ("*", method) and granted:
            notes.append(
                f"{given}{read} -> not sent: every user has {', '.join(granted)} through "
                f"OSMO's built-in role {osmo_facts()['default_role']['name']!r}"
            )
            continue
        issues.append(
            Issue(
                f"actions[{i}]",
                f"{action.text()!r} has no counterpart in OSMO's current roles (OSMO's CLI "
                f"translates only {legacy.pool[0] if legacy.pool else '/api/pool/'}<glob> with "
                f"method 'post' or '*', and {', '.join(sorted(legacy.dropped))}): give the "
                "role as `policies` instead, e.g. `policies: [{actions: ['workflow:*'], "
                "resources: ['pool/<glob>']}]`",
            )
        )
    policies = [{"actions": list(legacy.actions), "resources": resources}] if resources else []
    return policies, notes, issues


class OsmoRole(SpecModel):
    """An OSMO role: `policies` (OSMO's form) or `actions` (the pool documentation's legacy
    form, translated into `policies` when sent), exactly one of them."""

    name: StrictStr = Field(min_length=1, description="Role name, e.g. `osmo-shared`. Required.")
    description: StrictStr = Field(description="Free text. Required (OSMO requires it).")
    actions: list[OsmoRoleAction] | None = Field(
        default=None,
        description="Legacy `[{base, path, method}]`, translated into `policies` when sent; "
        "default None.",
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

    def translation_issues(self) -> list[Issue]:
        """Legacy actions without a translation, each at its path below the role (checked
        with the entry's other references, so that every problem is reported at once)."""
        return _translate(self.actions)[2] if self.actions is not None else []

    def translation(self) -> list[str]:
        """How the legacy `actions` are sent, one line each; [] for a role in OSMO's form."""
        return _translate(self.actions)[1] if self.actions is not None else []

    def osmo_document(self) -> dict[str, Any]:
        """The document sent (PUT /api/configs/role/<name>): as given, legacy `actions`
        replaced by their `policies`."""
        document = self.model_dump(mode="json", exclude_unset=True)
        if self.actions is not None:
            del document["actions"]
            document["policies"] = _translate(self.actions)[0]
        return document

    def pool_globs(self) -> list[tuple[str, str]]:
        """(path of the field, pool name glob) of each grant on pools."""
        legacy = _legacy()
        prefix = legacy.pool[0] if legacy.pool else "/api/pool/"
        found: list[tuple[str, str]] = []
        for i, action in enumerate(self.actions or []):
            if action.api_path.startswith(prefix):
                found.append((f"actions[{i}].path", action.api_path.removeprefix(prefix)))
        for i, policy in enumerate(self.policies or []):
            for j, resource in enumerate(policy.resources):
                if resource.startswith(legacy.resource_prefix):
                    found.append(
                        (
                            f"policies[{i}].resources[{j}]",
                            resource.removeprefix(legacy.resource_prefix),
                        )
                    )
        return found


__all__ = ["OsmoRole", "OsmoRoleAction", "OsmoRolePolicy"]
