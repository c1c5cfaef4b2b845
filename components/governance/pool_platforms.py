"""PoolPlatforms: OSMO platforms (one per machine type) of a pool, applied to OSMO and/or
compiled into Kubernetes objects.

Two forms of args: OSMO's own documents (`PoolPlatforms.from_osmo`, or args whose `pool`
is an OSMO pool document; see `nodepools.specs.governance.osmo_platforms`), and our own platform
model (`PoolPlatformsArgs`). OSMO documents become one `OsmoConfig` per `osmo config
update` (`target: osmo`), Kubernetes objects through the same platform model as our form
(`target: kubernetes`, see `nodepools.governance.osmo_kubernetes`), or both. See
`nodepools.governance.platform_objects` for how each concept maps to Kubernetes objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.governance.osmo_documents import OsmoDocument, osmo_documents
from nodepools.governance.osmo_kubernetes import kubernetes_args
from nodepools.governance.platform_objects import PlatformsPlan, render_platforms
from nodepools.outputs import known_output
from nodepools.preflight import checked
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.governance.osmo_platforms import OsmoPlatformsArgs, is_osmo_form
from nodepools.specs.governance.platforms import PoolPlatformsArgs


@dataclass(frozen=True)
class PlatformsBuild:
    """What a PoolPlatforms makes: Kubernetes objects (None when not a target) and OSMO
    documents (empty when OSMO is not a target)."""

    kubernetes: PlatformsPlan | None
    osmo: list[OsmoDocument] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)  # of the Kubernetes objects


def parse_platforms(name: str, args: Any) -> PoolPlatformsArgs | OsmoPlatformsArgs:
    subject = f"PoolPlatforms {name!r}"
    if is_osmo_form(args):
        return parse_spec(OsmoPlatformsArgs, args, subject)
    return parse_spec(PoolPlatformsArgs, args, subject)


def build_platforms(name: str, spec: PoolPlatformsArgs | OsmoPlatformsArgs) -> PlatformsBuild:
    """Everything a PoolPlatforms registers, rendered; raises SpecError first."""
    if isinstance(spec, PoolPlatformsArgs):
        return PlatformsBuild(render_platforms(name, spec), [], spec.namespace_names)
    documents = osmo_documents(spec) if spec.applies_to_osmo else []
    if not spec.compiles_to_kubernetes:
        return PlatformsBuild(None, documents)
    ours = kubernetes_args(spec, f"PoolPlatforms {name!r}")
    return PlatformsBuild(render_platforms(name, ours), documents, ours.namespace_names)


@documented(PoolPlatformsArgs)
class PoolPlatforms(pulumi.ComponentResource):
    """Platforms of one pool: OSMO configs, or pod templates, admission checks and access.

    Outputs: `platforms` (platform name -> `{pod_template, policy}` of the Kubernetes
    target: the PodTemplate name in each pool namespace and the ValidatingAdmissionPolicy
    name, None when the platform validates nothing; {} without that target),
    `default_platform` (None when unset), `namespaces` ([] without the Kubernetes target)
    and `osmo_documents` (`[{type, name, document}]`, one per `osmo config update`, in the
    order they are applied; [] without the OSMO target).
    Children: `{name}-osmo-<type>-<name>` (`OsmoConfig`, type lowercase) for OSMO;
    `{name}-podtemplate-<namespace>-<platform>`, `{name}-policy-<platform>`,
    `{name}-policybinding-<platform>`, `{name}-role-<namespace>-<role>`,
    `{name}-rolebinding-<namespace>-<role>` and `{name}-namespace-<namespace>` when
    `create_namespaces`, for Kubernetes (Kubernetes forms of the names).
    """

    TYPE = "nodepools:index:PoolPlatforms"

    platforms: pulumi.Output[dict[str, Any]]
    default_platform: pulumi.Output[str | None]
    namespaces: pulumi.Output[list[Any]]
    osmo_documents: pulumi.Output[list[Any]]

    @staticmethod
    def validate_args(data: Any) -> PoolPlatformsArgs | OsmoPlatformsArgs:
        """Either form of args, validated (a stack entry's `pool` document with its own
        `platforms` is OSMO's form)."""
        model = OsmoPlatformsArgs if is_osmo_form(data) else PoolPlatformsArgs
        return model.model_validate(data)

    @classmethod
    def preflight(cls, name: str, args: Any) -> tuple[Any, PlatformsBuild]:
        """Everything the constructor checks (templates, references, CEL, RBAC rendered),
        registering nothing; the fleet runs it on each entry before building any."""
        spec = parse_platforms(name, args)
        return spec, build_platforms(name, spec)

    @classmethod
    def from_osmo(
        cls,
        name: str,
        *,
        pool: dict[str, Any],
        pod_templates: dict[str, Any] | None = None,
        resource_validations: dict[str, Any] | None = None,
        roles: list[dict[str, Any]] | None = None,
        target: str = "osmo",
        service: dict[str, Any] | None = None,
        kubernetes: dict[str, Any] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> PoolPlatforms:
        """PoolPlatforms of OSMO's own documents, as loaded from their JSON files: the pool
        (`osmo config update POOL`), the pod templates `{name: {spec}}` and resource
        validations `{name: [rules]}` it references, and its roles."""
        args: dict[str, Any] = {"pool": pool, "target": target}
        for key, value in (
            ("pod_templates", pod_templates),
            ("resource_validations", resource_validations),
            ("roles", roles),
            ("service", service),
            ("kubernetes", kubernetes),
        ):
            if value is not None:
                args[key] = value
        return cls(name, args, opts)

    def __init__(self, name: str, args: Any, opts: pulumi.ResourceOptions | None = None):
        spec, build = checked(self, name, args, opts)
        plan = build.kubernetes
        documents = [
            {"type": d.config_type, "name": d.name, "document": d.document} for d in build.osmo
        ]
        namespaces = build.namespaces
        pool_name = spec.pool.name
        # Registered as the component's inputs (under `spec`: the output names are typed
        # differently) so `plan` and `pulumi stack export` can show the platforms.
        props: dict[str, Any] = {
            "spec": {
                "pool": pool_name,
                "platforms": plan.platforms if plan else [],
                "roles": plan.roles if plan else [],
                "namespaces": namespaces,
            }
        }
        if build.osmo:
            props["spec"]["osmo"] = [
                {
                    "type": d.config_type,
                    "name": d.name,
                    "file": d.path,
                    **({"translation": list(d.translation)} if d.translation else {}),
                }
                for d in build.osmo
            ]
        super().__init__(self.TYPE, name, props, opts)
        from nodepools.governance.register import register_manifests

        self.resources: dict[str, pulumi.CustomResource] = (
            register_manifests(name, plan.objects, self) if plan else {}
        )
        if build.osmo:
            self.resources.update(_register_osmo(name, spec, build.osmo, self))
        self.platforms = known_output(
            {
                platform["name"]: {
                    "pod_template": platform["podTemplate"],
                    "policy": platform["policy"],
                }
                for platform in (plan.platforms if plan else list[dict[str, Any]]())
            }
        )
        default = (
            spec.pool.default_platform
            if isinstance(spec, OsmoPlatformsArgs)
            else spec.default_platform
        )
        self.default_platform = pulumi.Output.from_input(default)
        self.namespaces = known_output(namespaces)
        self.osmo_documents = known_output(documents)
        self.register_outputs(
            {
                "platforms": self.platforms,
                "default_platform": self.default_platform,
                "namespaces": self.namespaces,
                "osmo_documents": self.osmo_documents,
            }
        )


def _register_osmo(
    name: str, spec: OsmoPlatformsArgs, documents: list[OsmoDocument], parent: pulumi.Resource
) -> dict[str, pulumi.CustomResource]:
    """One OsmoConfig per document, keyed `osmo-<type>-<name>`; a pool after the pod
    templates and resource validations it references."""
    from nodepools.backends.governance.osmo import OsmoConfig, OsmoConfigArgs
    from pydantic import SecretStr

    token = spec.service.token
    token = token.get_secret_value() if isinstance(token, SecretStr) else token
    made: dict[str, list[pulumi.Resource]] = {}
    registered: dict[str, pulumi.CustomResource] = {}
    for document in documents:
        depends = [r for t in document.depends_on_types() for r in made.get(t, [])]
        key = f"osmo-{document.config_type.lower()}-{document.name}"
        resource = OsmoConfig(
            f"{name}-{key}",
            OsmoConfigArgs(
                config_type=document.config_type,
                config_name=document.name,
                document=document.document,
                url=spec.service.url,
                token=token,
            ),
            pulumi.ResourceOptions(parent=parent, depends_on=depends or None),
        )
        made.setdefault(document.config_type, []).append(resource)
        registered[key] = resource
    return registered
