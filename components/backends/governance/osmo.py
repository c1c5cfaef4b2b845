"""OSMO configs (pod templates, resource validations, pools, roles) as Pulumi resources.

OSMO has no Pulumi provider: each config document is a Pulumi *dynamic* resource,
``OsmoConfig``, whose provider applies it through OSMO's config API with ``OsmoClient``
(the calls `osmo config update` makes). The resource id is ``<TYPE>/<name>``.

- create and update PUT the whole document (OSMO's PUT creates or replaces, so a retry
  or a config that already exists converges to the document);
- diff compares the documents as canonical JSON: a second `up` with the same documents
  sends nothing; a change of type or name replaces the config (delete first when only
  the name's owner stays the same);
- read GETs the config and keeps, of what OSMO returns, the keys the document gives
  (OSMO fills in defaults): drift in those shows in `pulumi refresh`;
- delete DELETEs it; one already gone is fine.

The token is handled as the ROSA provider's (see ``nodepools.backends.rosa.machine_pool``): an input
wrapped as a secret, declared a secret output, never held by the provider object (which
is pickled into the state); without one, ``OSMO_TOKEN`` is read from the environment at
the moment of the request. ``url`` defaults to ``OSMO_URL`` the same way.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi.dynamic
from nodepools.backends.dynamic_support import (
    has_unknown,
    is_unknown,
    pickler_left_as_found,
    unwrap_secret,
    whole_numbers,
)
from nodepools.backends.governance.osmo_client import (
    WRITES,
    OsmoAuthenticationError,
    OsmoClient,
    OsmoError,
)
from nodepools.backends.http_retry import RetryPolicy
from nodepools.json_values import is_dict
from nodepools.specs.core.secret_inputs import url_problem
from nodepools.specs.governance.osmo_checks import document_issues
from nodepools.specs.governance.osmo_platforms import OSMO_TOKEN_ENV_VARS, OSMO_URL_ENV_VAR

logger = logging.getLogger(__name__)

RESOURCE_TYPE = "osmo:configs:Config"
"""Marker input naming what the dynamic resource manages (artifacts and policies key on it)."""
CONFIG_TYPES = tuple(WRITES)
SETTINGS_KEYS = ("url", "token")


@dataclass(frozen=True)
class _Target:
    url: str | None
    token: str | None

    def __repr__(self) -> str:
        return f"_Target(url={self.url!r})"


def _target(props: Mapping[str, Any]) -> _Target:
    token = unwrap_secret(props.get("token"))
    url = props.get("url")
    return _Target(
        url=url.rstrip("/") if isinstance(url, str) and url else None,
        token=token if isinstance(token, str) and token else None,
    )


def resolve_url(explicit: str | None) -> str:
    url = explicit or os.environ.get(OSMO_URL_ENV_VAR, "").strip()
    if not url:
        raise OsmoError(
            f"No OSMO service URL: give the PoolPlatforms `service.url`, or export "
            f"{OSMO_URL_ENV_VAR} in the environment that runs `pulumi`."
        )
    if problem := url_problem(url):
        raise OsmoError(f"OSMO service URL {problem}")
    return url


def resolve_token(explicit: str | None) -> str:
    if explicit:
        return explicit
    for name in OSMO_TOKEN_ENV_VARS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    raise OsmoAuthenticationError(
        "No OSMO access token: give the PoolPlatforms `service.token` (a Pulumi secret), or "
        f"export {' or '.join(OSMO_TOKEN_ENV_VARS)} in the environment that runs `pulumi`."
    )


def _canonical(document: Any) -> str:
    return json.dumps(whole_numbers(document), sort_keys=True, separators=(",", ":"))


def input_problems(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    config_type = props.get("config_type")
    if not is_unknown(config_type) and config_type not in CONFIG_TYPES:
        problems.append(("config_type", f"{config_type!r} is not one of {', '.join(CONFIG_TYPES)}"))
    name = props.get("config_name")
    if not is_unknown(name) and (not isinstance(name, str) or not name):
        problems.append(("config_name", f"must be a non-empty string (got {name!r})"))
    url = props.get("url")
    if isinstance(url, str) and url and not is_unknown(url) and (problem := url_problem(url)):
        problems.append(("url", problem))
    document = props.get("document")
    if document is None:
        problems.append(("document", "is required"))
    elif not problems and not has_unknown(document) and not is_unknown(name):
        # What OSMO's models would refuse, refused before any request (the facts' rules).
        sent = whole_numbers(document)
        problems += [
            (issue.path, issue.message)
            for issue in document_issues(str(config_type), str(name), sent, ["document"])
        ]
    return problems


def _state(props: Mapping[str, Any], target: _Target, document: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "resource_type": RESOURCE_TYPE,
        "config_type": props["config_type"],
        "config_name": props["config_name"],
        "document": document,
        "url": target.url,
    }
    if target.token is not None:
        state["token"] = target.token
    return state


def _live_document(config_type: str, name: str, live: Any, desired: Any) -> Any:
    """What OSMO returned, in the document's form. OSMO fills in the defaults of a pool,
    its platforms and a role: of those, only the keys the document gives are kept."""
    if config_type in ("POD_TEMPLATE", "RESOURCE_VALIDATION"):
        return {name: live}
    if not is_dict(live) or not is_dict(desired):
        return live
    kept = {k: v for k, v in live.items() if k in desired}
    platforms, wanted = kept.get("platforms"), desired.get("platforms")
    if config_type == "POOL" and is_dict(platforms) and is_dict(wanted):
        kept["platforms"] = {
            p: {k: v for k, v in spec.items() if k in (wanted.get(p) or {})}
            if is_dict(spec) and p in wanted
            else spec
            for p, spec in platforms.items()
        }
    return kept


def _id(props: Mapping[str, Any]) -> str:
    return f"{props['config_type']}/{props['config_name']}"


def parse_resource_id(resource_id: str) -> tuple[str, str]:
    config_type, sep, name = (resource_id or "").partition("/")
    if not sep or config_type not in CONFIG_TYPES or not name:
        raise ValueError(f"OSMO config id {resource_id!r} must be '<TYPE>/<name>', e.g. 'POOL/gpu'")
    return config_type, name


class OsmoConfigProvider(pulumi.dynamic.ResourceProvider):
    """Applies one OSMO config document. Holds no credentials (it is pickled into the state).

    ``client_options`` go to every ``OsmoClient`` it builds (timeouts, a ``RetryPolicy``
    with an injected ``sleep`` in tests); they must not contain secrets.
    """

    def __init__(self, client_options: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self._client_options = dict(client_options or {})

    def _client(self, target: _Target) -> OsmoClient:
        explicit = target.token
        options = dict(self._client_options)
        if is_dict(options.get("policy")):
            options["policy"] = RetryPolicy(**options["policy"])
        return OsmoClient(resolve_url(target.url), lambda: resolve_token(explicit), **options)

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> pulumi.dynamic.CheckResult:
        problems = input_problems(news)
        if problems:
            failures = [pulumi.dynamic.CheckFailure(path, reason) for path, reason in problems]
            return pulumi.dynamic.CheckResult(news, failures)
        if has_unknown(news.get("document")):
            return pulumi.dynamic.CheckResult(news, [])
        document = whole_numbers(news["document"])
        return pulumi.dynamic.CheckResult(_state(news, _target(news), document), [])

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        replaces = [k for k in ("config_type", "config_name") if olds.get(k) != news.get(k)]
        if replaces:
            return pulumi.dynamic.DiffResult(
                changes=True, replaces=replaces, delete_before_replace=False
            )
        changed = _canonical(olds.get("document")) != _canonical(news.get("document"))
        settings = any(_setting(olds, k) != _setting(news, k) for k in SETTINGS_KEYS)
        return pulumi.dynamic.DiffResult(changes=changed or settings)

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        _raise_on_problems(props)
        target = _target(props)
        document = whole_numbers(props["document"])
        logger.info("applying OSMO %s %s", props["config_type"], props["config_name"])
        with self._client(target) as client:
            client.put_config(props["config_type"], props["config_name"], document)
        return pulumi.dynamic.CreateResult(_id(props), _state(props, target, document))

    def read(self, id_: str, props: dict[str, Any]) -> pulumi.dynamic.ReadResult:
        config_type, name = parse_resource_id(id_)
        props = {**props, "config_type": config_type, "config_name": name}
        target = _target(props)
        with self._client(target) as client:
            live = client.get_config(config_type, name)
        if live is None:
            logger.info("OSMO %s %s is gone", config_type, name)
            return pulumi.dynamic.ReadResult("", {})
        document = _live_document(config_type, name, live, props.get("document"))
        outs = _state(props, target, document)
        return pulumi.dynamic.ReadResult(id_, outs, dict(outs))

    def update(
        self, id_: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.UpdateResult:
        _raise_on_problems(news)
        target = _target(news)
        document = whole_numbers(news["document"])
        if _canonical(olds.get("document")) != _canonical(document):
            logger.info("updating OSMO %s %s", news["config_type"], news["config_name"])
            with self._client(target) as client:
                client.put_config(news["config_type"], news["config_name"], document)
        else:
            # Only the settings changed (a rotated token, say): prove they work.
            with self._client(target) as client:
                if client.get_config(news["config_type"], news["config_name"]) is None:
                    raise OsmoError(
                        f"OSMO {id_} no longer exists; run `pulumi refresh` to drop it from the state"
                    )
        return pulumi.dynamic.UpdateResult(_state(news, target, document))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        config_type, name = parse_resource_id(id_)
        with self._client(_target(props)) as client:
            if not client.delete_config(config_type, name):
                logger.info("OSMO %s was already gone", id_)


def _setting(props: Mapping[str, Any], key: str) -> Any:
    value = unwrap_secret(props.get(key))
    if key == "url" and isinstance(value, str):
        return value.rstrip("/") or None
    return value or None


def _raise_on_problems(props: Mapping[str, Any]) -> None:
    problems = input_problems(props)
    if problems:
        raise ValueError(
            "invalid OSMO config inputs:\n" + "\n".join(f"  - {p}: {r}" for p, r in problems)
        )


@dataclass(frozen=True)
class OsmoConfigArgs:
    """Inputs of ``OsmoConfig``. ``token`` is wrapped as a secret before registration."""

    config_type: pulumi.Input[str]
    """`POD_TEMPLATE`, `RESOURCE_VALIDATION`, `POOL` or `ROLE`. Required."""
    config_name: pulumi.Input[str]
    """The config's name. Required."""
    document: pulumi.Input[Any]
    """The document as `osmo config update --file` takes it. Required."""
    url: pulumi.Input[str] | None = None
    """OSMO service URL. Default None: OSMO_URL at deploy time."""
    token: pulumi.Input[str] | None = None
    """OSMO access token. Default None: OSMO_TOKEN at deploy time."""


