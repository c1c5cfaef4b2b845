"""Helpers every dynamic provider of ours needs: unknown values in preview, secrets the
engine may pass wrapped, and serializing a provider without breaking the pickler."""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Generator
from typing import Any

from nodepools.json_values import is_dict, is_list, is_sequence
from pulumi.runtime import rpc


def is_unknown(value: Any) -> bool:
    return isinstance(value, str) and value == rpc.UNKNOWN


def has_unknown(value: Any) -> bool:
    if is_unknown(value):
        return True
    if is_dict(value):
        return any(has_unknown(item) for item in value.values())
    if is_list(value):
        return any(has_unknown(item) for item in value)
    return False


def whole_numbers(value: Any) -> Any:
    """The engine sends every number as a float; give 4.0 back as 4 (to a service, in
    reports and artifacts)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if is_dict(value):
        return {key: whole_numbers(item) for key, item in value.items()}
    if is_sequence(value):
        return [whole_numbers(item) for item in value]
    return value


def unwrap_secret(value: Any) -> Any:
    # Dynamic providers get secrets as plain values today; should the engine ever pass the
    # wrapped form, take the value out rather than mistake the wrapper for a token.
    return rpc.unwrap_rpc_secret(value) if rpc.is_rpc_secret(value) else value


@contextlib.contextmanager
def pickler_left_as_found() -> Generator[None, None, None]:
    """Undo the SDK's patch of the pure-Python pickler once it has serialized our provider.

    To pickle deterministically, `pulumi.dynamic`'s `serialize_provider` replaces
    `pickle._Pickler._batch_setitems` with a sorting wrapper of whatever is there, and
    never puts it back: every dynamic resource wraps the wrapper once more, so each
    serialization gets slower and, after about 500 in one process, raises RecursionError
    (a stack of 600 ROSA pools could not be planned or deployed). Restored, every
    serialization wraps the original once and sorts exactly as before.
    """
    # The pure-Python pickler and its methods are private to the stdlib (and not in its stubs).
    pickler: Any = pickle._Pickler  # pyright: ignore[reportPrivateUsage]
    batch_setitems = pickler._batch_setitems
    save_dict = pickler.save_dict
    try:
        yield
    finally:
        pickler._batch_setitems = batch_setitems
        pickler.save_dict = save_dict


__all__ = [
    "has_unknown",
    "is_unknown",
    "pickler_left_as_found",
    "unwrap_secret",
    "whole_numbers",
]
