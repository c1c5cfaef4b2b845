"""Outputs of values a component already knows when it is constructed."""

from __future__ import annotations

from typing import Any, cast

import pulumi

_PLAIN_SCALARS = (str, int, float, bool, type(None))


def _is_plain(value: Any) -> bool:
    if isinstance(value, _PLAIN_SCALARS):
        return True
    if isinstance(value, dict):
        mapping = cast("dict[Any, Any]", value)
        return all(_is_plain(key) and _is_plain(item) for key, item in mapping.items())
    if isinstance(value, list | tuple):
        return all(_is_plain(item) for item in cast("list[Any] | tuple[Any, ...]", value))
    return False


def known_output(value: Any) -> pulumi.Output[Any]:
    """`Output.from_input(value)`, without its cost when `value` is plain data.

    `from_input` walks dicts and lists and makes an Output, each with its own asyncio task,
    of every key and element, to find Outputs to wait for. Plain data (scheduling info,
    rendered manifests, summaries) has none, so it skips that walk; a value with an Output
    (or anything else) inside still goes through `from_input`.
    """
    if not _is_plain(value):
        return pulumi.Output.from_input(value)
    return pulumi.Output.from_input(None).apply(lambda _: value)


def plain_output(value: Any) -> pulumi.Output[Any]:
    """`known_output(value)` for a value already known to be plain data, without the walk
    that checks it: what this package builds itself from validated, plain fields
    (`SchedulingInfo.to_dict()`), or what a walk made anyway has found plain (rendered
    Karpenter manifests, copied once for validation). Never for a user's value."""
    return pulumi.Output.from_input(None).apply(lambda _: value)
