"""Planning an importer's stack configuration offline, as `nodepools plan` runs the stack
program: first the fleet's own validation, entry by entry (an entry it refuses is taken out
and its objects reported as not importable, with the fleet's message), then the program
under the offline engine, whose captured resources the importer compares with its input.
"""

from __future__ import annotations

import re
from typing import Any

from nodepools.fleet.deploy import PROJECT, deploy_fleet, read_stack_config, validate_fleet
from nodepools.importers.model import Imported
from nodepools.offline import Capture, run
from nodepools.specs.core.base import SpecError

_ENTRY = re.compile(rf"^{PROJECT}:(?P<section>\w+)\[(?P<index>\d+)\]")
_ROUNDS = 20  # each round takes out at least one entry; a config has fewer than this many


class NothingImported(ValueError):
    """No entry of the configuration is valid: the message says why; `imported` is what was
    left (its `refused` lists each object and why)."""

    imported: Imported


def fleet_config(config: dict[str, Any]) -> dict[str, Any]:
    """Stack-file keys (`nodepools:pools`) as the fleet reads them (`pools`)."""
    return {key.split(":", 1)[1]: value for key, value in config.items()}


def drop_refused_entries(imported: Imported) -> None:
    """Take out of `imported.config` every entry the fleet refuses, reporting each object it
    stood for as not importable (with the fleet's problems); raises NothingImported when a
    problem is not an entry's or no entry is left."""
    for _ in range(_ROUNDS):
        if not imported.upstream:
            raise NothingImported("no object could be imported")
        try:
            validate_fleet(fleet_config(imported.config))
        except SpecError as exc:
            _drop(imported, exc)
            continue
        return
    raise NothingImported("the fleet kept refusing entries")  # pragma: no cover


def _drop(imported: Imported, error: SpecError) -> None:
    by_entry: dict[tuple[str, int], list[str]] = {}
    for issue in error.issues:
        found = _ENTRY.match(issue.path)
        if found is None:
            raise NothingImported(str(error))
        key = (found["section"], int(found["index"]))
        by_entry.setdefault(key, []).append(
            f"{issue.path[found.end() :].lstrip('.')}: {issue.message}"
        )
    for (section, index), problems in sorted(by_entry.items(), reverse=True):
        entries: list[dict[str, Any]] = imported.config[f"{PROJECT}:{section}"]
        entry = entries.pop(index)
        why = "not importable: " + "; ".join(problems)
        for key in imported.origins.pop(entry["name"], []):
            imported.upstream.pop(key, None)
            imported.refuse(key, "present", why)
        if not entries:
            del imported.config[f"{PROJECT}:{section}"]
    if not any(key != f"{PROJECT}:clusters" for key in imported.config):
        raise NothingImported("no object could be imported")


def _program() -> None:
    deploy_fleet(read_stack_config())


def plan(config: dict[str, Any], stack: str = "imported") -> Capture:
    """The offline run of the stack program on `config` (raises ProgramError)."""
    return run(_program, project=PROJECT, stack=stack, config=config)
