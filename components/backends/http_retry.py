"""Bounded retries and credential hygiene for the REST clients of the dynamic providers
(OCM for ROSA, the OSMO config API).

Retry policy: at most ``max_attempts`` attempts per request, first one included. Retried:
HTTP 429 (waiting ``Retry-After`` seconds, capped at ``retry_after_cap``), every 5xx,
connection errors, dropped connections and timeouts. Between attempts the sender sleeps a
"full jitter" exponential backoff: a uniformly random time in ``[0, min(backoff_cap,
backoff_base * 2 ** (n - 1))]`` after the n-th failed attempt. Other answers are returned
to the caller, which decides what they mean.

Credentials: ``Redacted`` holds one and prints as ``<redacted>``; it refuses to be pickled.
Headers carrying a credential are built per attempt by a callable, so the httpx client
itself never holds one. ``redact`` removes a credential from a text, also in the
encoded forms a server may echo (``secret_forms``).
"""

from __future__ import annotations

import base64
import html
import json
import logging
import random as _random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, overload
from urllib.parse import quote, quote_plus

import httpx

logger = logging.getLogger(__name__)

RETRY_MAX_ATTEMPTS = 5
"""Attempts per request, the first one included."""
RETRY_BACKOFF_BASE_S = 0.5
"""Backoff ceiling after the first failed attempt; it doubles after each further one."""
RETRY_BACKOFF_CAP_S = 20.0
"""Upper bound of the backoff ceiling."""
RETRY_AFTER_CAP_S = 60.0
"""Longest ``Retry-After`` honoured; a server asking for more gets this much."""
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 60.0

RETRIED_STATUSES = frozenset({429}) | frozenset(range(500, 600))


class Redacted:
    """Holds a credential; prints as ``<redacted>`` and refuses to be pickled or copied."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<redacted>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol: object) -> Any:
        raise TypeError("a credential cannot be pickled")


@dataclass
class Answer:
    """An HTTP answer, decoded, with how many attempts it took to get it."""

    status_code: int
    headers: httpx.Headers
    body: Any
    attempts: int
    may_have_been_applied: bool


class ServiceError(Exception):
    """Anything that went wrong talking to a service.

    ``may_have_been_applied`` is True when at least one attempt ended in a way that leaves
    open whether the service acted on the request (a timeout after sending, a dropped
    connection, a 5xx): a caller that cares, such as an idempotent create, should look
    before failing.
    """

    def __init__(self, message: str, *, may_have_been_applied: bool = False) -> None:
        super().__init__(message)
        self.may_have_been_applied = may_have_been_applied


class NoAnswer(ServiceError):
    """Every attempt ended without an HTTP answer."""


@dataclass
class RetryPolicy:
    """How many attempts and how long between them; ``sleep`` and ``random`` are
    injectable so tests run the policy deterministically and without waiting."""

    max_attempts: int = RETRY_MAX_ATTEMPTS
    backoff_base: float = RETRY_BACKOFF_BASE_S
    backoff_cap: float = RETRY_BACKOFF_CAP_S
    retry_after_cap: float = RETRY_AFTER_CAP_S
    sleep: Callable[[float], None] = field(default=time.sleep)
    random: Callable[[], float] = field(default=_random.random)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"`max_attempts` {self.max_attempts} must be at least 1")

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.retry_after_cap)
        ceiling = min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))
        return self.random() * ceiling


def send_with_retries(
    http: httpx.Client,
    policy: RetryPolicy,
    service: str,
    method: str,
    url: str,
    label: str,
    *,
    params: dict[str, Any] | None = None,
    json: Any = None,
    data: dict[str, str] | None = None,
    bearer: Callable[[], str] | None = None,
    no_answer: type[ServiceError] = NoAnswer,
) -> Answer:
    """Send until an answer that is not retried, or until the attempts run out.

    Returns the last answer (whatever its status) when attempts run out on retried
    statuses; raises ``no_answer`` when they run out without any HTTP answer. ``service``
    names the server in logs (``OCM``, ``OSMO``); ``label`` the request, without secrets.
    ``bearer`` gives the token of an ``Authorization: Bearer`` header, asked for on each
    attempt (so the HTTP client never holds it).
    """
    may_have_been_applied = False
    last_problem = ""
    for attempt in range(1, policy.max_attempts + 1):
        try:
            response = http.request(
                method,
                url,
                params=params,
                json=json,
                data=data,
                headers={"Authorization": f"Bearer {bearer()}"} if bearer is not None else None,
            )
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            # Only a failure to connect proves the request never reached the server.
            if not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
                may_have_been_applied = True
            last_problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            logger.debug(
                "%s %s %s: %s (attempt %d of %d)",
                service,
                method,
                label,
                type(exc).__name__,
                attempt,
                policy.max_attempts,
            )
            if attempt < policy.max_attempts:
                _pause(policy, service, method, label, attempt, type(exc).__name__, None)
            continue
        if response.status_code >= 500:
            may_have_been_applied = True
        answer = Answer(
            response.status_code,
            response.headers,
            json_or_text(response),
            attempt,
            may_have_been_applied,
        )
        logger.debug(
            "%s %s %s -> %d (attempt %d of %d)",
            service,
            method,
            label,
            response.status_code,
            attempt,
            policy.max_attempts,
        )
        if response.status_code not in RETRIED_STATUSES or attempt == policy.max_attempts:
            return answer
        retry_after = retry_after_seconds(response.headers.get("Retry-After"))
        _pause(policy, service, method, label, attempt, f"HTTP {response.status_code}", retry_after)
    raise no_answer(
        f"{service} {method} {label} got no answer after {policy.max_attempts} attempts "
        f"(last: {last_problem}); check that {origin(url)} is reachable from here.",
        may_have_been_applied=may_have_been_applied,
    )


def _pause(
    policy: RetryPolicy,
    service: str,
    method: str,
    label: str,
    attempt: int,
    problem: str,
    retry_after: float | None,
) -> None:
    delay = policy.delay(attempt, retry_after)
    logger.info(
        "%s %s %s: %s; retrying in %.2fs (attempt %d of %d)",
        service,
        method,
        label,
        problem,
        delay,
        attempt + 1,
        policy.max_attempts,
    )
    policy.sleep(delay)


def json_or_text(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def retry_after_seconds(value: str | None) -> float | None:
    """Delta-seconds only; an HTTP-date falls back to the jittered backoff."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return max(seconds, 0.0)


