"""The cloud's refusals of a pool's fields: a field (or a part of a settings model) that
the pool's cloud has no setting for, read from its `ClusterCapabilities.refused` and
`refused_values`, each with why and what to do instead."""

from __future__ import annotations

from typing import Any

from nodepools.specs.clusters.capabilities import ClusterCapabilities, capabilities_for
from nodepools.specs.core.base import Issue
from pydantic import BaseModel


def quoted(value: Any) -> str:
    """`value` as an error quotes it; a settings model as the fields that were given."""
    if isinstance(value, BaseModel):
        return repr(value.model_dump(exclude_unset=True))
    return repr(value)


def _refused(path: str, value: Any, caps: ClusterCapabilities, why: str) -> Issue:
    return Issue(path, f"{quoted(value)} can't be used on {caps.title}: {why}")


def field_refusal(name: str, value: Any, cluster: Any) -> Issue | None:
    """The cloud's refusal of field `name` given as `value` (`ClusterCapabilities.refused`)."""
    caps = capabilities_for(cluster)
    if caps is None or value is None or name not in caps.refused:
        return None
    return _refused(name, value, caps, caps.refused[name])


def part_refusals(name: str, value: Any, cluster: Any) -> list[Issue]:
    """The cloud's refusals of the parts of settings model `value` (field `name`) that it
    has no setting for (`refused` as `name.part`), or whose given value it can't take
    (`refused_values`)."""
    caps = capabilities_for(cluster)
    if caps is None or not isinstance(value, BaseModel):
        return []
    given = value.model_fields_set
    issues: list[Issue] = []
    for path, why in caps.refused.items():
        field, _, part = path.partition(".")
        if field == name and part in given:
            issues.append(_refused(path, getattr(value, part), caps, why))
    for path, (refused, why) in caps.refused_values.items():
        field, _, part = path.partition(".")
        if field == name and part and getattr(value, part, None) == refused:
            issues.append(_refused(path, refused, caps, why))
    return issues


def refusals(name: str, value: Any, cluster: Any) -> list[Issue]:
    """The field's refusal, else its parts' (see `field_refusal`, `part_refusals`)."""
    refusal = field_refusal(name, value, cluster)
    return [refusal] if refusal else part_refusals(name, value, cluster)
