"""What governance renderers produce: manifests with a stable role and the spec path they
come from, so a rejected manifest is reported against what the user wrote."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from nodepools.specs.core.base import Issue, SpecError


@dataclass(frozen=True)
class Rendered:
    """One Kubernetes object: `role` names the child (`f"{component}-{role}"`), `origin` is
    the spec path it was rendered from."""

    role: str
    manifest: dict[str, Any]
    origin: str

    @property
    def kind(self) -> str:
        return self.manifest["kind"]

    @property
    def object_name(self) -> str:
        meta = self.manifest["metadata"]
        return f"{meta['namespace']}/{meta['name']}" if "namespace" in meta else meta["name"]


def validate_rendered(subject: str, objects: Iterable[Rendered]) -> None:
    """Raise one SpecError if the offline validator rejects any manifest (Kueue kinds; other
    kinds are not known to it and pass)."""
    from nodepools.validation import validate_manifest

    issues = [
        Issue(
            item.origin,
            f"{item.kind} {item.object_name!r} would be rejected: "
            f"`{violation.path or '<object>'}` {violation.message}",
        )
        for item in objects
        for violation in validate_manifest(item.manifest)
    ]
    if issues:
        raise SpecError(subject, issues)
