"""The base of every spec: strict frozen models and errors collected with their paths.

Specs are pure values (no pulumi import). A field that may carry a Pulumi ``Output``
(a reference to another resource) is declared with :func:`wired`, which accepts either a
plain value of the declared type or an Output, recognised by duck typing so that this
package never imports pulumi.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from nodepools.json_values import is_dict, is_list, is_sequence
from nodepools.specs.core.field_names import did_you_mean, unknown_keys
from pydantic import BaseModel, BeforeValidator, ConfigDict, TypeAdapter, ValidationError

# pydantic's model metaclass, public in all but name (pinned in constraints.txt).
from pydantic._internal._model_construction import ModelMetaclass

T = TypeVar("T", bound="SpecModel")


class _RaisesSpecError(ModelMetaclass):
    """One exception type for invalid arguments whatever their form: a model built by hand
    (`MachinePoolArgs(...)`) raises the same SpecError, every problem with its path, as the
    dict form does. On the metaclass's `__call__` rather than `__init__`: pydantic calls a
    custom `__init__` for nested models too, where a SpecError would hide the paths."""

    def __call__(cls, *args: Any, **data: Any) -> Any:
        try:
            return super().__call__(*args, **data)
        except ValidationError as exc:
            raise SpecError(
                cls.__name__, issues_from_validation_error(exc, "", data, model=cls)
            ) from None


class SpecModel(BaseModel, metaclass=_RaisesSpecError):
    """Strict, frozen pydantic model: unknown fields are errors, values never mutate."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        arbitrary_types_allowed=True,
        validate_default=False,
        str_strip_whitespace=False,
        # A stack's YAML gives real numbers and booleans: "3", true for a count, or "yes"
        # and 1 for a flag are mistakes, never values to coerce.
        strict=True,
        # inf and NaN pass `gt=0` checks and then fail inside the engine, after registrations.
        allow_inf_nan=False,
    )


class ValueNotShown(ValueError):
    """A validator's error whose message quotes no value: shown even under a credential key."""


class PathError(ValueError):
    """A validator's error about a part of its field (`subpath`), e.g. `max_price` of `spot`."""

    def __init__(self, subpath: str, message: str):
        self.subpath = subpath
        super().__init__(message)


@dataclass(frozen=True)
class Issue:
    """One problem in a spec: where (`path`) and why (`message`, which quotes the value)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"`{self.path}`: {self.message}" if self.path else self.message


class NestedIssues(ValueError):
    """Raised by a model validator that found several problems below its model.

    Cross-field checks (a quota naming an unknown pool, quotas above a pool's capacity)
    run in `mode="after"` validators, which pydantic reports as one error at the model's
    location; this carries each problem with its own subpath so that
    `issues_from_validation_error` can report them one by one.
    """

    def __init__(self, issues: Sequence[Issue]):
        self.issues = tuple(issues)
        super().__init__("; ".join(str(issue) for issue in self.issues))


class SpecError(ValueError):
    """Every problem found in one spec, raised once before anything is registered."""

    def __init__(self, subject: str, issues: Sequence[Issue]):
        self.subject = subject
        self.issues = tuple(issues)
        lines = "\n".join(f"  - {issue}" for issue in self.issues)
        count = len(self.issues)
        super().__init__(f"{subject} is invalid ({count} problem{'s' * (count != 1)}):\n{lines}")

    def paths(self) -> list[str]:
        return [issue.path for issue in self.issues]


def format_path(loc: Iterable[Any], prefix: str = "") -> str:
    """Render a pydantic location as `a.b[0]["nvidia.com/gpu"]`, below `prefix` if given."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":
            continue  # pydantic's marker for "the key itself"; our message names the key
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}" if out else part
        else:
            # JSON's quoting: a key with a quote or a newline in it stays one readable key.
            out += f"[{json.dumps(str(part), ensure_ascii=False)}]"
    return out


# Keys whose values are never quoted back: a misplaced or misspelt credential must not end
# up in an error message, a CI log or an issue tracker.
SECRET_KEY = re.compile(
    r"token|secret|password|passwd|credential|private.?key|api.?key|access.?key|auth",
    re.IGNORECASE,
)
HIDDEN = "<hidden: it may hold a secret>"


