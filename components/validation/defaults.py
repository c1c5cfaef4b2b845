"""Schema defaults, applied the way the API server applies them when it decodes a request.

Ports of apiextensions-apiserver ``pkg/apiserver/schema/defaulting``:

- `prune_nulls` (PruneNonNullableNullsWithoutDefaults): a ``null`` in a field that is
  neither nullable nor defaulted is dropped, as if the field were absent.
- `apply_defaults` (Default): a missing field, or a non-nullable ``null``, with a
  ``default`` gets a copy of it; then every present field is visited, including the
  defaults just inserted, so ``preemption: {}`` grows its own nested defaults.

Defaults are applied before validation and before CEL, so rules read defaulted values
(Kueue's ``flavorFungibility`` rule does).
"""

from __future__ import annotations

from typing import Any

from nodepools.json_values import is_dict, is_list, is_sequence
from nodepools.validation.schema import MISSING, SchemaNode


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data; tuples become lists as they would in JSON."""
    if is_dict(value):
        return {k: copy_json(v) for k, v in value.items()}
    if is_sequence(value):
        return [copy_json(v) for v in value]
    return value


def prune_nulls(node: SchemaNode, value: Any) -> None:
    if is_dict(value):
        for name in [k for k, v in value.items() if v is None]:
            sub = node.child_schema(name)
            if sub is not None and not sub.nullable and sub.default is MISSING:
                del value[name]
        for name, item in value.items():
            if isinstance(item, (dict, list)):
                sub = node.child_schema(name)
                if sub is not None:
                    prune_nulls(sub, item)
    elif is_list(value) and node.items is not None:
        for item in value:
            if isinstance(item, (dict, list)):
                prune_nulls(node.items, item)


def apply_defaults(node: SchemaNode, value: Any) -> None:
    if not node.defaults_below:
        return
    if is_dict(value):
        if node.properties:
            for name, sub in node.properties.items():
                if sub.default is MISSING:
                    continue
                current = value.get(name, MISSING)
                if current is MISSING or (current is None and not sub.nullable):
                    value[name] = copy_json(sub.default)
        for name, item in value.items():
            if isinstance(item, (dict, list)):
                sub = node.child_schema(name)
                if sub is not None:
                    apply_defaults(sub, item)
    elif is_list(value) and node.items is not None:
        for item in value:
            if isinstance(item, (dict, list)):
                apply_defaults(node.items, item)
