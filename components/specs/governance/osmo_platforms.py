"""Args of PoolPlatforms in OSMO's own form: the pool, pod template, resource validation
and role documents exactly as `osmo config update` takes them, and where they go.

`target` chooses what is made of them: `osmo` applies each document to the OSMO service
(one `OsmoConfig` per `osmo config update`), `kubernetes` compiles them into PodTemplates,
ValidatingAdmissionPolicies and RBAC for clusters without OSMO (the `kubernetes` section
supplies what OSMO learns from its nodes), `both` does both.

References are checked here, every problem at once with its path: a pod template or
resource validation a pool names must be defined in this entry or be one of OSMO's
built-ins (which are referenced, never redefined); `default_platform` must be a platform;
a role given for the pool must be named `osmo-...` and its pool globs must match the pool.
"""

from __future__ import annotations

import fnmatch
from typing import Annotated, Any, Literal

from nodepools.json_values import is_dict
from nodepools.specs.core.base import Issue, NestedIssues, SpecModel, format_path
from nodepools.specs.core.kube import DnsLabel
from nodepools.specs.core.secret_inputs import HoldsSecret, checked_url, secret_token
from nodepools.specs.governance.governed_pool import GovernedPool
from nodepools.specs.governance.osmo_checks import document_issues
from nodepools.specs.governance.osmo_models import (
    ConfigName,
    OsmoPool,
    OsmoResourceRule,
    builtin_pod_templates,
    builtin_resource_validations,
    osmo_facts,
)
from nodepools.specs.governance.osmo_roles import OsmoRole
from nodepools.specs.governance.platforms import NodeResources
from pydantic import (
    BeforeValidator,
    Field,
    field_validator,
    model_validator,
)

OSMO_TOKEN_ENV_VARS = ("OSMO_TOKEN",)
"""Read by the provider, at deploy time, when the service has no `token`."""
OSMO_URL_ENV_VAR = "OSMO_URL"
"""Read by the provider, at deploy time, when the service has no `url`."""
ROLE_PREFIX: str = osmo_facts()["cli_pool_role"]["name_prefix"]
"""What `osmo config set ROLE <name> pool` requires of a pool role's name."""
Target = Literal["osmo", "kubernetes", "both"]


class OsmoService(HoldsSecret):
    """Where the OSMO documents are applied, and the credential to apply them with."""

    url: str | None = Field(
        default=None,
        description=f"OSMO service URL, e.g. `https://osmo.example.com`; default None: "
        f"`{OSMO_URL_ENV_VAR}` from the environment at deploy time.",
    )
    token: Annotated[Any, secret_token(OSMO_TOKEN_ENV_VARS)] = Field(
        default=None,
        repr=False,
        description="OSMO access token (what `osmo login --method token` takes; a string or, "
        "better, a secret Output); always registered as a Pulumi secret. Default None: "
        f"{' then '.join(OSMO_TOKEN_ENV_VARS)} from the environment at deploy time.",
    )

    @field_validator("url")
    @classmethod
    def _secure_url(cls, url: str | None) -> str | None:
        checked = checked_url(url)
        return checked.rstrip("/") if checked else url


def _pool_by_name(value: Any) -> Any:
    return {"name": value} if isinstance(value, str) else value


class KubernetesTarget(SpecModel):
    """What the Kubernetes compilation needs beyond OSMO's documents."""

    pool: Annotated[GovernedPool, BeforeValidator(_pool_by_name)] | None = Field(
        default=None,
        description="The pool's nodes (name, node_labels, taints, gpus_per_node, "
        "gpu_resource) or a pool component; default None: a pool named as the OSMO pool.",
    )
    node_resources: dict[str, NodeResources] = Field(
        default_factory=dict,
        description="Per platform, what one node has (`{{K8_*}}` of the rules; OSMO reads "
        "it from the nodes); default {}.",
    )
    namespaces: list[DnsLabel] | None = Field(
        default=None,
        description="Namespaces of the pool's pods; default [the pool's Kubernetes name].",
    )
    create_namespaces: bool = Field(default=False, description="Create them; default false.")