def secret_forms(secret: str) -> list[str]:
    """The ways a server may echo `secret`: as sent in a form or a URL (percent-encoded,
    either case of hex digits, `+` for spaces), JSON- or HTML-escaped, or base64 (standard
    or URL-safe, with or without padding). Longest first, so no form is left half-replaced.
    """
    percent = {quote(secret, safe=""), quote(secret), quote_plus(secret)}
    percent |= {_lower_hex(form) for form in percent}
    raw = secret.encode()
    encoded = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    encoded |= {form.rstrip("=") for form in encoded}
    forms = {secret, *percent, *encoded, json.dumps(secret)[1:-1], html.escape(secret)}
    return sorted(forms, key=lambda form: (-len(form), form))


def _lower_hex(text: str) -> str:
    parts = text.split("%")
    return parts[0] + "".join(f"%{part[:2].lower()}{part[2:]}" for part in parts[1:])


@overload
def redact(text: str, *secrets: str | None) -> str: ...
@overload
def redact(text: None, *secrets: str | None) -> None: ...
@overload
def redact(text: str | None, *secrets: str | None) -> str | None: ...
def redact(text: str | None, *secrets: str | None) -> str | None:
    """`text` with each secret replaced by `<redacted>`, in every form `secret_forms` lists."""
    if text is None:
        return text
    for secret in secrets:
        if not secret:
            continue
        for form in secret_forms(secret):
            text = text.replace(form, "<redacted>")
    return text


def origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode('ascii')}"


__all__ = [
    "CONNECT_TIMEOUT_S",
    "READ_TIMEOUT_S",
    "RETRIED_STATUSES",
    "RETRY_AFTER_CAP_S",
    "RETRY_BACKOFF_BASE_S",
    "RETRY_BACKOFF_CAP_S",
    "RETRY_MAX_ATTEMPTS",
    "Answer",
    "NoAnswer",
    "Redacted",
    "RetryPolicy",
    "ServiceError",
    "json_or_text",
    "origin",
    "redact",
    "retry_after_seconds",
    "secret_forms",
    "send_with_retries",
]
