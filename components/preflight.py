"""A fleet checks every entry before it builds any: its constructors reuse those checks.

`deploy_fleet` runs each component's `preflight` on every entry first, so that a bad entry
stops the stack before anything is registered; then it constructs the components with the
same args objects. Without this, each constructor would repeat the very same parsing,
resolving and manifest validation on the very same objects. While the fleet builds, the
results are offered here, keyed by component class, name and the identity of the args
object (which the fleet keeps alive, so the identity can't be reused). Outside
`offer_preflights` (a library user constructing a component) nothing is remembered, and
nothing outlives the fleet's build: a second stack never sees the first one's results.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_Key = tuple[type[Any], str, int]
_OFFERED: ContextVar[Mapping[_Key, tuple[Any, Any]] | None] = ContextVar(
    "nodepools_preflights", default=None
)


@contextmanager
def offer_preflights(
    results: Mapping[tuple[type[Any], str], tuple[Any, Any]],
) -> Generator[None, None, None]:
    """While the block runs, `checked` returns these results: {(class, name): (args, result)}."""
    token = _OFFERED.set(
        {(cls, name, id(args)): (args, result) for (cls, name), (args, result) in results.items()}
    )
    try:
        yield
    finally:
        _OFFERED.reset(token)


def checked(component: Any, name: str, args: Any) -> Any:
    """`type(component).preflight(name, args)`, or the fleet's result for these very args."""
    cls: Any = component.__class__
    offered = (_OFFERED.get() or {}).get((cls, name, id(args)))
    if offered is not None and offered[0] is args:
        return offered[1]
    return cls.preflight(name, args)