def _templates_checked(templates: dict[str, Any]) -> dict[str, Any]:
    from nodepools.specs.governance.pod_spec_schema import pod_template_issues

    issues = [
        issue
        for name, template in templates.items()
        for issue in pod_template_issues(template, format_path([name]))
    ]
    if issues:
        raise NestedIssues(issues)
    return templates


class OsmoPlatformsArgs(SpecModel):
    """Args of `PoolPlatforms` in OSMO's form (see `PoolPlatforms.from_osmo`)."""

    pool: OsmoPool = Field(description="The OSMO pool document. Required.")
    pod_templates: dict[ConfigName, dict[str, Any]] = Field(
        default_factory=dict,
        description="Pod templates by name, `{name: {spec: {...}}}` (partial pod specs: no "
        "container required); default {}.",
    )
    resource_validations: dict[ConfigName, list[OsmoResourceRule]] = Field(
        default_factory=dict,
        description="Resource validations by name, `{name: [{operator, left_operand, "
        "right_operand, assert_message}]}`; default {}.",
    )
    roles: list[OsmoRole] = Field(
        default_factory=list[OsmoRole], description="Roles giving access to the pool; default []."
    )
    target: Target = Field(
        default="osmo",
        description="`osmo` (apply the documents to OSMO), `kubernetes` (compile them into "
        "Kubernetes objects) or `both`; default `osmo`.",
    )
    service: OsmoService = Field(
        default_factory=OsmoService,
        description="The OSMO service (`url`, `token`); default {} (both from the environment "
        "at deploy time).",
    )
    kubernetes: KubernetesTarget = Field(
        default_factory=KubernetesTarget,
        description="What the `kubernetes` target needs beyond the documents; default {}.",
    )

    _check_templates = field_validator("pod_templates")(_templates_checked)

    @model_validator(mode="after")
    def _references(self) -> OsmoPlatformsArgs:
        if issues := self.reference_issues():
            raise NestedIssues(issues)
        return self

    @property
    def applies_to_osmo(self) -> bool:
        return self.target in ("osmo", "both")

    @property
    def compiles_to_kubernetes(self) -> bool:
        return self.target in ("kubernetes", "both")

    def reference_issues(self) -> list[Issue]:
        pool = self.pool
        issues: list[Issue] = []
        templates = {**builtin_pod_templates(), **self.pod_templates}
        validations = {**builtin_resource_validations(), **self.resource_validations}
        for kind, defined, builtins in (
            ("pod_templates", self.pod_templates, builtin_pod_templates()),
            ("resource_validations", self.resource_validations, builtin_resource_validations()),
        ):
            for name in defined:
                if name in builtins:
                    issues.append(
                        Issue(
                            format_path([kind, name]),
                            f"{name!r} is one of OSMO's built-ins: reference it, don't redefine it",
                        )
                    )
        refs: list[tuple[list[Any], list[str], dict[str, Any], str]] = [
            (["pool", "common_pod_template"], pool.common_pod_template, templates, "pod template"),
            (
                ["pool", "common_resource_validations"],
                pool.common_resource_validations,
                validations,
                "resource validation",
            ),
        ]
        for name, platform in pool.platforms.items():
            where = ["pool", "platforms", name]
            refs.append(
                (
                    [*where, "override_pod_template"],
                    platform.override_pod_template,
                    templates,
                    "pod template",
                )
            )
            refs.append(
                (
                    [*where, "resource_validations"],
                    platform.resource_validations,
                    validations,
                    "resource validation",
                )
            )
        for path, names, known, what in refs:
            for i, ref in enumerate(names):
                if ref not in known:
                    issues.append(
                        Issue(
                            format_path([*path, i]),
                            f"unknown {what} {ref!r}: neither one of OSMO's built-ins "
                            f"({', '.join(sorted(k for k in known if k not in self._own(what)))}) "
                            f"nor defined here ({', '.join(sorted(self._own(what))) or 'none'})",
                        )
                    )
        if pool.default_platform is not None and pool.default_platform not in pool.platforms:
            issues.append(
                Issue(
                    "pool.default_platform",
                    f"{pool.default_platform!r} is not a platform of the pool "
                    f"({', '.join(repr(p) for p in pool.platforms) or 'none'})",
                )
            )
        if pool.common_group_templates:
            issues.append(
                Issue(
                    "pool.common_group_templates",
                    f"{pool.common_group_templates!r} can't be used: group templates are not "
                    "managed by nodepools; leave this empty",
                )
            )
        issues += self._role_issues()
        if not issues:
            for config_type, name, document, path in self.documents():
                issues += document_issues(config_type, name, document, path)
        return issues

    def documents(self) -> list[tuple[str, str, Any, list[Any]]]:
        """(config type, name, document, where it was given) of every document sent, in
        the order they are applied: pod templates and resource validations first (OSMO
        resolves a pool's references when the pool is written). Each is what the user gave
        (unset fields left out), a legacy role translated into `policies`."""
        found: list[tuple[str, str, Any, list[Any]]] = [
            ("POD_TEMPLATE", name, {name: template}, ["pod_templates", name])
            for name, template in sorted(self.pod_templates.items())
        ]
        found += [
            (
                "RESOURCE_VALIDATION",
                name,
                {name: [rule.model_dump(mode="json", exclude_unset=True) for rule in rules]},
                ["resource_validations", name],
            )
            for name, rules in sorted(self.resource_validations.items())
        ]
        found.append(
            (
                "POOL",
                self.pool.name,
                self.pool.model_dump(mode="json", exclude_unset=True),
                ["pool"],
            )
        )
        found += [
            ("ROLE", role.name, role.osmo_document(), ["roles", i])
            for i, role in sorted(enumerate(self.roles), key=lambda item: item[1].name)
        ]
        return found

    def _own(self, what: str) -> dict[str, Any]:
        return self.pod_templates if what == "pod template" else self.resource_validations

    def _role_issues(self) -> list[Issue]:
        issues: list[Issue] = []
        seen: set[str] = set()
        for i, role in enumerate(self.roles):
            if not role.name.startswith(ROLE_PREFIX):
                issues.append(
                    Issue(
                        f"roles[{i}].name",
                        f"{role.name!r} must start with {ROLE_PREFIX!r} (OSMO's rule for pool roles)",
                    )
                )
            if role.name in seen:
                issues.append(Issue(f"roles[{i}].name", f"{role.name!r} is given twice"))
            seen.add(role.name)
            untranslated = role.translation_issues()
            issues += [Issue(f"roles[{i}].{issue.path}", issue.message) for issue in untranslated]
            globs = role.pool_globs()
            if not globs and not untranslated:
                issues.append(
                    Issue(
                        f"roles[{i}]",
                        f"role {role.name!r} grants nothing on pools (no `/api/pool/...` action "
                        "path nor `pool/...` policy resource)",
                    )
                )
            for path, glob in globs:
                if not fnmatch.fnmatchcase(self.pool.name, glob):
                    issues.append(
                        Issue(
                            f"roles[{i}].{path}",
                            f"pool glob {glob!r} does not match this pool ({self.pool.name!r})",
                        )
                    )
        return issues


def is_osmo_form(args: Any) -> bool:
    """Whether PoolPlatforms args are in OSMO's form: the pool is a document carrying its
    platforms (our own form has `platforms` beside `pool`)."""
    if isinstance(args, OsmoPlatformsArgs):
        return True
    return (
        is_dict(args)
        and "platforms" not in args
        and is_dict(args.get("pool"))
        and "platforms" in args["pool"]
    )


__all__ = [
    "OSMO_TOKEN_ENV_VARS",
    "OSMO_URL_ENV_VAR",
    "KubernetesTarget",
    "OsmoPlatformsArgs",
    "OsmoService",
    "is_osmo_form",
]
