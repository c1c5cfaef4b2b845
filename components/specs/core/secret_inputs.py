"""Inputs that carry credentials: a token field that never shows its value, the URLs a
token may be sent to, and validation errors with the inputs hidden where they may hold one.

Shared by the ROSA cluster (OCM offline token) and the OSMO service (OSMO access token).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from nodepools.json_values import is_dict
from nodepools.specs.core.base import SpecModel, ValueNotShown, is_output
from pydantic import BeforeValidator, SecretStr, ValidationError, model_validator
from pydantic_core import InitErrorDetails


class _Hidden:
    """Stands in for an input that may be a credential; quoted errors show `<hidden>`."""

    def __repr__(self) -> str:
        return "<hidden>"


HIDDEN = _Hidden()


def _token(value: Any, env_vars: tuple[str, ...]) -> Any:
    if value is None or is_output(value):
        return value
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if is_dict(value) and set(value) == {"secure"}:
        # Stack YAML's form of `pulumi config set --secret --path ...`: the engine decrypts
        # it for `pulumi up`, but an offline run has only the ciphertext.
        raise ValueNotShown(
            "is encrypted stack config, which an offline run can't decrypt; plan with the "
            f"token left out (deploys can read {' or '.join(env_vars)}) or with its "
            "plaintext in the offline config"
        )
    if isinstance(value, str):
        if not value.strip():
            raise ValueNotShown(
                "is empty; leave `token` out to read "
                f"{' or '.join(env_vars)} from the environment at deploy time"
            )
        return SecretStr(value.strip())
    raise ValueNotShown(
        f"must be a string or a Pulumi Output (got a value of type {type(value).__name__}, "
        "not shown)"
    )


def secret_token(env_vars: tuple[str, ...]) -> BeforeValidator:
    """The validator of a credential field, `Annotated[Any, secret_token(env_vars)]`: None, a
    secret Output, or a string kept as a `SecretStr`; errors never quote it and name
    `env_vars`, the variables the provider reads when it is left out."""
    return BeforeValidator(lambda value: _token(value, env_vars))


def url_problem(url: str) -> str | None:
    """Why `url` can't carry a token, or None (https, or http to loopback for tests)."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname and _is_loopback(parts.hostname):
        return None
    return (
        f"{url!r} must be an https:// URL (plain http only to a loopback address, for test "
        "servers: the token would otherwise cross the network in clear)"
    )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def hide_secret_inputs(exc: ValidationError) -> ValidationError:
    """`exc` with the inputs hidden wherever they may hold the token."""
    line_errors: list[InitErrorDetails] = []
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        hide = not loc or loc[0] == "token" or error["type"] == "extra_forbidden"
        line_error: InitErrorDetails = {
            "type": error["type"],
            "loc": loc,
            "input": HIDDEN if hide else error["input"],
        }
        if "ctx" in error:
            line_error["ctx"] = error["ctx"]
        line_errors.append(line_error)
    return ValidationError.from_exception_data(exc.title, line_errors)


class HoldsSecret(SpecModel):
    """A spec with a credential field (`token`): validation errors never quote an input
    that may hold it (the token itself, or an unknown field such as a misspelt `tokn`)."""

    @model_validator(mode="wrap")
    @classmethod
    def _hide_secret_inputs(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except ValidationError as exc:
            raise hide_secret_inputs(exc) from None


def checked_url(url: str | None) -> str | None:
    """`url` when a token may be sent to it (see `url_problem`), else ValueError."""
    if url is not None and (problem := url_problem(url)):
        raise ValueError(problem)
    return url
