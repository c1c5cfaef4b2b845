"""Component docstrings that list their args and outputs, written from the specs.

`help(MachinePool)` (and the multi-language schema's descriptions) then show every field
with its type and default, and every output, from the one place they are defined.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import TypeVar

from nodepools.specs.core.field_docs import default_text, type_label
from pydantic import BaseModel

C = TypeVar("C", bound=type)

_OUTPUT = re.compile(r"^(?:pulumi\.)?Output\[(?P<inner>.*)\]$")


def output_annotations(component: type) -> dict[str, str]:
    """Public `Output[...]` attributes of a component and its bases, as written (no eval)."""
    found: dict[str, str] = {}
    for cls in reversed(component.__mro__):
        if not cls.__module__.startswith("nodepools"):
            continue
        for name, annotation in inspect.get_annotations(cls).items():
            text = annotation if isinstance(annotation, str) else repr(annotation)
            match = _OUTPUT.match(text.replace("pulumi.output.", ""))
            if match and not name.startswith("_"):
                found[name] = match.group("inner")
    return found


def documented(args_model: type[BaseModel]) -> Callable[[C], C]:
    """Class decorator: append `Args` and `Outputs` sections to the component's docstring."""

    def decorate(component: C) -> C:
        lines = [
            inspect.cleandoc(component.__doc__ or ""),
            "",
            f"Args ({args_model.__name__} or a dict):",
        ]
        for name, info in args_model.model_fields.items():
            summary = " ".join((info.description or "").split())
            lines.append(
                f"    {name} ({type_label(info.annotation)}; {default_text(info)}): {summary}"
            )
        lines += ["", "Outputs:"]
        for name, inner in output_annotations(component).items():
            lines.append(f"    {name} (Output[{inner}])")
        component.__doc__ = "\n".join(lines) + "\n"
        return component

    return decorate
