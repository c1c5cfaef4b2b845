"""A small, careful HTTP client for the OpenShift Cluster Manager machine-pool API.

ROSA Classic has no Pulumi provider, so machine pools are managed through the OCM REST
API (``clusters_mgmt/v1``). This client covers exactly what the dynamic provider needs:
the offline-token exchange, the five machine-pool operations, bounded retries, and errors
that say what went wrong without ever carrying a credential.

Credentials: the offline token is never stored on the client. It is read from
``token_source`` (a callable) at the moment of the exchange, and the access token it buys
is kept in a redacting holder. ``repr``, ``vars()``, logs and exception messages show
neither; pickling the client is refused outright.

Retry policy (see the constants below): at most ``RETRY_MAX_ATTEMPTS`` attempts per
request, first one included. Retried: HTTP 429 (waiting ``Retry-After`` seconds, capped at
``RETRY_AFTER_CAP_S``), every 5xx, connection errors, dropped connections and timeouts.
Between attempts the client sleeps a "full jitter" exponential backoff: a uniformly random
time in ``[0, min(RETRY_BACKOFF_CAP_S, RETRY_BACKOFF_BASE_S * 2 ** (n - 1))]`` after the
n-th failed attempt. A 401 from the API makes the client exchange the offline token again,
once, before giving up. Other 4xx answers are final.

POST is retried too. A POST that timed out or whose connection dropped may still have been
applied by OCM, so a retry can meet "already exists"; every error raised here says whether
that can have happened (``may_have_been_applied``) so the caller can look before failing.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any, overload
from urllib.parse import quote

import httpx
from nodepools.backends.http_retry import (
    CONNECT_TIMEOUT_S,
    READ_TIMEOUT_S,
    RETRIED_STATUSES,
    RETRY_AFTER_CAP_S,
    RETRY_BACKOFF_BASE_S,
    RETRY_BACKOFF_CAP_S,
    RETRY_MAX_ATTEMPTS,
    Answer,
    Redacted,
    RetryPolicy,
    ServiceError,
    redact,
    secret_forms,
    send_with_retries,
)
from nodepools.json_values import is_dict

logger = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.openshift.com"
DEFAULT_SSO_URL = "https://sso.redhat.com/auth/realms/redhat-external/protocol/openid-connect/token"
SSO_CLIENT_ID = "cloud-services"

TOKEN_REFRESH_MARGIN_S = 60.0
"""An access token is replaced this long before it expires (at most half its lifetime)."""
LIST_PAGE_SIZE = 100
_MAX_LIST_PAGES = 1000

__all__ = [
    "CONNECT_TIMEOUT_S",
    "READ_TIMEOUT_S",
    "RETRIED_STATUSES",
    "RETRY_AFTER_CAP_S",
    "RETRY_BACKOFF_BASE_S",
    "RETRY_BACKOFF_CAP_S",
    "RETRY_MAX_ATTEMPTS",
    "OcmApiError",
    "OcmAuthenticationError",
    "OcmClient",
    "OcmConnectionError",
    "OcmError",
    "secret_forms",
]

_CLUSTER = "/api/clusters_mgmt/v1/clusters/{cluster}"
_MACHINE_POOLS = _CLUSTER + "/machine_pools"
_CREDENTIAL_HINT = (
    "check the OCM offline token (the RosaCluster `token`, or RHCS_TOKEN / OCM_TOKEN in the "
    "environment; get a fresh one at console.redhat.com/openshift/token) and that `sso_url` "
    "is the token endpoint of the SSO that issued it"
)


class OcmError(ServiceError):
    """Anything that went wrong talking to OCM (``may_have_been_applied``: see
    ``ServiceError``)."""


class OcmAuthenticationError(OcmError):
    """SSO or the API refused the credentials (401/403, or an invalid offline token)."""


class OcmConnectionError(OcmError):
    """No HTTP answer after every attempt: connection refused, dropped or timed out."""


class OcmApiError(OcmError):
    """OCM answered with an error status; the message quotes its code, reason and operation id."""

    def __init__(
        self,
        *,
        method: str,
        path: str,
        status_code: int,
        code: str | None,
        reason: str | None,
        operation_id: str | None,
        attempts: int = 1,
        may_have_been_applied: bool = False,
    ) -> None:
        self.method = method
        self.path = path
        self.status_code = status_code
        self.code = code
        self.reason = reason
        self.operation_id = operation_id
        self.attempts = attempts
        message = f"OCM answered {method} {path} with HTTP {status_code}"
        if code:
            message += f" {code}"
        message += f": {reason or 'no reason given'}"
        message += f" (operation_id {operation_id or 'not given'})"
        if attempts > 1:
            message += f"; gave up after {attempts} attempts"
        super().__init__(message, may_have_been_applied=may_have_been_applied)


class OcmClient:
    """Synchronous OCM client for one API and one SSO.

    ``token_source`` returns the offline token when called; it is called only when an access
    token has to be obtained. ``sleep``, ``random`` and ``clock`` are injectable so tests run
    the retry and expiry logic deterministically and without waiting.
    """

    def __init__(
        self,
        api_url: str,
        sso_url: str,
        token_source: Callable[[], str],
        *,
        timeout: float = READ_TIMEOUT_S,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        max_attempts: int = RETRY_MAX_ATTEMPTS,
        backoff_base: float = RETRY_BACKOFF_BASE_S,
        backoff_cap: float = RETRY_BACKOFF_CAP_S,
        retry_after_cap: float = RETRY_AFTER_CAP_S,
        page_size: int = LIST_PAGE_SIZE,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.monotonic,
        trust_env: bool = True,
    ) -> None:
        self._policy = RetryPolicy(
            max_attempts, backoff_base, backoff_cap, retry_after_cap, sleep, random
        )
        if page_size < 1:
            raise ValueError(f"`page_size` {page_size} must be at least 1")
        self.api_url = api_url.rstrip("/")
        self.sso_url = sso_url
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.retry_after_cap = retry_after_cap
        self.page_size = page_size
        self._token_source = token_source
        self._clock = clock
        self._token_lock = threading.Lock()
        self._access_token: Redacted | None = None
        self._access_token_renew_at = 0.0
        # Credentials go on each request, never on the httpx client, so that the client
        # object itself holds nothing worth hiding.
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            headers={"Accept": "application/json", "User-Agent": "nodepools-ocm-client"},
            follow_redirects=False,
            trust_env=trust_env,
        )

    def __repr__(self) -> str:
        return f"OcmClient(api_url={self.api_url!r}, sso_url={self.sso_url!r})"

    def __getstate__(self) -> Any:
        raise TypeError(
            "OcmClient holds credentials and cannot be pickled; build one where it is used"
        )

    def __enter__(self) -> OcmClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- machine pools -------------------------------------------------------------------

    def list_machine_pools(self, cluster_id: str) -> list[dict[str, Any]]:
        """Every machine pool of the cluster, following OCM's ``page``/``size``/``total``."""
        path = _MACHINE_POOLS.format(cluster=_segment(cluster_id))
        pools: list[dict[str, Any]] = []
        for page in range(1, _MAX_LIST_PAGES + 1):
            answer = self._api("GET", path, params={"page": page, "size": self.page_size})
            body = answer.body if is_dict(answer.body) else {}
            items: list[Any] = body.get("items") or []
            pools.extend(items)
            total = body.get("total")
            if not items or (isinstance(total, int) and len(pools) >= total):
                return pools
            # An answer without `total` is taken as complete once a page comes back short.
            if not isinstance(total, int) and len(items) < self.page_size:
                return pools
        raise OcmError(
            f"OCM GET {path} kept returning pages past page {_MAX_LIST_PAGES}; giving up"
        )

    def get_cluster(self, cluster_id: str) -> dict[str, Any]:
        """The cluster (OCM's Cluster object); a missing one is OCM's 404 as OcmApiError."""
        answer = self._api("GET", _CLUSTER.format(cluster=_segment(cluster_id))).body
        return answer if is_dict(answer) else {}

    def get_machine_pool(self, cluster_id: str, pool_id: str) -> dict[str, Any] | None:
        """The machine pool, or None when OCM says it does not exist (404)."""
        path = _pool_path(cluster_id, pool_id)
        try:
            return self._api("GET", path).body
        except OcmApiError as error:
            if error.status_code == 404:
                return None
            raise

    def create_machine_pool(self, cluster_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST a new machine pool; 409 (the id exists) is raised as an ``OcmApiError``."""
        path = _MACHINE_POOLS.format(cluster=_segment(cluster_id))
        return self._api("POST", path, json=body).body

    def update_machine_pool(
        self, cluster_id: str, pool_id: str, patch: dict[str, Any]
    ) -> dict[str, Any]:
        """PATCH the machine pool with ``patch`` (only the fields to change)."""
        return self._api("PATCH", _pool_path(cluster_id, pool_id), json=patch).body

    def delete_machine_pool(self, cluster_id: str, pool_id: str) -> bool:
        """DELETE the machine pool. Returns False when it was already gone (404)."""
        try:
            self._api("DELETE", _pool_path(cluster_id, pool_id))
        except OcmApiError as error:
            if error.status_code == 404:
                return False
            raise
        return True

    # -- authentication ------------------------------------------------------------------

    def _bearer(self) -> str:
        with self._token_lock:
            if self._access_token is None or self._clock() >= self._access_token_renew_at:
                self._exchange_offline_token()
            assert self._access_token is not None
            return self._access_token.reveal()

    def _forget_access_token(self) -> None:
        with self._token_lock:
            self._access_token = None

    def _exchange_offline_token(self) -> None:
        offline_token = self._token_source()
        if not offline_token:
            raise OcmAuthenticationError(f"No OCM offline token was given: {_CREDENTIAL_HINT}.")
        form = {
            "grant_type": "refresh_token",
            "client_id": SSO_CLIENT_ID,
            "refresh_token": offline_token,
        }
        label = httpx.URL(self.sso_url).path
        answer = self._send_with_retries("POST", self.sso_url, label, data=form)
        body = answer.body if is_dict(answer.body) else {}
        if answer.status_code != 200:
            # Keycloak answers a revoked or malformed offline token with 400 invalid_grant.
            error = _redact(str(body.get("error") or f"HTTP {answer.status_code}"), offline_token)
            description = _redact(str(body.get("error_description") or ""), offline_token)
            detail = f"{error}: {description}" if description else error
            if answer.status_code in (400, 401, 403):
                raise OcmAuthenticationError(
                    f"SSO at {self.sso_url} refused the offline token "
                    f"(HTTP {answer.status_code}, {detail}): {_CREDENTIAL_HINT}."
                )
            raise OcmError(
                f"SSO at {self.sso_url} failed the token exchange with HTTP "
                f"{answer.status_code} ({detail}) after {answer.attempts} attempt(s)"
            )
        access_token = body.get("access_token")
        expires_in = body.get("expires_in")
        if not isinstance(access_token, str) or not access_token:
            raise OcmAuthenticationError(
                f"SSO at {self.sso_url} answered the token exchange without an access token: "
                f"check that `sso_url` is the token endpoint (…/protocol/openid-connect/token)."
            )
        lifetime = float(expires_in) if isinstance(expires_in, int | float) else 300.0
        margin = min(TOKEN_REFRESH_MARGIN_S, lifetime / 2)
        self._access_token = Redacted(access_token)
        self._access_token_renew_at = self._clock() + lifetime - margin
        logger.debug("OCM access token obtained; valid for %.0fs", lifetime)

    # -- requests ------------------------------------------------------------------------

    def _api(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
    ) -> Answer:
        """One API call: retries, one re-authentication on 401, errors turned into OcmErrors."""
        url = self.api_url + path
        answer = self._send_with_retries(method, url, path, params=params, json=json, auth=True)
        if answer.status_code == 401:
            logger.info("OCM %s %s: 401, exchanging the offline token again", method, path)
            self._forget_access_token()
            answer = self._send_with_retries(method, url, path, params=params, json=json, auth=True)
        if answer.status_code in (401, 403):
            raise self._authentication_error(method, path, answer)
        if answer.status_code >= 400:
            raise _api_error(method, path, answer, self._token_hint())
        return answer

    def _authentication_error(
        self, method: str, path: str, answer: Answer
    ) -> OcmAuthenticationError:
        details = _error_fields(answer.body)
        quoted = _quote_error(answer.status_code, details)
        if answer.status_code == 401:
            message = (
                f"OCM refused the access token for {method} {path} ({quoted}) even after a fresh "
                f"token exchange: {_CREDENTIAL_HINT}, and that `api_url` {self.api_url} belongs "
                f"to the same environment as the SSO (production vs stage)."
            )
        else:
            message = (
                f"OCM denied {method} {path} ({quoted}): the token is valid but its account may "
                f"not manage this cluster; check the cluster id and the account's OCM roles."
            )
        return OcmAuthenticationError(_redact(message, self._token_hint()))

    def _token_hint(self) -> str | None:
        return self._access_token.reveal() if self._access_token is not None else None

    def _send_with_retries(
        self,
        method: str,
        url: str,
        label: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        data: dict[str, str] | None = None,
        auth: bool = False,
    ) -> Answer:
        """`http_retry.send_with_retries`, with the bearer token when `auth`; no answer at
        all is an OcmConnectionError."""
        return send_with_retries(
            self._http,
            self._policy,
            "OCM",
            method,
            url,
            label,
            params=params,
            json=json,
            data=data,
            bearer=self._bearer if auth else None,
            no_answer=OcmConnectionError,
        )


def _api_error(method: str, path: str, answer: Answer, secret: str | None) -> OcmApiError:
    details = _error_fields(answer.body)
    return OcmApiError(
        method=method,
        path=path,
        status_code=answer.status_code,
        code=details.get("code"),
        reason=_redact(details.get("reason"), secret),
        operation_id=details.get("operation_id") or answer.headers.get("X-Operation-Id"),
        attempts=answer.attempts,
        may_have_been_applied=answer.may_have_been_applied,
    )


def _error_fields(body: Any) -> dict[str, str]:
    if is_dict(body):
        return {
            key: str(body[key])
            for key in ("code", "reason", "operation_id", "id")
            if body.get(key) is not None
        }
    if isinstance(body, str) and body.strip():
        # Not an OCM error document (a proxy's HTML page, say): keep a short excerpt.
        return {"reason": " ".join(body.split())[:200]}
    return {}


def _quote_error(status_code: int, details: dict[str, str]) -> str:
    parts = [f"HTTP {status_code}"]
    if details.get("code"):
        parts.append(details["code"])
    if details.get("reason"):
        parts.append(repr(details["reason"]))
    if details.get("operation_id"):
        parts.append(f"operation_id {details['operation_id']}")
    return ", ".join(parts)


@overload
def _redact(text: str, secret: str | None) -> str: ...
@overload
def _redact(text: str | None, secret: str | None) -> str | None: ...
def _redact(text: str | None, secret: str | None) -> str | None:
    return redact(text, secret)


def _segment(value: str) -> str:
    return quote(value, safe="")


def _pool_path(cluster_id: str, pool_id: str) -> str:
    return _MACHINE_POOLS.format(cluster=_segment(cluster_id)) + "/" + _segment(pool_id)
