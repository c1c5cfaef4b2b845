"""What an importer prints: the stack file (`Pulumi.<stack>.yaml`) or a Python program of
the same components, and the difference report; all in a stable order."""

from __future__ import annotations

import re
from typing import Any, cast

import yaml
from nodepools.importers.differences import difference_line
from nodepools.importers.model import Difference

CLUSTERS = "nodepools:clusters"
# The public class a cluster entry of each kind is (`nodepools.EksCluster`, ...).
_CLUSTER_CLASSES = {"eks": "EksCluster", "oke": "OkeCluster", "rosa": "RosaCluster"}


class _Dumper(yaml.SafeDumper):
    """Block scalars for text of several lines (user data), as a person writes them."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not re.search(r"[ \t]\n|[^\x20-\x7e\n]", value) else None
    # PyYAML's stubs leave the representer's methods untyped.
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)  # pyright: ignore[reportUnknownMemberType]


_Dumper.add_representer(str, _text)


def stack_yaml(config: dict[str, Any], header: str) -> str:
    """The stack file: a comment saying where it came from, then `config:`."""
    comment = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    body = yaml.dump(
        {"config": config}, Dumper=_Dumper, sort_keys=False, width=100, allow_unicode=True
    )
    return comment + body


def _literal(value: Any, indent: int, width: int = 96) -> str:
    """`value` as Python source: on one line when it fits, else one item per line."""
    flat = repr(value)
    if len(flat) + indent <= width or not isinstance(value, dict | list) or not value:
        return flat
    inner = " " * (indent + 4)
    if isinstance(value, dict):
        items = [
            f"{inner}{key!r}: {_literal(item, indent + 4, width - len(repr(key)) - 2)},"
            for key, item in cast("dict[Any, Any]", value).items()
        ]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{inner}{_literal(item, indent + 4, width)}," for item in cast("list[Any]", value)]
    return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"


def _variable(name: str) -> str:
    variable = re.sub(r"\W", "_", name).strip("_").lower() or "cluster"
    return f"{variable}_cluster" if not variable[0].isalpha() else variable


def python_program(config: dict[str, Any], header: str) -> str:
    """A program making the same components with the public API (`import nodepools`)."""
    lines = [f'"""{header.strip()}\n"""', "", "import nodepools", ""]
    clusters: dict[str, str] = {}
    declared: dict[str, dict[str, Any]] = config.get(CLUSTERS) or {}
    for name, cluster in declared.items():
        variable = clusters[name] = _variable(name)
        fields = dict(cluster)
        lines.append(f"{variable} = nodepools.{_CLUSTER_CLASSES[cluster['kind']]}(")
        lines += [f"    {key}={_literal(value, 4)}," for key, value in fields.items()]
        lines.append(")")
    if clusters:
        lines.append("")
    for section, entries in config.items():
        if section == CLUSTERS:
            continue
        for entry in entries:
            args = {k: v for k, v in entry.items() if k not in ("component", "name")}
            lines.append(f"nodepools.{entry['component']}(")
            lines.append(f"    {entry['name']!r},")
            lines.append("    {")
            for key, value in args.items():
                if key == "cluster" and value in clusters:
                    lines.append(f"        {key!r}: {clusters[value]},")
                else:
                    lines.append(f"        {key!r}: {_literal(value, 8)},")
            lines.append("    },")
            lines.append(")")
    return "\n".join(lines) + "\n"


def report(differences: list[Difference], objects: int, source: str) -> list[str]:
    """The lines for standard error: each difference, then a note on the whole."""
    lines = [difference_line(difference) for difference in differences]
    if differences:
        lines.append(
            f"note: {len(differences)} difference{'s' * (len(differences) != 1)} between the "
            f"{source} objects given and what a plan of this configuration renders (listed "
            "above); the configuration makes the rest as given"
        )
    else:
        lines.append(
            f"note: a plan of this configuration renders the {objects} {source} "
            f"object{'s' * (objects != 1)} given exactly"
        )
    return lines
