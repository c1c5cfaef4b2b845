"""Runs the pack in-process over captured resources (for `python -m nodepools plan`).

The rules are the same objects the analyzer serves, called with pulumi_policy's own argument
types, over properties shaped the way the engine sends them: top-level and nested keys that
start with `__` removed, every number a float (a protobuf Struct round trip, as on the wire),
secrets unwrapped and unknowns behind the unknown-checking proxy. Enforcement levels and
config are merged as the CLI merges `--policy-pack-config` (see `nodepools.policies.configuration`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from inspect import isawaitable
from typing import Any, cast

from google.protobuf import json_format, struct_pb2
from nodepools.json_values import is_mapping, is_sequence
from nodepools.policies.configuration import (
    PolicyConfigError,
    load_policy_config,
    reconcile_policy_config,
)
from nodepools.policies.pack import POLICIES
from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyCustomTimeouts,
    PolicyProviderResource,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import deserialize_properties

# The SDK's marker of a policy that does not apply, exported under a private name only.
from pulumi_policy.policy import _NotApplicableError  # pyright: ignore[reportPrivateUsage]
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

__all__ = [
    "PolicyConfigError",
    "PolicyResourceInput",
    "PolicyViolation",
    "load_policy_config",
    "run_policies",
]


@dataclass(frozen=True)
class PolicyResourceInput:
    """One registered resource, as the engine would describe it to the pack."""

    urn: str
    type: str
    name: str
    props: Mapping[str, Any]
    parent: str | None = None
    provider: PolicyProviderResource | None = None
    options: PolicyResourceOptions | None = None
    dependencies: Sequence[str] = ()
    property_dependencies: Mapping[str, Sequence[str]] = field(
        default_factory=dict[str, Sequence[str]]
    )


@dataclass(frozen=True)
class PolicyViolation:
    policy_name: str
    enforcement_level: EnforcementLevel
    urn: str | None  # None for a stack policy that blames no single resource
    message: str


def _strip_internal_keys(value: Any) -> Any:
    # The engine never sends `__`-prefixed keys (a dynamic resource's pickled `__provider`).
    if is_mapping(value):
        return {k: _strip_internal_keys(v) for k, v in value.items() if not str(k).startswith("__")}
    if is_sequence(value):
        return [_strip_internal_keys(v) for v in value]
    return value


def _engine_shaped(props: Mapping[str, Any]) -> Mapping[str, Any]:
    return unknown_checking_proxy(deserialize_properties(_as_on_the_wire(props)))


def _options(resource: PolicyResourceInput) -> PolicyResourceOptions:
    if resource.options is not None:
        return resource.options
    return PolicyResourceOptions(
        protect=False,
        ignore_changes=[],
        delete_before_replace=None,
        aliases=[],
        custom_timeouts=PolicyCustomTimeouts(0, 0, 0),
        additional_secret_outputs=[],
        parent=resource.parent,
    )


def _reported_level(level: EnforcementLevel) -> EnforcementLevel:
    # As the analyzer does: none of these policies remediates, so a remediate level that
    # still finds a violation is reported as mandatory.
    return EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level


def _as_on_the_wire(value: Mapping[str, Any]) -> dict[str, Any]:
    struct = struct_pb2.Struct()
    struct.update(_strip_internal_keys(value))
    return json_format.MessageToDict(struct)


def _reporter(
    violations: list[PolicyViolation],
    policy: Policy,
    level: EnforcementLevel,
    resource_urn: str | None,
) -> Callable[..., None]:
    def report_violation(message: str, urn: str | None = None) -> None:
        # A resource policy's violations belong to the resource it validated, whatever
        # URN the rule passes; a stack policy names the resource it blames, if any.
        blamed = resource_urn or urn or None
        violations.append(PolicyViolation(policy.name, _reported_level(level), blamed, message))

    return report_violation


def _validate(
    policy: Policy,
    args: ResourceValidationArgs | StackValidationArgs,
    report: Callable[..., None],
    violations: list[PolicyViolation],
    urn: str | None,
) -> None:
    try:
        # Each policy gets its own kind of args (run_policies dispatches on the class); their
        # common base, Policy, declares no validate.
        outcome = cast("object", policy.validate(args, report))  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
        if isawaitable(outcome):
            asyncio.run(_wait_for(outcome))
    except UnknownValueError as error:
        # What the analyzer answers during a preview: the policy can't decide yet.
        violations.append(
            PolicyViolation(
                policy.name,
                EnforcementLevel.ADVISORY,
                urn,
                f"can't run policy '{policy.name}' during preview: {error.message}",
            )
        )
    except _NotApplicableError:
        pass


async def _wait_for(awaitable: Any) -> None:
    await awaitable


def _stack_resources(
    resources: Sequence[PolicyResourceInput], props: Sequence[Mapping[str, Any]]
) -> list[PolicyResource]:
    stack = [
        PolicyResource(r.type, p, r.urn, r.name, _options(r), r.provider, None, [], {})
        for r, p in zip(resources, props, strict=True)
    ]
    by_urn = {resource.urn: resource for resource in stack}
    for source, resource in zip(resources, stack, strict=True):
        resource.parent = by_urn.get(source.parent) if source.parent else None
        resource.dependencies = [by_urn[d] for d in source.dependencies if d in by_urn]
        resource.property_dependencies = {
            key: [by_urn[d] for d in urns if d in by_urn]
            for key, urns in source.property_dependencies.items()
        }
    return stack


def run_policies(
    resources: Sequence[PolicyResourceInput],
    *,
    config: Mapping[str, Any] | None = None,
    policies: Sequence[Policy] = POLICIES,
    stack_tags: Mapping[str, str] | None = None,
) -> list[PolicyViolation]:
    """Every violation of the pack's resource policies (per resource) and stack policies.

    `config` is the content of a `--policy-pack-config` file; a config the CLI would refuse
    raises `PolicyConfigError`.
    """
    settings = reconcile_policy_config(policies, config)
    shaped = [_engine_shaped(r.props) for r in resources]
    stack = _stack_resources(resources, shaped)
    tags = dict(stack_tags or {})
    violations: list[PolicyViolation] = []

    for policy in policies:
        level = settings[policy.name].enforcement_level
        if level == EnforcementLevel.DISABLED:
            continue
        # The analyzer hands each policy its config as decoded from protobuf: floats.
        properties = _as_on_the_wire(settings[policy.name].properties)
        if isinstance(policy, ResourceValidationPolicy):
            for source, props in zip(resources, shaped, strict=True):
                args = ResourceValidationArgs(
                    source.type,
                    props,
                    source.urn,
                    source.name,
                    _options(source),
                    source.provider,
                    dict(properties),
                    tags,
                )
                report = _reporter(violations, policy, level, source.urn)
                _validate(policy, args, report, violations, source.urn)
        elif isinstance(policy, StackValidationPolicy):
            args = StackValidationArgs(stack, dict(properties), tags)
            _validate(policy, args, _reporter(violations, policy, level, None), violations, None)
    return violations
