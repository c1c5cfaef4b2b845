"""Every spec model class, each spec module imported first."""

from __future__ import annotations

import importlib
import pkgutil


def spec_module_names() -> list[str]:
    import nodepools.specs

    return sorted(
        module.name
        for module in pkgutil.walk_packages(nodepools.specs.__path__, "nodepools.specs.")
        if not module.ispkg
    )


def spec_models() -> list[type]:
    """Every subclass of `SpecModel`, at any depth, sorted by qualified name."""
    from nodepools.specs.core.base import SpecModel

    for name in spec_module_names():
        importlib.import_module(name)
    found: set[type] = set()
    todo: list[type] = [SpecModel]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
