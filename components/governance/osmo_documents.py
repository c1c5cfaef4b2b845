"""OSMO config documents of a PoolPlatforms entry: one per `osmo config update` call.

Each document is what the user gave (nothing added, no defaults filled in), in a canonical
JSON text (keys sorted, two-space indent, a final newline) so that plans and artifacts are
byte-stable whatever the key order of the input:

- `POD_TEMPLATE/<name>`: `{name: template}`, the file `osmo config update POD_TEMPLATE
  --file` takes (applied with PUT /api/configs/pod_template, `configs`);
- `RESOURCE_VALIDATION/<name>`: `{name: [rules]}` (PUT /api/configs/resource_validation,
  `configs_dict`);
- `POOL/<name>`: the pool document (PUT /api/configs/pool/<name>, `configs`);
- `ROLE/<name>`: the role document (PUT /api/configs/role/<name>, `configs`), in OSMO's
  current form: legacy `actions` translated into `policies` (`translation` says how).

Pod templates and resource validations come first: OSMO resolves a pool's references when
the pool is written, so they must exist by then.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from nodepools.specs.governance.osmo_platforms import OsmoPlatformsArgs

ORDER = ("POD_TEMPLATE", "RESOURCE_VALIDATION", "POOL", "ROLE")


def canonical_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class OsmoDocument:
    """One OSMO config: its type (`POD_TEMPLATE`, ...), name and JSON document."""

    config_type: str
    name: str
    document: Any
    translation: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return canonical_json(self.document)

    @property
    def path(self) -> str:
        """Where `plan --out` writes it: `osmo/<TYPE>/<name>.json`."""
        return f"osmo/{self.config_type}/{self.name}.json"

    def depends_on_types(self) -> tuple[str, ...]:
        return ("POD_TEMPLATE", "RESOURCE_VALIDATION") if self.config_type == "POOL" else ()


def osmo_documents(args: OsmoPlatformsArgs) -> list[OsmoDocument]:
    """Every document of the entry, in the order they must be applied."""
    roles = {role.name: tuple(role.translation()) for role in args.roles}
    return [
        OsmoDocument(
            config_type,
            name,
            json.loads(canonical_json(document)),
            roles.get(name, ()) if config_type == "ROLE" else (),
        )
        for config_type, name, document, _path in args.documents()
    ]


__all__ = ["ORDER", "OsmoDocument", "canonical_json", "osmo_documents"]
