"""A small HTTP client for OSMO's config API (the calls `osmo config update` makes).

Authentication is the CLI's `osmo login <url> --method token`: the access token is
exchanged at ``POST <url>/api/auth/jwt/access_token`` (``{"token": ...}``) for a JWT,
sent as ``Authorization: Bearer <jwt>`` on every request. A 401 makes the client exchange
the token again, once, before giving up. The access token is read from ``token_source``
only at the moment of the exchange and the JWT is kept in a redacting holder: ``repr``,
logs and exceptions show neither, and pickling the client is refused.

Retries (429, 5xx, dropped connections; jittered backoff, ``Retry-After``) are
``http_retry``'s. Errors quote OSMO's own message (``{"message", "error_code"}`` of its
user errors, FastAPI's ``detail`` of a request it refused).

Writes, per config type (OSMO's config routes; the facts test checks they exist):

- POD_TEMPLATE: ``PUT /api/configs/pod_template`` ``{"configs": {name: template}}``
- RESOURCE_VALIDATION: ``PUT /api/configs/resource_validation`` ``{"configs_dict": {name: rules}}``
- POOL: ``PUT /api/configs/pool/<name>`` ``{"configs": pool}``
- ROLE: ``PUT /api/configs/role/<name>`` ``{"configs": role}``

Reads are ``GET /api/configs/<type>/<name>`` and deletes ``DELETE`` of the same path.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import httpx
from nodepools.backends.http_retry import (
    CONNECT_TIMEOUT_S,
    READ_TIMEOUT_S,
    Answer,
    Redacted,
    RetryPolicy,
    ServiceError,
    redact,
    send_with_retries,
)
from nodepools.json_values import is_dict

logger = logging.getLogger(__name__)

TOKEN_EXCHANGE_PATH = "/api/auth/jwt/access_token"
CHANGE_DESCRIPTION = "Applied by nodepools"
# config type -> (collection write?, payload key) for PUT.
WRITES: dict[str, tuple[bool, str]] = {
    "POD_TEMPLATE": (True, "configs"),
    "RESOURCE_VALIDATION": (True, "configs_dict"),
    "POOL": (False, "configs"),
    "ROLE": (False, "configs"),
}
_CREDENTIAL_HINT = (
    "check the OSMO access token (the service's `token`, or OSMO_TOKEN in the environment; "
    "create one with `osmo token set`) and that `url` is the OSMO service it belongs to"
)


class OsmoError(ServiceError):
    """Anything that went wrong talking to OSMO (``may_have_been_applied``: see
    ``ServiceError``)."""


class OsmoAuthenticationError(OsmoError):
    """OSMO refused the token (exchange or request answered 401/403)."""


class OsmoConnectionError(OsmoError):
    """No HTTP answer after every attempt."""


class OsmoApiError(OsmoError):
    """OSMO answered with an error status; the message quotes OSMO's."""

    def __init__(
        self,
        *,
        method: str,
        path: str,
        status_code: int,
        message: str | None,
        error_code: str | None,
        attempts: int = 1,
        may_have_been_applied: bool = False,
    ) -> None:
        self.method = method
        self.path = path
        self.status_code = status_code
        self.osmo_message = message
        self.error_code = error_code
        text = f"OSMO answered {method} {path} with HTTP {status_code}"
        if error_code:
            text += f" {error_code}"
        text += f": {message or 'no message given'}"
        if attempts > 1:
            text += f"; gave up after {attempts} attempts"
        super().__init__(text, may_have_been_applied=may_have_been_applied)

    @property
    def not_found(self) -> bool:
        """OSMO answers a missing config with a user error (400) saying so, or 404."""
        if self.status_code == 404:
            return True
        text = (self.osmo_message or "").lower()
        return self.status_code == 400 and ("does not exist" in text or "not found" in text)


def config_path(config_type: str, name: str | None = None) -> str:
    path = f"/api/configs/{config_type.lower()}"
    return path if name is None else f"{path}/{quote(name, safe='')}"


