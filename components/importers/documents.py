"""Reading the files an importer is given: YAML (several documents per file, `kind: List`
flattened) or JSON; a file that is missing, not YAML/JSON, or holds an object of a kind the
importer does not take is one line naming the file, the document and what is wrong."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import yaml
from nodepools.json_values import is_dict, is_list
from nodepools.planning.config_files import ConfigFileError, read_text


class InputError(ValueError):
    """A file can't be imported: the message is one line, file first."""


@dataclass(frozen=True)
class Document:
    """One object read from a file: where it came from and its content."""

    source: str
    index: int
    data: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.source}: document {self.index + 1}"


def _text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return read_text(Path(path))
    except ConfigFileError as exc:
        raise InputError(str(exc)) from None


def read_yaml(paths: list[str], kinds: tuple[str, ...]) -> list[Document]:
    """Every object of the YAML files, each of one of `kinds`."""
    documents: list[Document] = []
    for path in paths:
        text = _text(path)
        try:
            loaded: list[Any] = list(yaml.safe_load_all(text))
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            where = f"{path}:{mark.line + 1}" if mark is not None else path
            raise InputError(f"{where}: not valid YAML: {exc.problem or exc.context}") from None
        except yaml.YAMLError as exc:
            raise InputError(f"{path}: not valid YAML ({exc})") from None
        documents += _objects(path, [item for item in loaded if item is not None], kinds)
    seen: dict[tuple[str, str | None, str], str] = {}
    for document in documents:
        metadata = document.data["metadata"]
        key = (document.data["kind"], metadata.get("namespace"), metadata["name"])
        if key in seen:
            raise InputError(
                f"{document.where}: {key[0]} {key[2]!r} is given twice (also {seen[key]}); keep one"
            )
        seen[key] = document.where
    return documents


def _objects(path: str, items: list[Any], kinds: tuple[str, ...]) -> list[Document]:
    found: list[Document] = []
    for index, item in enumerate(items):
        if is_dict(item) and item.get("kind") == "List" and is_list(item.get("items")):
            items_of = cast("list[Any]", item["items"])
            found += [
                Document(path, index, _checked(path, index, inner, kinds)) for inner in items_of
            ]
            continue
        found.append(Document(path, index, _checked(path, index, item, kinds)))
    return found


def _checked(path: str, index: int, item: Any, kinds: tuple[str, ...]) -> dict[str, Any]:
    where = f"{path}: document {index + 1}"
    if not is_dict(item):
        raise InputError(
            f"{where}: not a Kubernetes object (got {type(item).__name__} {item!r:.60})"
        )
    kind = item.get("kind")
    if kind not in kinds:
        raise InputError(
            f"{where}: kind {kind!r} can't be imported here (kinds: {', '.join(kinds)})"
        )
    name = item.get("metadata", {}).get("name") if is_dict(item.get("metadata")) else None
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: {kind} has no `metadata.name`")
    return item


def read_json(paths: list[str]) -> list[tuple[str, Any]]:
    """(file, parsed JSON) of each file; `-` reads standard input."""
    found: list[tuple[str, Any]] = []
    for path in paths:
        text = _text(path)
        try:
            found.append((path, json.loads(text)))
        except json.JSONDecodeError as exc:
            name = "standard input" if path == "-" else path
            raise InputError(f"{name}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    return found
