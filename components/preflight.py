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

from nodepools.json_values import is_mapping
from nodepools.specs.core.base import Issue, SpecError

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


def options_issues(opts: Any) -> list[Issue]:
    """What is wrong with a component's `opts`: Pulumi would fail on it deep in registration
    (e.g. a string as `provider` fails with "'str' object has no attribute 'package'")."""
    import pulumi

    if opts is None:
        return []
    if not isinstance(opts, pulumi.ResourceOptions):
        return [Issue("opts", f"{type(opts).__name__} {opts!r} is not a pulumi.ResourceOptions")]
    issues: list[Issue] = []

    def expect(path: str, value: Any, kind: type[Any], what: str) -> None:
        if value is not None and not isinstance(value, kind):
            issues.append(Issue(path, f"{type(value).__name__} {value!r} is not {what}"))

    expect("opts.provider", opts.provider, pulumi.ProviderResource, "a provider resource")
    expect("opts.parent", opts.parent, pulumi.Resource, "a resource")
    providers: Any = opts.providers
    entries: list[tuple[str, Any]] = (
        [(f"opts.providers.{key}", value) for key, value in dict[str, Any](providers).items()]
        if is_mapping(providers)
        else [(f"opts.providers[{i}]", value) for i, value in enumerate(list[Any](providers or []))]
    )
    for path, value in entries:
        expect(path, value, pulumi.ProviderResource, "a provider resource")
    return issues


def checked(component: Any, name: str, args: Any, opts: Any = None) -> Any:
    """`type(component).preflight(name, args)`, or the fleet's result for these very args;
    `opts` checked first, so that a wrong option is an error naming it, before anything is
    registered."""
    cls: Any = component.__class__
    if issues := options_issues(opts):
        raise SpecError(f"{cls.__name__} {name!r}", issues)
    offered = (_OFFERED.get() or {}).get((cls, name, id(args)))
    if offered is not None and offered[0] is args:
        return offered[1]
    return cls.preflight(name, args)
