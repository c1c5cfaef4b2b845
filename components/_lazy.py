"""Imports on first use: module attributes (PEP 562) for the packages' public re-exports,
and functions for callers that need them only for some inputs (`deferred`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: dict[str, str], public: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: each name in `exports` (name -> relative
    module) is imported when first read, then kept as a plain module attribute."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value  # later lookups are plain module attributes
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *public})

    return __getattr__, __dir__


def deferred(module: str, name: str) -> Callable[..., Any]:
    """The function `name` of `module`, imported when first called. For code that needs it
    only for some inputs: importing a spec module builds its models, which a stack without
    such entries (recipes, governance, Karpenter pools) should not pay for."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__qualname__ = call.__name__ = name
    return call