class OsmoConfig(pulumi.dynamic.Resource, module="osmo", name="Config"):
    """One OSMO config document (type ``pulumi-python:dynamic/osmo:Config``)."""

    config_type: pulumi.Output[str]
    config_name: pulumi.Output[str]
    document: pulumi.Output[Any]

    def __init__(
        self,
        name: str,
        args: OsmoConfigArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        provider: OsmoConfigProvider | None = None,
    ) -> None:
        if not isinstance(args, OsmoConfigArgs):
            args = OsmoConfigArgs(**args)
        props: dict[str, Any] = {
            "resource_type": RESOURCE_TYPE,
            "config_type": args.config_type,
            "config_name": args.config_name,
            "document": args.document,
            "url": args.url,
            "token": None if args.token is None else pulumi.Output.secret(args.token),
        }
        secret_opts = pulumi.ResourceOptions(additional_secret_outputs=["token"])
        with pickler_left_as_found():
            super().__init__(
                provider or OsmoConfigProvider(),
                name,
                props,
                pulumi.ResourceOptions.merge(opts, secret_opts),
            )


__all__ = [
    "RESOURCE_TYPE",
    "OsmoConfig",
    "OsmoConfigArgs",
    "OsmoConfigProvider",
    "parse_resource_id",
    "resolve_token",
    "resolve_url",
]