class OsmoClient:
    """Synchronous client of one OSMO service. ``token_source`` returns the access token
    when called; ``sleep`` and ``random`` are injectable for tests."""

    def __init__(
        self,
        url: str,
        token_source: Callable[[], str],
        *,
        timeout: float = READ_TIMEOUT_S,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        policy: RetryPolicy | None = None,
        trust_env: bool = True,
    ) -> None:
        self.url = url.rstrip("/")
        self._token_source = token_source
        self._policy = policy or RetryPolicy()
        self._lock = threading.Lock()
        self._jwt: Redacted | None = None
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            headers={"Accept": "application/json", "User-Agent": "nodepools-osmo-client"},
            follow_redirects=False,
            trust_env=trust_env,
        )

    def __repr__(self) -> str:
        return f"OsmoClient(url={self.url!r})"

    def __getstate__(self) -> Any:
        raise TypeError("OsmoClient holds credentials and cannot be pickled")

    def __enter__(self) -> OsmoClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- configs ---------------------------------------------------------------------------

    def get_config(self, config_type: str, name: str) -> Any | None:
        """The stored config, or None when OSMO says it does not exist."""
        try:
            return self._api("GET", config_path(config_type, name)).body
        except OsmoApiError as error:
            if error.not_found:
                return None
            raise

    def put_config(self, config_type: str, name: str, document: Any) -> None:
        """Create or replace the config (`document` as `plan` shows it)."""
        collection, key = WRITES[config_type]
        path = config_path(config_type, None if collection else name)
        self._api("PUT", path, json={key: document, "description": CHANGE_DESCRIPTION})

    def delete_config(self, config_type: str, name: str) -> bool:
        """Delete the config; False when it was already gone."""
        try:
            self._api(
                "DELETE", config_path(config_type, name), json={"description": CHANGE_DESCRIPTION}
            )
        except OsmoApiError as error:
            if error.not_found:
                return False
            raise
        return True

    # -- authentication --------------------------------------------------------------------

    def _bearer(self) -> str:
        with self._lock:
            if self._jwt is None:
                self._exchange()
            assert self._jwt is not None
            return self._jwt.reveal()

    def _exchange(self) -> None:
        token = self._token_source()
        if not token:
            raise OsmoAuthenticationError(f"No OSMO access token was given: {_CREDENTIAL_HINT}.")
        answer = self._send("POST", TOKEN_EXCHANGE_PATH, json={"token": token})
        body = answer.body if is_dict(answer.body) else {}
        if answer.status_code != 200:
            quoted = redact(_osmo_message(answer.body), token)
            error_class = (
                OsmoAuthenticationError if answer.status_code in (400, 401, 403) else OsmoError
            )
            raise error_class(
                f"OSMO at {self.url} refused the access token (HTTP {answer.status_code}: "
                f"{quoted or 'no message given'}): {_CREDENTIAL_HINT}."
            )
        jwt = body.get("token")
        if not isinstance(jwt, str) or not jwt:
            raise OsmoAuthenticationError(
                f"OSMO at {self.url} answered the token exchange without a token: check that "
                "`url` is the OSMO service."
            )
        self._jwt = Redacted(jwt)

    # -- requests --------------------------------------------------------------------------

    def _send(self, method: str, path: str, *, json: Any = None, auth: bool = False) -> Answer:
        return send_with_retries(
            self._http,
            self._policy,
            "OSMO",
            method,
            self.url + path,
            path,
            json=json,
            bearer=self._bearer if auth else None,
            no_answer=OsmoConnectionError,
        )

    def _api(self, method: str, path: str, *, json: Any = None) -> Answer:
        answer = self._send(method, path, json=json, auth=True)
        if answer.status_code == 401:
            logger.info("OSMO %s %s: 401, exchanging the access token again", method, path)
            with self._lock:
                self._jwt = None
            answer = self._send(method, path, json=json, auth=True)
        secret = self._jwt.reveal() if self._jwt is not None else None
        if answer.status_code in (401, 403):
            raise OsmoAuthenticationError(
                f"OSMO refused {method} {path} (HTTP {answer.status_code}: "
                f"{redact(_osmo_message(answer.body), secret) or 'no message given'}): "
                f"{_CREDENTIAL_HINT}, and that its user may change configs."
            )
        if answer.status_code >= 400:
            body = answer.body if is_dict(answer.body) else {}
            raise OsmoApiError(
                method=method,
                path=path,
                status_code=answer.status_code,
                message=redact(_osmo_message(answer.body), secret),
                error_code=body.get("error_code")
                if isinstance(body.get("error_code"), str)
                else None,
                attempts=answer.attempts,
                may_have_been_applied=answer.may_have_been_applied,
            )
        return answer


def _osmo_message(body: Any) -> str | None:
    if is_dict(body):
        if body.get("message") is not None:
            return str(body["message"])
        if body.get("detail") is not None:
            return str(body["detail"])
        return None
    if isinstance(body, str) and body.strip():
        return " ".join(body.split())[:300]
    return None


__all__ = [
    "OsmoApiError",
    "OsmoAuthenticationError",
    "OsmoClient",
    "OsmoConnectionError",
    "OsmoError",
    "config_path",
]