# Names SECRET_KEY matches that never hold a credential, compared without case, `_`, `-` or
# `.`: hiding their values would hide the mistake too (`metadata_options.http_tokens`
# 'maybe' must say what it got and why it is wrong). tests/specs/test_secret_keys.py checks
# every field of every spec matching SECRET_KEY is either a real secret or listed here.
NOT_SECRET = frozenset(
    {
        "httptokens",  # EC2 IMDS: `required` (IMDSv2) or `optional`
        "authtype",  # the OKE cluster autoscaler's `instance` or `workload` principal
        "certificateauthority",  # a cluster's CA certificate: public by design
        "author",  # `pr-comment --author`: a login
        "secretname",  # the name of a Kubernetes Secret, not its data
    }
)


def is_secret_key(name: Any) -> bool:
    """Whether a value under the key `name` may be a credential (never quoted back)."""
    if not isinstance(name, str) or not SECRET_KEY.search(name):
        return False
    return re.sub(r"[_.\-]", "", name).lower() not in NOT_SECRET


def _mentions_secret(value: Any) -> bool:
    if is_dict(value):
        # Kubernetes-style `{name: HF_TOKEN, value: ...}` pairs name their secret in a value.
        if is_secret_key(value.get("name")):
            return True
        return any(is_secret_key(k) or _mentions_secret(v) for k, v in value.items())
    if is_sequence(value):
        return any(_mentions_secret(item) for item in value)
    return False


def _quote(value: Any, loc: Iterable[Any] = ()) -> str:
    if any(is_secret_key(part) for part in loc) or _mentions_secret(value):
        return HIDDEN
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


_MISSING = object()


def _user_loc(loc: tuple[Any, ...], data: Any) -> list[Any]:
    """`loc` without the tags discriminated unions insert ("eks", "oke", ...): the user never
    wrote them. With the input at hand, a part that is a real key of it is kept even when
    it spells a tag (a label `cap`); without, every registered tag is dropped."""
    kept: list[Any] = []
    current = data
    for part in loc:
        if (is_dict(current) and part in current) or (
            is_list(current) and isinstance(part, int) and part < len(current)
        ):
            current = current[part]
        elif _is_union_tag(part):
            continue
        else:
            current = _MISSING
        kept.append(part)
    return kept


def issues_from_validation_error(
    exc: ValidationError, prefix: str = "", data: Any = _MISSING, model: Any = None
) -> list[Issue]:
    """Turn pydantic's errors into our issues: a path, and a message quoting the value.

    With the `model` (or type) `data` was validated against, an unknown field says which
    known one it may mean, and one that an earlier failure kept pydantic from reaching (a
    misspelt `instance_tpye` behind "`instance_type` is required") is reported too."""
    _load_union_tags()
    unknown = unknown_keys(model, data) if model is not None and data is not _MISSING else {}
    reported: set[tuple[Any, ...]] = set()
    failed: list[tuple[Any, ...]] = []
    issues: list[Issue] = []
    for error in exc.errors(include_url=False):
        loc = _user_loc(error["loc"], data)
        failed.append(tuple(loc))
        path = format_path(loc, prefix)
        kind = error["type"]
        if kind == "value_error":
            # Our own validators already quote the value in their message.
            cause = error.get("ctx", {}).get("error")
            if isinstance(cause, NestedIssues):
                issues.extend(
                    Issue(join_path(path, issue.path), issue.message) for issue in cause.issues
                )
                continue
            message = str(cause) if cause is not None else error["msg"]
            if not isinstance(cause, ValueNotShown) and (
                _mentions_secret(error.get("input")) or any(is_secret_key(part) for part in loc)
            ):
                # Our validators quote values; under a credential-like key, don't.
                message = f"is invalid ({HIDDEN})"
            if isinstance(cause, PathError):
                path = join_path(path, cause.subpath)
        elif kind == "extra_forbidden":
            reported.add(tuple(loc))
            known = unknown.get(tuple(loc), [])
            hint = did_you_mean(str(loc[-1]), known) if loc and known else ""
            message = f"unknown field (got {_quote(error['input'], loc)}){hint}"
        elif kind == "missing":
            message = "is required"
        elif kind == "union_tag_invalid":
            ctx: dict[str, Any] = error.get("ctx", {})
            expected = ctx.get("expected_tags", "")
            tags = re.findall(r"'([^']*)'", str(expected))
            hint = did_you_mean(str(ctx["tag"]), tags) if tags else ""
            message = f"unknown kind {_quote(ctx['tag'])}; expected one of {expected}{hint}"
        elif kind == "union_tag_not_found":
            message = "needs a `kind`"
        elif is_output(error.get("input")):
            # Only fields documented as taking Outputs do (their value is checked when it
            # resolves); this one decides what is built, so it must be known now.
            message = (
                "an Output is not allowed here: this value decides which resources the "
                "component creates, so it must be a plain value when the program runs "
                "(from stack config, say), not another resource's output"
            )
        else:
            message = (
                f"{error['msg'][0].lower()}{error['msg'][1:]} (got {_quote(error['input'], loc)})"
            )
            given = error.get("input")
            if (
                kind in ("literal_error", "enum")
                and isinstance(given, str)
                and HIDDEN not in message
            ):
                # A near miss of one of the listed values (`Spot` for `spot`) says which.
                listed = re.findall(r"'([^']*)'", str(error.get("ctx", {}).get("expected", "")))
                message += (
                    did_you_mean(given, listed)
                    if given.lower() not in listed
                    else (f"; did you mean `{given.lower()}`?")
                )
        issues.append(Issue(path, message))
    # Unknown fields of a model that failed before pydantic looked at its fields: the likely
    # cause of the failure, so they come first.
    hidden = [
        Issue(
            format_path(loc, prefix),
            f"unknown field (got {_quote(_value_at(data, loc), loc)})"
            + did_you_mean(str(loc[-1]), known),
        )
        for loc, known in unknown.items()
        if loc not in reported and any(f[: len(loc) - 1] == loc[:-1] for f in failed)
    ]
    return hidden + issues


