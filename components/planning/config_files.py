"""Reading the YAML files a plan starts from (`Pulumi.yaml`, `Pulumi.<stack>.yaml`): every
problem is a `ConfigFileError` naming the file, the line and what is wrong, never a parser's
traceback; a key given twice in one mapping is refused (PyYAML would keep the last one
silently, dropping the other's pools), and where each key is written is kept so that later
checks can name its line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

Location = tuple[str | int, ...]


class ConfigFileError(ValueError):
    """A file the CLI reads is missing, unreadable or malformed: the message starts with
    the file (and line), then what is wrong."""


@dataclass(frozen=True)
class YamlDocument:
    path: Path
    data: Any
    # (key, key, index, ...) of every mapping key and list item -> its line (1-based).
    lines: dict[Location, int] = field(default_factory=dict[Location, int])

    def where(self, *location: str | int) -> str:
        """`path:line` of `location` (its nearest written ancestor), or the path alone."""
        for end in range(len(location), 0, -1):
            line = self.lines.get(location[:end])
            if line is not None:
                return f"{self.path}:{line}"
        return str(self.path)


def read_text(path: Path, what: str = "file") -> str:
    """The text of `path`; a missing or unreadable file is a ConfigFileError."""
    try:
        return path.read_text()
    except FileNotFoundError:
        raise ConfigFileError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise ConfigFileError(f"{path}: is a folder, not a {what}") from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ConfigFileError(f"{path}: can't be read ({exc.strerror})") from None


def load_yaml(path: Path, what: str = "file") -> YamlDocument:
    """The document of the YAML file `path`, with the line of every key."""
    text = read_text(path, what)
    # PyYAML's stubs leave the constructor's and the reader's methods untyped.
    loader: Any = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        lines: dict[Location, int] = {}
        if node is not None:
            _walk(path, node, (), lines)
        data: Any = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        raise ConfigFileError(_yaml_problem(path, exc)) from None
    except yaml.YAMLError as exc:
        raise ConfigFileError(f"{path}: not valid YAML ({exc})") from None
    finally:
        loader.dispose()
    return YamlDocument(path, data, lines)


def _walk(path: Path, node: yaml.Node, location: Location, lines: dict[Location, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if (
                not isinstance(key_node, yaml.ScalarNode)
                or key_node.tag == "tag:yaml.org,2002:merge"
            ):
                continue
            key = key_node.value
            if key in seen:
                raise ConfigFileError(
                    f"{path}:{line}: key {key!r} is given twice (lines {seen[key]} and {line}); "
                    "YAML keeps only the last one, so the first would be ignored: merge them "
                    "or remove one"
                )
            seen[key] = line
            lines[(*location, key)] = line
            _walk(path, value_node, (*location, key), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*location, index)] = item.start_mark.line + 1
            _walk(path, item, (*location, index), lines)


def _yaml_problem(path: Path, exc: yaml.MarkedYAMLError) -> str:
    mark = exc.problem_mark or exc.context_mark
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
    problem = exc.problem or exc.context or "not valid YAML"
    if "'\\t'" in problem or "\t" in problem:
        problem += " (YAML indents with spaces, never tabs)"
    return f"{where}: not valid YAML: {problem}"


def type_name(value: Any) -> str:
    """How a YAML reader calls the kind of `value`."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string"
