"""CEL rules (``x-kubernetes-validations``) compiled and evaluated with a real CEL runtime.

Runtime: ``cel-expr-python`` (Google's CEL C++ implementation with Python bindings), of
the CEL runtimes on PyPI the fastest and the most faithful to the API server: its
``matches`` uses RE2 (the Rust runtime's regex crate makes ``\\d`` match any Unicode
digit, Go does not), evaluation errors ("no such key", a failed ``int()``) come back as
CEL error values with CEL's own wording instead of Python exceptions, and its strings
extension is the reference implementation of ``split``, ``lowerAscii`` and friends that
Kubernetes enables. It is imported only when the first manifest of a known kind is
validated.

The Kubernetes-only regex library is supplied as member functions:
``<string>.find(<regex>)`` (the leftmost match or ``""``) and
``<string>.findAll(<regex>[, <limit>])``, with Go RE2 semantics (regex.py). The
rules of the covered CRDs use nothing else outside standard CEL and the strings
extension (``matches``, ``startsWith``, ``endsWith``, ``split``, ``size``, ``has``,
``all``, ``exists``, ``filter``, ``int``); a rule that needs more fails to compile,
and the compile-all test catches it when the facts are regenerated.

``self`` is bound to the value at the node that declares the rule (each list item or
map value for rules under ``items``/``additionalProperties``), typed ``dyn`` where the
API server types it from the schema. The results agree because, as in the API server,
CEL only runs once the structural schema found no type, required, enum or size error,
so every value already has its schema type (integral floats made ``int``). Rules
that mention ``oldSelf`` are transition rules: skipped on create, evaluated against
the correlated old value on update. As in the API server, a rule whose evaluation
fails (``no such key``, ``cannot convert string to int``...) rejects the object, and
the message says which rule. Cost limits are not enforced: the API server accepted
these CRDs, and manifests of this size are far below the runtime budget.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.validation import regex
from nodepools.validation.schema import MISSING, SchemaNode
from nodepools.validation.violations import Collector, child, index, key

_env: Any = None
_ENV_LOCK = threading.Lock()

# fieldPath is a JSONPath-like suffix: .name, ['name'] or [0].
FIELD_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]")
STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
REASON_PREFIX = {
    "FieldValueRequired": "Required value: ",
    "FieldValueForbidden": "Forbidden: ",
    "FieldValueDuplicate": "Duplicate value: ",
}


class CelCompileError(ValueError):
    """A rule of the packaged facts does not compile (a CRD uses an unsupported function)."""


@dataclass(frozen=True, slots=True)
class Rule:
    source: str
    message: str | None
    message_expression: Any
    field_path: str
    reason: str | None
    program: Any
    transition: bool

    @property
    def description(self) -> str:
        """How the API server names a rule in errors (ruleErrorString)."""
        return (self.message or "").strip() or self.source.strip()


def regex_find(text: str, pattern: str) -> str:
    return regex.find(pattern, text)


def regex_find_all(text: str, pattern: str) -> list[str]:
    return regex.find_all(pattern, text)


def regex_find_all_limit(text: str, pattern: str, limit: int) -> list[str]:
    return regex.find_all(pattern, text, limit)


def environment() -> Any:
    """The shared CEL environment, created on first use."""
    global _env
    if _env is None:
        with _ENV_LOCK:
            if _env is None:
                # cel-expr-python ships no type information (no stubs, no py.typed).
                from cel_expr_python import cel  # pyright: ignore[reportMissingTypeStubs]
                from cel_expr_python.ext import ext_strings  # pyright: ignore[reportMissingTypeStubs]

                string, integer = cel.Type.STRING, cel.Type.INT
                strings = cel.Type.List(string)
                functions = [
                    cel.FunctionDecl(
                        "find",
                        [
                            cel.Overload(
                                "string_find_string",
                                string,
                                [string, string],
                                is_member=True,
                                impl=regex_find,
                            )
                        ],
                    ),
                    cel.FunctionDecl(
                        "findAll",
                        [
                            cel.Overload(
                                "string_find_all_string",
                                strings,
                                [string, string],
                                is_member=True,
                                impl=regex_find_all,
                            ),
                            cel.Overload(
                                "string_find_all_string_int",
                                strings,
                                [string, string, integer],
                                is_member=True,
                                impl=regex_find_all_limit,
                            ),
                        ],
                    ),
                ]
                _env = cel.NewEnv(
                    variables={"self": cel.Type.DYN, "oldSelf": cel.Type.DYN},
                    extensions=[ext_strings.ExtStrings()],
                    functions=functions,
                )
    return _env


def _mentions_old_self(source: str) -> bool:
    return re.search(r"\boldSelf\b", source) is not None


def compile_rule(raw: dict[str, Any], where: str) -> Rule:
    env = environment()
    source = raw["rule"]
    try:
        program = env.compile(source)
        message_expression = (
            env.compile(raw["messageExpression"]) if raw.get("messageExpression") else None
        )
    except RuntimeError as err:
        raise CelCompileError(f"{where}: rule {source!r} does not compile: {err}") from err
    return Rule(
        source=source,
        message=raw.get("message"),
        message_expression=message_expression,
        field_path=raw.get("fieldPath", ""),
        reason=raw.get("reason"),
        program=program,
        transition=_mentions_old_self(source),
    )


def compile_schema_rules(root: SchemaNode, kind: str) -> int:
    """Compile every rule of a schema tree in place; returns how many there are."""
    count = 0
    for node in root.walk():
        if node.raw_rules:
            node.rules = tuple(compile_rule(raw, kind) for raw in node.raw_rules)
            count += len(node.rules)
    return count


def _error_text(value: Any) -> str:
    # "NOT_FOUND: Key not found in map : \"values\"" -> drop the absl status code.
    return STATUS_PREFIX.sub("", str(value)).strip()


def _with_field_path(path: str, field_path: str) -> str:
    for name, quoted, number in FIELD_PATH_PART.findall(field_path):
        if name:
            path = child(path, name)
        elif number:
            path = index(path, int(number))
        else:
            path = key(path, quoted.replace("\\'", "'"))
    return path


def _failure_message(rule: Rule, activation: Any) -> str:
    if rule.message_expression is not None:
        evaluated = rule.message_expression.eval(activation)
        text = evaluated.value()
        # The API server falls back to `message` when messageExpression fails or
        # yields an empty or multi-line string.
        if str(evaluated.type()) == "STRING" and text.strip() and "\n" not in text:
            return text.strip()
    if rule.message:
        return rule.message.strip()
    return f"failed rule: {rule.source.strip()}"


def evaluate_rules(
    rules: tuple[Rule, ...], value: Any, old: Any, path: str, out: Collector
) -> None:
    env = environment()
    bindings = {"self": value}
    if old is not MISSING:
        bindings["oldSelf"] = old
    activation = env.Activation(bindings)
    for rule in rules:
        if rule.transition and old is MISSING:
            continue
        result = rule.program.eval(activation)
        outcome = result.value()
        if outcome is True:
            continue
        where = _with_field_path(path, rule.field_path) if rule.field_path else path
        if outcome is False:
            message = REASON_PREFIX.get(rule.reason or "", "") + _failure_message(rule, activation)
        elif str(result.type()) == "ERROR":
            message = f"{_error_text(outcome)} evaluating rule: {rule.description}"
        else:
            message = (
                f"rule evaluated to {result.type()} instead of bool evaluating rule: "
                f"{rule.description}"
            )
        out.add("cel", where, message, rule.source)


def evaluate(node: SchemaNode, value: Any, old: Any, path: str, out: Collector) -> None:
    """Evaluate every rule at and below ``node`` for ``value`` (``old``: MISSING on create)."""
    if node.rules:
        evaluate_rules(node.rules, value, old, path, out)
    if not node.rules_below:
        return
    if is_dict(value):
        old_map = old if is_dict(old) else None
        for name, sub in node.rule_properties:
            if name in value:
                prior = old_map.get(name, MISSING) if old_map is not None else MISSING
                evaluate(sub, value[name], prior, child(path, name), out)
        sub = node.additional
        if sub is not None and (sub.rules or sub.rules_below):
            for name in sorted(value, key=str):
                if node.properties and name in node.properties:
                    continue
                prior = old_map.get(name, MISSING) if old_map is not None else MISSING
                evaluate(sub, value[name], prior, key(path, name), out)
    elif is_list(value) and node.items is not None:
        olds = _correlate_items(node, value, old)
        for i, item in enumerate(value):
            evaluate(node.items, item, olds[i], index(path, i), out)


def _correlate_items(node: SchemaNode, value: list[Any], old: Any) -> list[Any]:
    """Old values for list items: only ``list-type: map`` items have identities
    (their keys), so only they are correlated, as in the API server."""
    if node.list_type != "map" or not node.list_map_keys or not is_list(old):
        return [MISSING] * len(value)
    keys = node.list_map_keys
    by_key = {tuple(repr(item.get(k)) for k in keys): item for item in old if is_dict(item)}
    return [
        by_key.get(tuple(repr(item.get(k)) for k in keys), MISSING) if is_dict(item) else MISSING
        for item in value
    ]
