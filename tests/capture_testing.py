"""Helpers over the offline engine's captures: leaks of a secret, and the policy runner's view."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from components.offline import Capture
from policies.runner import PolicyResourceInput


def plaintext_paths(
    value: Any, secret: str, *, secret_paths: tuple[str, ...] = (), path: str = ""
) -> Iterator[str]:
    """Every path in `value` where `secret` appears outside the given secret paths.

    Keys are searched as well as values: a token used as a map key leaks just the same.
    """
    if path in secret_paths:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if secret in str(key):
                yield f"{child} (key)"
            yield from plaintext_paths(item, secret, secret_paths=secret_paths, path=child)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from plaintext_paths(
                item, secret, secret_paths=secret_paths, path=f"{path}[{index}]"
            )
    elif isinstance(value, str | bytes) and (
        secret in value if isinstance(value, str) else secret.encode() in value
    ):
        yield path or "<root>"


def policy_inputs(capture: Capture) -> list[PolicyResourceInput]:
    """The captured registrations as the policy runner takes them."""
    return [
        PolicyResourceInput(
            urn=r.urn,
            type=r.type,
            name=r.name,
            props=r.inputs,
            parent=r.parent,
            dependencies=r.dependencies,
            property_dependencies=r.property_dependencies,
        )
        for r in capture.resources
    ]
