"""PoolPlatforms: OSMO-style platforms (one per machine type) of a pool, as Kubernetes objects.

See `nodepools.governance.platform_objects` for how each OSMO concept maps to what we emit
(PodTemplates, ValidatingAdmissionPolicies with bindings, Roles with RoleBindings).
"""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.documentation import documented
from nodepools.governance.platform_objects import render_platforms
from nodepools.outputs import known_output
from nodepools.specs.base import parse_spec
from nodepools.specs.platforms import PoolPlatformsArgs


@documented(PoolPlatformsArgs)
class PoolPlatforms(pulumi.ComponentResource):
    """Platforms of one pool: pod templates, default requests, admission checks and access.

    Outputs: `platforms` (platform name -> `{pod_template, policy}`: the PodTemplate name
    in each pool namespace and the ValidatingAdmissionPolicy name, None when the platform
    validates nothing), `default_platform` (None when unset) and `namespaces`.
    Children: `{name}-podtemplate-<namespace>-<platform>`, `{name}-policy-<platform>`,
    `{name}-policybinding-<platform>`, `{name}-role-<namespace>-<role>`,
    `{name}-rolebinding-<namespace>-<role>` and `{name}-namespace-<namespace>` when
    `create_namespaces` (Kubernetes forms of the names).
    """

    TYPE = "nodepools:index:PoolPlatforms"

    platforms: pulumi.Output[dict]
    default_platform: pulumi.Output[str | None]
    namespaces: pulumi.Output[list]

    @classmethod
    def preflight(cls, name: str, args: PoolPlatformsArgs | dict[str, Any]):
        """Everything the constructor checks (templates, CEL, RBAC rendered), registering
        nothing; the fleet runs it on each entry before building any."""
        spec = parse_spec(PoolPlatformsArgs, args, f"PoolPlatforms {name!r}")
        return spec, render_platforms(name, spec)

    def __init__(
        self,
        name: str,
        args: PoolPlatformsArgs | dict[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ):
        spec, plan = self.preflight(name, args)
        # Registered as the component's inputs (under `spec`: the output names are typed
        # differently) so `plan` and `pulumi stack export` can show the platforms.
        props = {
            "spec": {
                "pool": spec.pool.name,
                "platforms": plan.platforms,
                "roles": plan.roles,
                "namespaces": spec.namespace_names,
            }
        }
        super().__init__(self.TYPE, name, props, opts)
        from nodepools.governance.register import register_manifests

        self.resources = register_manifests(name, plan.objects, self)
        self.platforms = known_output(
            {
                platform["name"]: {
                    "pod_template": platform["podTemplate"],
                    "policy": platform["policy"],
                }
                for platform in plan.platforms
            }
        )
        self.default_platform = pulumi.Output.from_input(spec.default_platform)
        self.namespaces = known_output(spec.namespace_names)
        self.register_outputs(
            {
                "platforms": self.platforms,
                "default_platform": self.default_platform,
                "namespaces": self.namespaces,
            }
        )
