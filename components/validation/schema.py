"""The structural schema of one kind, compiled once into a tree of `SchemaNode`.

The packaged facts (data/*.json) are plain OpenAPI v3 as the CRD declares it. Walking
dicts of keywords for every manifest would be slow, so each node's keywords become
attributes, patterns are compiled (Go RE2 semantics, see regex.py), and each node
knows whether anything below it has a default or a CEL rule, so the walkers skip
subtrees with nothing to do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from nodepools.json_values import is_dict
from nodepools.validation import regex

MISSING = object()


class SchemaNode:
    """One schema node: the keywords the API server validates and defaults with."""

    __slots__ = (
        "additional",
        "additional_any",
        "default",
        "defaults_below",
        "enum",
        "enum_strings",
        "exclusive_maximum",
        "exclusive_minimum",
        "format",
        "int_or_string",
        "items",
        "list_map_keys",
        "list_type",
        "max_items",
        "max_length",
        "max_properties",
        "maximum",
        "min_items",
        "min_length",
        "min_properties",
        "minimum",
        "nullable",
        "pattern",
        "pattern_re",
        "preserve_unknown",
        "properties",
        "raw_rules",
        "required",
        "rule_properties",
        "rules",
        "rules_below",
        "type",
    )

    def __init__(self, facts: dict[str, Any], where: str):
        self.type: str | None = facts.get("type")
        self.int_or_string: bool = bool(facts.get("x-kubernetes-int-or-string"))
        self.nullable: bool = bool(facts.get("nullable"))
        self.preserve_unknown: bool = bool(facts.get("x-kubernetes-preserve-unknown-fields"))
        self.default: Any = facts.get("default", MISSING)

        props = facts.get("properties")
        self.properties: dict[str, SchemaNode] | None = (
            {name: SchemaNode(sub, f"{where}.{name}") for name, sub in sorted(props.items())}
            if props is not None
            else None
        )
        additional = facts.get("additionalProperties")
        self.additional: SchemaNode | None = (
            SchemaNode(additional, f"{where}{{}}") if is_dict(additional) else None
        )
        # `additionalProperties: true`: any extra key is allowed and kept.
        self.additional_any: bool = additional is True
        self.items: SchemaNode | None = (
            SchemaNode(facts["items"], f"{where}[]") if "items" in facts else None
        )

        self.required: tuple[str, ...] = tuple(facts.get("required", ()))
        enum = facts.get("enum")
        self.enum: tuple[Any, ...] | None = tuple(enum) if enum is not None else None
        self.enum_strings: frozenset[str] | None = (
            frozenset(enum) if enum is not None and all(isinstance(e, str) for e in enum) else None
        )
        self.pattern: str | None = facts.get("pattern")
        self.pattern_re = regex.compile_re2(self.pattern) if self.pattern is not None else None
        self.format: str | None = facts.get("format")
        self.minimum = facts.get("minimum")
        self.maximum = facts.get("maximum")
        self.exclusive_minimum: bool = bool(facts.get("exclusiveMinimum"))
        self.exclusive_maximum: bool = bool(facts.get("exclusiveMaximum"))
        self.min_length: int | None = facts.get("minLength")
        self.max_length: int | None = facts.get("maxLength")
        self.min_items: int | None = facts.get("minItems")
        self.max_items: int | None = facts.get("maxItems")
        self.min_properties: int | None = facts.get("minProperties")
        self.max_properties: int | None = facts.get("maxProperties")
        self.list_type: str | None = facts.get("x-kubernetes-list-type")
        self.list_map_keys: tuple[str, ...] = tuple(facts.get("x-kubernetes-list-map-keys", ()))

        self.raw_rules: tuple[dict[str, Any], ...] = tuple(
            facts.get("x-kubernetes-validations", ())
        )
        # Filled by cel.compile_schema_rules when the kind is first used.
        self.rules: tuple[Any, ...] = ()

        children = list(self.children())
        self.defaults_below: bool = any(
            c.default is not MISSING or c.defaults_below for c in children
        )
        self.rules_below: bool = any(c.raw_rules or c.rules_below for c in children)
        self.rule_properties: tuple[tuple[str, SchemaNode], ...] = tuple(
            (name, sub)
            for name, sub in (self.properties or {}).items()
            if sub.raw_rules or sub.rules_below
        )

    def children(self) -> Iterator[SchemaNode]:
        if self.properties:
            yield from self.properties.values()
        if self.additional is not None:
            yield self.additional
        if self.items is not None:
            yield self.items

    def child_schema(self, name: str) -> SchemaNode | None:
        """The schema of field ``name`` of an object, or None if it is not declared."""
        if self.properties is not None:
            sub = self.properties.get(name)
            if sub is not None:
                return sub
        return self.additional

    def walk(self) -> Iterator[SchemaNode]:
        yield self
        for sub in self.children():
            yield from sub.walk()


def compile_schema(facts: dict[str, Any], kind: str) -> SchemaNode:
    return SchemaNode(facts, kind)
