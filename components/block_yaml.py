"""Block YAML for small plain documents, exactly as PyYAML's safe dump writes it, fast.

Every pool publishes its scheduling info as YAML text, and PyYAML's representer walks each
value in Python even with the libyaml emitter. The documents are small and plain (mappings
of strings, lists of such mappings, strings and integers), so they are written here
directly; anything this writer is not certain to write exactly as PyYAML would (a string
that needs quotes, a float, a nested list, ...) is handed to PyYAML's safe dump whole
(with libyaml's emitter when PyYAML has it). The test suite checks the two agree on
generated documents.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, cast

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")
# Keys this long can't be YAML simple keys (PyYAML's emitter: `check_simple_key`).
_SIMPLE_KEY_LIMIT = 128


class _NotPlain(Exception):
    """The document holds something only PyYAML writes exactly right."""


@lru_cache(maxsize=4096)
def _written(text: str) -> str | None:
    """How PyYAML writes `text` when it is a plain token: as it is, or single-quoted when an
    implicit YAML type (bool, int, float, null, timestamp) would read it back as something
    else (`'true'`, `'1'`); None for any other string (PyYAML's own choice)."""
    if not _PLAIN.fullmatch(text):
        return None
    import yaml

    # `resolve` reads only the class's resolver tables, so it is called on the class rather
    # than on a dumper built for one lookup (the stubs type `self` as an instance).
    tag = cast(
        "str",
        yaml.SafeDumper.resolve(yaml.SafeDumper, yaml.ScalarNode, text, (True, False)),  # pyright: ignore[reportArgumentType, reportUnknownMemberType]
    )
    # A token of these characters needs no escape, so PyYAML's quoted form is plain quotes.
    return text if tag == "tag:yaml.org,2002:str" else f"'{text}'"


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        written = _written(value)
        if written is not None:
            return written
        raise _NotPlain
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    raise _NotPlain


def _mapping(
    value: dict[Any, Any], indent: str, lines: list[str], first: str | None = None
) -> None:
    # `first` prefixes the first line (a list item's "- "); the rest align under it.
    for index, (key, item) in enumerate(value.items()):
        lead = first if index == 0 and first is not None else indent
        if isinstance(key, str) and len(key) >= _SIMPLE_KEY_LIMIT:
            raise _NotPlain  # PyYAML writes it as a complex key ("? key")
        text = f"{lead}{_scalar(key)}:"
        if isinstance(item, dict) and item:
            lines.append(text)
            _mapping(cast("dict[Any, Any]", item), indent + "  ", lines)
        elif isinstance(item, list) and item:
            lines.append(text)
            _sequence(
                cast("list[Any]", item), indent, lines
            )  # PyYAML does not indent a list under a key
        else:
            lines.append(f"{text} {_empty(item)}")


def _sequence(value: list[Any], indent: str, lines: list[str]) -> None:
    for item in value:
        if isinstance(item, dict) and item:
            _mapping(cast("dict[Any, Any]", item), indent + "  ", lines, first=f"{indent}- ")
        elif isinstance(item, list):
            raise _NotPlain
        else:
            lines.append(f"{indent}- {_empty(item)}")


def _empty(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def dump(document: dict[str, Any]) -> str:
    """PyYAML's safe dump of `document` (block style, keys in order), the same text."""
    lines: list[str] = []
    try:
        if not document:
            raise _NotPlain
        _mapping(document, "", lines)
    except _NotPlain:
        import yaml

        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        return yaml.dump(document, Dumper=dumper, sort_keys=False, default_flow_style=False)
    return "\n".join(lines) + "\n"