def _value_at(data: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        data = data[part]
    return data


def join_path(prefix: str, path: str) -> str:
    """`prefix` and a path below it, e.g. `nodepools:pools[1]` + `limits["cpu"]`."""
    # The prefix is already a path: quoted as one key it would read `["nodepools:pools[1]"]`.
    if not prefix or not path:
        return prefix or path
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


def _is_union_tag(part: Any) -> bool:
    # Discriminated unions add the tag ("eks", "oke", ...) to the location; users never
    # wrote it, so it only obscures the path.
    return isinstance(part, str) and part in _UNION_TAGS


_UNION_TAGS: set[str] = set()
# The modules whose discriminated unions register their tags (at import). `components`
# imports its parts on first use, so they are loaded before the first error is turned
# into issues: a path must not depend on which parts of the library happen to be loaded.
_TAGGING_MODULES = (
    "nodepools.specs.clusters.targets",
    "nodepools.specs.governance.quotas",
    "nodepools.specs.governance.platforms",
)


def register_union_tags(*tags: str) -> None:
    _UNION_TAGS.update(tags)


def _load_union_tags() -> None:
    for module in _TAGGING_MODULES:
        if module not in sys.modules:
            importlib.import_module(module)


# type -> is it Pulumi's Output: a dict lookup per value instead of two attribute reads and
# a string test (every parse asks for every value of a spec).
_OUTPUT_TYPES: dict[type[Any], bool] = {}


def is_output(value: Any) -> bool:
    """True for a Pulumi Output (or Output-like awaitable), detected without importing pulumi."""
    cls = cast("type[Any]", type(value))
    known = _OUTPUT_TYPES.get(cls)
    if known is None:
        known = _OUTPUT_TYPES[cls] = cls.__name__ == "Output" and cls.__module__.startswith(
            "pulumi"
        )
    return known


def wired(plain_type: Any) -> BeforeValidator:
    """The validator of a field that takes a plain `plain_type` value or a Pulumi Output
    resolving to one: `field: Annotated[Any, wired(str)]`."""
    adapter = TypeAdapter(plain_type)

    def check(value: Any) -> Any:
        if is_output(value):
            return value
        return adapter.validate_python(value)

    # A mark on the validator function, read by nodepools.specs.core.deferred_checks.
    check.wired = True  # type: ignore[attr-defined]  # pyright: ignore[reportFunctionMemberAccess]
    return BeforeValidator(check)
