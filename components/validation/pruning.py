"""Unknown fields: removed like the API server prunes them, and reported.

The API server drops every field the structural schema does not declare (unless a
node has ``x-kubernetes-preserve-unknown-fields``) and answers 201 without a word.
For a library that generates manifests, a dropped field is a bug (a typo, a field at
the wrong level, a field from another API version), so each one is reported as a
`Violation`. The report does not count as an API rejection: CEL rules and webhook
checks still run, on the pruned object the server would have stored.
"""

from __future__ import annotations

from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.validation.schema import SchemaNode
from nodepools.validation.violations import Collector, child, index, key


def prune_unknown(node: SchemaNode, value: Any, path: str, out: Collector) -> None:
    if is_dict(value):
        if node.type not in (None, "object"):
            return
        declared = node.properties
        for name in list(value):
            sub = declared.get(name) if declared is not None else None
            where = child(path, name)
            if sub is None and node.additional is not None:
                sub, where = node.additional, key(path, name)
            if sub is None:
                if node.preserve_unknown or node.additional_any:
                    continue
                del value[name]
                out.unknown_field(child(path, str(name)))
            elif isinstance(value[name], (dict, list)):
                prune_unknown(sub, value[name], where, out)
    elif is_list(value) and node.items is not None and node.type in (None, "array"):
        for i, item in enumerate(value):
            if isinstance(item, (dict, list)):
                prune_unknown(node.items, item, index(path, i), out)
