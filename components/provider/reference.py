"""`docs/reference.md`: every component's args and outputs, generated from the specs.

    python -m nodepools.provider.reference                        # print it
    python -m nodepools.provider.reference -o docs/reference.md   # rewrite the repository's
    python -m nodepools.provider.reference --check                # exit 1 when that is stale

Each field: its name, type, default, constraints (from the spec's annotations) and its
description; nested models get their own tables. The same walk feeds the package schema
(`schema_types`), so the reference, the Python API and the other languages agree.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import typing
from pathlib import Path
from typing import Any

import annotated_types
from nodepools.specs.core.field_docs import default_text, type_label
from pydantic import BaseModel

# The repository's copy (what its tests compare), and what `--check` compares by default:
# the one of the clone the command runs in.
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "reference.md"
CHECKED_PATH = Path("docs") / "reference.md"

_CONSTRAINTS = {
    annotated_types.Ge: ">= {0.ge}",
    annotated_types.Gt: "> {0.gt}",
    annotated_types.Le: "<= {0.le}",
    annotated_types.Lt: "< {0.lt}",
    annotated_types.MinLen: "at least {0.min_length} long",
    annotated_types.MaxLen: "at most {0.max_length} long",
}


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found.append(annotation)
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    return found


def _constraints(info: Any) -> str:
    parts: list[str] = []
    for item in info.metadata:
        kind: type[Any] = item.__class__
        template = _CONSTRAINTS.get(kind)
        if template:
            parts.append(template.format(item))
    return ", ".join(parts)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _model_table(model: type[BaseModel]) -> list[str]:
    lines = [
        "| field | type | default | constraints | description |",
        "|---|---|---|---|---|",
    ]
    for name, info in model.model_fields.items():
        lines.append(
            "| "
            + " | ".join(
                [
                    f"`{info.alias or name}`",
                    _cell(f"`{type_label(info.annotation)}`"),
                    _cell(default_text(info)),
                    _cell(_constraints(info)),
                    _cell(info.description or ""),
                ]
            )
            + " |"
        )
    return lines


def render() -> str:
    from nodepools.provider.host import component_kinds, component_outputs

    lines = [
        "# Reference",
        "",
        "Generated from the specs by `python -m nodepools.provider.reference`; do not edit.",
        "Field names are the Python (and stack config) spelling; the other languages of the",
        "package (`provider/`) take them in camelCase. A dict with the same keys is accepted",
        "wherever an args model is.",
        "",
    ]
    nested: dict[str, type[BaseModel]] = {}
    for component, args_model in component_kinds():
        lines += [f"## {component.__name__}", ""]
        doc = (component.__doc__ or "").strip().split("\n\n")[0]
        lines += [" ".join(doc.split()), ""]
        lines += [
            f"Type token `nodepools:index:{component.__name__}`; args `{args_model.__name__}`.",
            "",
            f"### {args_model.__name__}",
            "",
        ]
        lines += _model_table(args_model)
        lines += ["", "Outputs:", ""]
        for name, annotation in component_outputs(component).items():
            (inner,) = typing.get_args(annotation)
            lines.append(f"- `{name}`: `{type_label(inner, 'any')}`")
        lines.append("")
        for info in args_model.model_fields.values():
            for model in _models_in(info.annotation):
                nested.setdefault(model.__name__, model)
    done: set[str] = set()
    queue = sorted(nested)
    lines += ["## Types used by the args", ""]
    while queue:
        name = queue.pop(0)
        if name in done:
            continue
        done.add(name)
        model = nested[name]
        lines += [f"### {name}", ""]
        doc = (model.__doc__ or "").strip().split("\n\n")[0]
        if doc:
            lines += [" ".join(doc.split()), ""]
        lines += _model_table(model)
        lines.append("")
        for info in model.model_fields.values():
            for inner in _models_in(info.annotation):
                if inner.__name__ not in done:
                    nested.setdefault(inner.__name__, inner)
                    queue.append(inner.__name__)
        queue.sort()
    lines += _other_public_names()
    return "\n".join(lines).rstrip() + "\n"


# Public names that are neither components nor models: their docstrings and public methods.
_OTHER_PUBLIC = ("PoolComponent", "SchedulingInfo", "SpecError", "lookup_accelerator")


def _summary(obj: Any) -> str:
    return " ".join((inspect.getdoc(obj) or "").split("\n\n")[0].split())


def _other_public_names() -> list[str]:
    import nodepools

    lines = ["## Other public names", ""]
    for name in _OTHER_PUBLIC:
        obj = getattr(nodepools, name)
        lines += [f"### {name}", ""]
        if inspect.isclass(obj):
            lines += [f"`nodepools.{name}`: {_summary(obj)}", ""]
            methods = [
                (attr, func)
                for attr, value in vars(obj).items()
                if (func := _function(obj, attr, value))
            ]
            for attr, func in methods:
                summary = _summary(func)
                lines.append(f"- `{attr}{_signature(func)}`" + (f": {summary}" if summary else ""))
            if methods:
                lines.append("")
        else:
            lines += [f"`nodepools.{name}{_signature(obj)}`: {_summary(obj)}", ""]
    return lines


def _function(owner: type, attr: str, value: object) -> Any:
    """The public method `attr` of `owner` (a classmethod bound: its signature has no `cls`)."""
    if attr.startswith("_"):
        return None
    if isinstance(value, classmethod | staticmethod) or inspect.isfunction(value):
        return getattr(owner, attr)
    return None


def _signature(func: Any) -> str:
    """`(name: type = default, ...) -> type`, annotations as written (no quotes), no self/cls."""
    signature = inspect.signature(func)
    parts: list[str] = []
    star = False
    for param in signature.parameters.values():
        if param.name in ("self", "cls"):
            continue
        if param.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = param.name
        if param.annotation is not inspect.Parameter.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not inspect.Parameter.empty:
            text += f" = {param.default!r}"
        parts.append(text)
    returns = signature.return_annotation
    tail = "" if returns is inspect.Signature.empty else f" -> {_annotation(returns)}"
    return f"({', '.join(parts)}){tail}"


def _annotation(annotation: Any) -> str:
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nodepools.provider.reference",
        description="Print the reference of every component's args and outputs (Markdown).",
    )
    parser.add_argument(
        "-o",
        "--output",
        "--path",
        dest="path",
        type=Path,
        help="write it to this file instead of standard output (in a clone of the "
        "repository: docs/reference.md); with --check, the file to compare",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 when the file (default {CHECKED_PATH}) differs from what would be written",
    )
    options = parser.parse_args(argv)
    text = render()
    if options.check:
        path: Path = options.path or CHECKED_PATH
        current = path.read_text() if path.is_file() else ""
        if current != text:
            print(f"{path} is stale: run python -m nodepools.provider.reference -o {path}")
            return 1
        return 0
    if options.path is None:
        # Never into the installed package: a wheel's site-packages is nobody's docs folder.
        sys.stdout.write(text)
        return 0
    options.path.parent.mkdir(parents=True, exist_ok=True)
    options.path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
