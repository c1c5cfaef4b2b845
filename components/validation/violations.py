"""What a rejected manifest looks like: `Violation`, `ManifestInvalid` and their wording.

Messages follow the API server's field errors (``Invalid value: ...``, ``Required
value``, ``Unsupported value: ...``) without repeating the path, which the violation
carries on its own, so a reader who knows ``kubectl apply`` output recognises them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# Errors of these kinds stop the API server from evaluating CEL rules (apiextensions
# strategy.go, hasBlockingErr): the object does not have the shape the rules expect.
BLOCKING = frozenset({"required", "unsupported", "too_long", "too_many", "type"})

CEL_SKIPPED_MESSAGE = (
    "some validation rules were not checked because the object was invalid; "
    "correct the existing errors to complete validation"
)


@dataclass(frozen=True, slots=True)
class Violation:
    """One reason the API server (or an admission webhook) would reject a manifest.

    ``path`` is dotted with ``[i]`` list indices and ``[key]`` map keys, e.g.
    ``spec.template.spec.requirements[0].key``; ``""`` means the whole object.
    ``rule`` is the CEL expression (or the webhook check) that failed, ``None`` for
    structural schema errors.
    """

    kind: str
    name: str
    path: str
    message: str
    rule: str | None = None

    def __str__(self) -> str:
        where = f"{self.kind}/{self.name}" if self.name else self.kind
        return f"{where} {self.path or '<object>'}: {self.message}"


class ManifestInvalid(Exception):
    """Raised by `validate_or_raise`; ``violations`` lists every problem found."""

    def __init__(self, violations: Iterable[Violation]):
        self.violations: tuple[Violation, ...] = tuple(violations)
        super().__init__(self.violations)

    def __str__(self) -> str:
        count = len(self.violations)
        lines = [f"{count} manifest violation{'s' if count != 1 else ''}:"]
        lines.extend(f"  - {violation}" for violation in self.violations)
        return "\n".join(lines)


def quote(value: Any) -> str:
    """A value as the API server prints it in an error: JSON, strings double-quoted."""
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return repr(value)


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, name: Any) -> str:
    return f"{path}[{name}]"


class Collector:
    """Violations of one manifest, with the error kinds that decide about CEL."""

    __slots__ = ("blocking", "kind", "name", "violations")

    def __init__(self, kind: str, name: str):
        self.kind = kind
        self.name = name
        self.violations: list[Violation] = []
        self.blocking = False

    def add(self, error_kind: str, path: str, message: str, rule: str | None = None) -> None:
        if error_kind in BLOCKING:
            self.blocking = True
        self.violations.append(Violation(self.kind, self.name, path, message, rule))

    # The helpers below word each error kind like apimachinery's field.Error does.
    def invalid(self, path: str, value: Any, detail: str, rule: str | None = None) -> None:
        self.add("invalid", path, f"Invalid value: {quote(value)}: {detail}", rule)

    def required(self, path: str, detail: str = "") -> None:
        self.add("required", path, f"Required value: {detail}" if detail else "Required value")

    def forbidden(self, path: str, detail: str) -> None:
        self.add("forbidden", path, f"Forbidden: {detail}")

    def unsupported(
        self, path: str, value: Any, supported: Iterable[Any], rule: str | None = None
    ) -> None:
        choices = ", ".join(quote(v) for v in supported)
        message = f"Unsupported value: {quote(value)}: supported values: {choices}"
        self.add("unsupported", path, message, rule)

    def duplicate(self, path: str, value: Any, detail: str = "", rule: str | None = None) -> None:
        suffix = f": {detail}" if detail else ""
        self.add("duplicate", path, f"Duplicate value: {quote(value)}{suffix}", rule)

    def type_invalid(self, path: str, value: Any, expected: str) -> None:
        self.add("type", path, f"Invalid value: {quote(value)}: must be of type {expected}")

    def too_long(self, path: str, value: Any, limit: int) -> None:
        self.add("too_long", path, f"Too long: {quote(value)}: may not be more than {limit} bytes")

    def too_many(self, path: str, actual: int, limit: int, what: str = "items") -> None:
        self.add("too_many", path, f"Too many: {actual}: must have at most {limit} {what}")

    def unknown_field(self, path: str) -> None:
        # Not an API error: the server prunes the field silently. Reported because a
        # silently dropped field is almost always a typo or a wrong nesting level.
        self.add(
            "unknown",
            path,
            "unknown field: not declared by the CRD schema (the API server would silently drop it)",
        )
