"""Kubernetes name and label syntax, worded as apimachinery words it.

Ports of ``k8s.io/apimachinery/pkg/util/validation`` (IsQualifiedName,
IsValidLabelValue, IsDNS1123Subdomain, IsDNS1123Label) and of the label helpers in
``pkg/apis/meta/v1/validation``. Lengths are counted in bytes, as Go's ``len`` does.
Every function returns the list of messages (empty when valid), like the Go code, so
callers attach the path and value themselves.
"""

from __future__ import annotations

import re
from typing import Any

from nodepools.json_values import is_dict
from nodepools.validation.violations import Collector, child, index

QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_FMT = f"({QUALIFIED_NAME_FMT})?"
LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX = 63
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_FMT = f"{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*"
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX = 253
ANNOTATIONS_MAX_BYTES = 256 * 1024

_QUALIFIED_NAME = re.compile(f"^{QUALIFIED_NAME_FMT}\\Z")
_LABEL_VALUE = re.compile(f"^{LABEL_VALUE_FMT}\\Z")
_DNS1123_LABEL = re.compile(f"^{DNS1123_LABEL_FMT}\\Z")
_DNS1123_SUBDOMAIN = re.compile(f"^{DNS1123_SUBDOMAIN_FMT}\\Z")


def _nbytes(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def regex_error(message: str, fmt: str, *examples: str) -> str:
    shown = " or ".join(f"'{e}'" for e in examples)
    return f"{message} (e.g. {shown}, regex used for validation is '{fmt}')"


def max_len_error(limit: int) -> str:
    return f"must be no more than {limit} characters"


def is_dns1123_subdomain(value: str) -> list[str]:
    errors: list[str] = []
    if _nbytes(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN.match(value):
        errors.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_dns1123_label(value: str) -> list[str]:
    errors: list[str] = []
    if _nbytes(value) > DNS1123_LABEL_MAX:
        errors.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1123_LABEL.match(value):
        errors.append(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_qualified_name(value: str) -> list[str]:
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend(f"prefix part {msg}" for msg in is_dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name "
            + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif _nbytes(name) > QUALIFIED_NAME_MAX:
        errors.append("name part " + max_len_error(QUALIFIED_NAME_MAX))
    if not _QUALIFIED_NAME.match(name):
        errors.append(
            "name part "
            + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


def is_valid_label_value(value: str) -> list[str]:
    errors: list[str] = []
    if _nbytes(value) > LABEL_VALUE_MAX:
        errors.append(max_len_error(LABEL_VALUE_MAX))
    if not _LABEL_VALUE.match(value):
        errors.append(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def validate_label_name(out: Collector, name: Any, path: str) -> None:
    """meta/v1/validation.ValidateLabelName."""
    if not isinstance(name, str):
        out.type_invalid(path, name, "string")
        return
    for msg in is_qualified_name(name):
        out.invalid(path, name, msg)


def validate_labels(out: Collector, labels: Any, path: str) -> None:
    """meta/v1/validation.ValidateLabels: keys are qualified names, values label values.

    As upstream, both kinds of error carry the path of the whole map; the message
    quotes the offending key or value.
    """
    if not is_dict(labels):
        out.type_invalid(path, labels, "object")
        return
    for name in sorted(labels, key=str):
        validate_label_name(out, name, path)
        value = labels[name]
        if not isinstance(value, str):
            out.type_invalid(path, value, "string")
            continue
        for msg in is_valid_label_value(value):
            out.invalid(path, value, msg)


def validate_label_selector(out: Collector, selector: Any, path: str) -> None:
    """meta/v1/validation.ValidateLabelSelector with default options."""
    if not is_dict(selector):
        return
    if "matchLabels" in selector:
        validate_labels(out, selector["matchLabels"], child(path, "matchLabels"))
    for i, requirement in enumerate(selector.get("matchExpressions") or ()):
        where = index(child(path, "matchExpressions"), i)
        if not is_dict(requirement):
            continue
        operator = requirement.get("operator")
        values: list[Any] = requirement.get("values") or []
        if operator in ("In", "NotIn"):
            if not values:
                out.required(
                    child(where, "values"), "must be specified when `operator` is 'In' or 'NotIn'"
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                out.forbidden(
                    child(where, "values"),
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
        else:
            out.invalid(child(where, "operator"), operator, "not a valid selector operator")
        validate_label_name(out, requirement.get("key", ""), child(where, "key"))
        for j, value in enumerate(values):
            if isinstance(value, str):
                for msg in is_valid_label_value(value):
                    out.invalid(index(child(where, "values"), j), value, msg)
