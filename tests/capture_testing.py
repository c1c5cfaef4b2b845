"""Helpers over the offline engine's captures: leaks of a secret, and the policy runner's view."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from nodepools.offline import Capture


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


def leaks(capture: Capture, token: str) -> list[str]:
    """Everywhere the token appears in plaintext in what the program registered."""
    found = []
    for resource in capture.resources:
        where = f"{resource.type}::{resource.name}"
        for path in plaintext_paths(resource.inputs, token, secret_paths=resource.secret_paths):
            found.append(f"{where} inputs.{path}")
        for path in plaintext_paths(capture.outputs_of(resource), token):
            found.append(f"{where} outputs.{path}")
        found += [f"{where} options.{p}" for p in plaintext_paths(dict(resource.options), token)]
        # A dynamic resource's pickled provider is a secret, but it must hold no token either.
        provider = resource.inputs.get("__provider")
        if isinstance(provider, str) and token.encode() in base64.b64decode(provider):
            found.append(f"{where} inputs.__provider (decoded)")
    found += [f"stack outputs.{p}" for p in plaintext_paths(capture.stack_outputs, token)]
    found += [f"log {message!r}" for _, message in capture.logs if token in message]
    return found
