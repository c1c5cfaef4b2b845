"""CEL for ValidatingAdmissionPolicies: compile-checked at construction, runnable offline.

Every expression PoolPlatforms emits (validations, message expressions, variables, match
conditions) and every expression a user writes is compiled with the CEL runtime the
validator already uses (cel-expr-python), in an environment declaring what the API
server gives a ValidatingAdmissionPolicy: the variables `object`, `oldObject`,
`request`, `params`, `namespaceObject` and `variables`; standard CEL; the strings
extension; the regex `find`/`findAll`; the Kubernetes quantity library
(`quantity(...)`, `isQuantity`, `compareTo`, `isGreaterThan`, `isLessThan`, `add`, `sub`,
`sign`, `isInteger`, `asInteger`, `asApproximateFloat`) with `Quantity` as an opaque type;
and the list functions `sum`, `min`, `max`, `isSorted`. So a typo, an undeclared variable
or a wrongly typed call fails at construction with the compiler's message.

Stricter than the API server on purpose: `authorizer`, the URL/IP/CIDR/format libraries
and mixed int/double comparisons are not declared (we never emit them); an expression
using them is refused here although a cluster might accept it.

`evaluate` runs expressions against a sample object (tests, offline checks) in a twin
environment where a quantity is its approximate float value: enough for the comparisons
we emit, not a full model of `Quantity`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from nodepools.validation.quantity import parse_quantity

VAP_VARIABLES = ("object", "oldObject", "request", "params", "namespaceObject", "variables")

_LOCK = threading.Lock()
_ENVS: dict[str, Any] = {}


class CelError(ValueError):
    """An expression that doesn't compile; the message is the compiler's."""


def _functions(strict: bool) -> list[Any]:
    from cel_expr_python import cel  # pyright: ignore[reportMissingTypeStubs] (no type information shipped)
    from nodepools.validation.cel import regex_find, regex_find_all, regex_find_all_limit

    t = cel.Type
    quantity = t.AbstractType("kubernetes.Quantity") if strict else t.DOUBLE

    # Strict: declarations only (never evaluated). Twin: a quantity is a float.
    def impl(fn: Callable[..., Any] | None) -> dict[str, Any]:
        return {} if strict else {"impl": fn}

    def member(
        name: str,
        result: Any,
        *params: Any,
        fn: Callable[[float], Any] | Callable[[float, float], Any] | None = None,
    ) -> Any:
        overload_id = f"quantity_{name}_{len(params)}"
        return cel.FunctionDecl(
            name,
            [cel.Overload(overload_id, result, [quantity, *params], is_member=True, **impl(fn))],
        )

    def as_float(value: Any) -> float:
        return float(parse_quantity(value))

    def list_fn(name: str, element: Any, result: Any, fn: Callable[[list[Any]], Any]) -> Any:
        return cel.Overload(
            f"list_{name}_{element.name()}",
            result,
            [t.List(element)],
            is_member=True,
            **impl(fn),
        )

    def total(xs: list[Any]) -> float:
        return float(sum(xs))

    def is_sorted(xs: list[Any]) -> bool:
        return list(xs) == sorted(xs)

    reducers: tuple[tuple[str, Callable[[list[Any]], Any]], ...] = (
        ("sum", total),
        ("min", min),
        ("max", max),
    )
    lists = [
        cel.FunctionDecl(
            name,
            [list_fn(name, t.DOUBLE, t.DOUBLE, fn)]
            if not strict
            else [list_fn(name, t.INT, t.INT, fn), list_fn(name, t.DOUBLE, t.DOUBLE, fn)],
        )
        for name, fn in reducers
    ]
    lists.append(
        cel.FunctionDecl(
            "isSorted",
            [
                list_fn("isSorted", element, t.BOOL, is_sorted)
                for element in ((t.INT, t.DOUBLE, t.STRING) if strict else (t.DOUBLE,))
            ],
        )
    )
    return [
        cel.FunctionDecl(
            "quantity", [cel.Overload("quantity_string", quantity, [t.STRING], **impl(as_float))]
        ),
        cel.FunctionDecl(
            "isQuantity",
            [cel.Overload("is_quantity_string", t.BOOL, [t.STRING], **impl(_is_quantity))],
        ),
        member("asApproximateFloat", t.DOUBLE, fn=lambda q: float(q)),
        member("asInteger", t.INT, fn=lambda q: int(q)),
        member("isInteger", t.BOOL, fn=lambda q: float(q).is_integer()),
        member("sign", t.INT, fn=lambda q: (q > 0) - (q < 0)),
        member("compareTo", t.INT, quantity, fn=lambda a, b: (a > b) - (a < b)),
        member("isGreaterThan", t.BOOL, quantity, fn=lambda a, b: a > b),
        member("isLessThan", t.BOOL, quantity, fn=lambda a, b: a < b),
        member("add", quantity, quantity, fn=lambda a, b: a + b),
        member("sub", quantity, quantity, fn=lambda a, b: a - b),
        cel.FunctionDecl(
            "find",
            [
                cel.Overload(
                    "string_find_string",
                    t.STRING,
                    [t.STRING, t.STRING],
                    is_member=True,
                    **impl(regex_find),
                )
            ],
        ),
        cel.FunctionDecl(
            "findAll",
            [
                cel.Overload(
                    "string_find_all_string",
                    t.List(t.STRING),
                    [t.STRING, t.STRING],
                    is_member=True,
                    **impl(regex_find_all),
                ),
                cel.Overload(
                    "string_find_all_string_int",
                    t.List(t.STRING),
                    [t.STRING, t.STRING, t.INT],
                    is_member=True,
                    **impl(regex_find_all_limit),
                ),
            ],
        ),
        *lists,
    ]


def _is_quantity(value: str) -> bool:
    try:
        parse_quantity(value)
    except ValueError:
        return False
    return True


def _environment(kind: str) -> Any:
    env = _ENVS.get(kind)
    if env is None:
        with _LOCK:
            env = _ENVS.get(kind)
            if env is None:
                # cel-expr-python ships no type information (no stubs, no py.typed).
                from cel_expr_python import cel  # pyright: ignore[reportMissingTypeStubs]
                from cel_expr_python.ext import ext_strings  # pyright: ignore[reportMissingTypeStubs]

                env = cel.NewEnv(
                    variables={name: cel.Type.DYN for name in VAP_VARIABLES},
                    extensions=[ext_strings.ExtStrings()],
                    functions=_functions(strict=kind == "strict"),
                )
                _ENVS[kind] = env
    return env


def compile_check(expression: str, *, expect: str | None = "BOOL") -> None:
    """Raise CelError unless `expression` compiles (and, with `expect`, has that type:
    BOOL for validations and match conditions, STRING for message expressions)."""
    # User-written expressions arrive from YAML stack config, not always as strings.
    if not isinstance(expression, str) or not expression.strip():  # pyright: ignore[reportUnnecessaryIsInstance]
        raise CelError("an expression can't be empty")
    result, problem = _return_type(expression)
    if problem is not None:
        raise CelError(problem)
    if expect is not None and result not in (expect, "DYN"):
        raise CelError(f"evaluates to {result}, but a {expect} is needed")


@functools.lru_cache(maxsize=4096)
def _return_type(expression: str) -> tuple[str | None, str | None]:
    """(return type, None), or (None, the compiler's message).

    Compiling is most of a check, and a fleet checks the same expressions twice (its
    dry run, then the component) and across entries alike.
    """
    try:
        compiled = _environment("strict").compile(expression)
    except RuntimeError as err:
        return None, _compiler_message(err)
    return str(compiled.return_type()), None


def _compiler_message(err: RuntimeError) -> str:
    # "INVALID_ARGUMENT: ERROR: <input>:1:6: undeclared reference to 'objct' ..." -> the
    # compiler's own lines, without the status prefix.
    text = str(err)
    for prefix in ("INVALID_ARGUMENT: ",):
        text = text.removeprefix(prefix)
    return text.replace(" [INVALID_ARGUMENT]", "").strip()


def evaluate(expression: str, bindings: dict[str, Any]) -> Any:
    """The value of `expression` for `bindings` (a CEL error comes back as an ErrorValue
    string prefixed with `error:`), computed with the float model of quantities."""
    result = _environment("twin").compile(expression).eval(data=bindings)
    if str(result.type()) == "ERROR":
        return f"error: {result.value()}"
    return result.plain_value()
