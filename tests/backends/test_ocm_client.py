"""OcmClient against the fake OCM: auth, the five operations, retries and error messages."""

from __future__ import annotations

import re
import socket
from typing import Any

import pytest
from nodepools.backends.rosa.ocm_client import (
    RETRY_AFTER_CAP_S,
    RETRY_BACKOFF_BASE_S,
    RETRY_MAX_ATTEMPTS,
    OcmApiError,
    OcmAuthenticationError,
    OcmClient,
    OcmConnectionError,
)

from tests.backends.ocm_testing import JITTER, MULTI_AZ, OFFLINE_TOKEN, SINGLE_AZ, gpu_body
from tests.fake_ocm import FakeOcm, Fault

POOLS = rf"/api/clusters_mgmt/v1/clusters/{SINGLE_AZ}/machine_pools"
ONE_POOL = POOLS + "/[^/]+"


def small_body(pool_id: str = "workers", **changes: Any) -> dict[str, Any]:
    body = {"id": pool_id, "instance_type": "m5.xlarge", "replicas": 2}
    body.update(changes)
    return body


def backoff(attempt: int) -> float:
    """The sleep after the n-th failed attempt with the injected jitter draw."""
    return JITTER * RETRY_BACKOFF_BASE_S * 2 ** (attempt - 1)


# -- operations ----------------------------------------------------------------------------


def test_create_get_update_delete_round_trip(client: OcmClient, fake_ocm: FakeOcm) -> None:
    created = client.create_machine_pool(SINGLE_AZ, small_body())
    assert created["id"] == "workers"
    assert created["href"].endswith("/machine_pools/workers")

    fetched = client.get_machine_pool(SINGLE_AZ, "workers")
    assert fetched == created

    updated = client.update_machine_pool(SINGLE_AZ, "workers", {"labels": {"a": "b"}})
    assert updated["labels"] == {"a": "b"}
    assert fake_ocm.bodies("PATCH") == [{"labels": {"a": "b"}}]

    assert client.delete_machine_pool(SINGLE_AZ, "workers") is True
    assert client.get_machine_pool(SINGLE_AZ, "workers") is None
    assert client.delete_machine_pool(SINGLE_AZ, "workers") is False  # already gone


def test_list_follows_pagination(fake_ocm: FakeOcm, client_options: dict[str, Any]) -> None:
    for index in range(5):
        fake_ocm.put_pool(SINGLE_AZ, small_body(f"pool-{index}"))
    with OcmClient(
        fake_ocm.api_url, fake_ocm.sso_url, lambda: OFFLINE_TOKEN, page_size=2, **client_options
    ) as client:
        pools = client.list_machine_pools(SINGLE_AZ)
    assert [pool["id"] for pool in pools] == [f"pool-{index}" for index in range(5)]
    assert fake_ocm.count("GET", POOLS) == 3


def test_list_of_an_empty_cluster_is_empty(client: OcmClient, fake_ocm: FakeOcm) -> None:
    assert client.list_machine_pools(MULTI_AZ) == []
    assert fake_ocm.count("GET") == 1


# -- authentication ------------------------------------------------------------------------


def test_access_token_is_cached_between_calls(client: OcmClient, fake_ocm: FakeOcm) -> None:
    client.list_machine_pools(SINGLE_AZ)
    client.get_machine_pool(SINGLE_AZ, "nope")
    client.list_machine_pools(MULTI_AZ)
    assert fake_ocm.token_exchanges == 1


def test_access_token_is_renewed_shortly_before_it_expires(
    fake_ocm: FakeOcm, client_options: dict[str, Any]
) -> None:
    now = [1000.0]
    with OcmClient(
        fake_ocm.api_url,
        fake_ocm.sso_url,
        lambda: OFFLINE_TOKEN,
        clock=lambda: now[0],
        **client_options,
    ) as client:
        client.list_machine_pools(SINGLE_AZ)
        now[0] += fake_ocm.access_token_ttl - 61  # still more than a minute left
        client.list_machine_pools(SINGLE_AZ)
        assert fake_ocm.token_exchanges == 1
        now[0] += 2  # inside the last minute: renew before using it
        client.list_machine_pools(SINGLE_AZ)
        assert fake_ocm.token_exchanges == 2


def test_a_401_exchanges_the_token_again_once(client: OcmClient, fake_ocm: FakeOcm) -> None:
    client.list_machine_pools(SINGLE_AZ)
    fake_ocm.revoke_access_tokens()
    assert client.list_machine_pools(SINGLE_AZ) == []
    assert fake_ocm.token_exchanges == 2
    assert [r.status for r in fake_ocm.requests if r.method == "GET"] == [200, 401, 200]


def test_a_persistent_401_is_an_authentication_error(client: OcmClient, fake_ocm: FakeOcm) -> None:
    fake_ocm.inject("GET", POOLS, Fault.unavailable(401), Fault.unavailable(401))
    with pytest.raises(OcmAuthenticationError) as caught:
        client.list_machine_pools(SINGLE_AZ)
    message = str(caught.value)
    assert "RHCS_TOKEN" in message and "OCM_TOKEN" in message and "sso_url" in message
    assert f"GET {POOLS}" in message
    assert fake_ocm.token_exchanges == 2


def test_a_403_says_the_account_lacks_access(client: OcmClient, fake_ocm: FakeOcm) -> None:
    fake_ocm.inject("GET", POOLS, Fault.unavailable(403))
    with pytest.raises(OcmAuthenticationError, match=r"denied GET .*HTTP 403.*OCM roles"):
        client.list_machine_pools(SINGLE_AZ)
    assert fake_ocm.token_exchanges == 1  # a 403 is not cured by a new token


def test_a_bad_offline_token_names_what_to_check(
    fake_ocm: FakeOcm, client_options: dict[str, Any]
) -> None:
    with (
        OcmClient(
            fake_ocm.api_url, fake_ocm.sso_url, lambda: "offline-revoked", **client_options
        ) as client,
        pytest.raises(OcmAuthenticationError) as caught,
    ):
        client.list_machine_pools(SINGLE_AZ)
    message = str(caught.value)
    assert "refused the offline token" in message
    assert "invalid_grant" in message
    assert "RHCS_TOKEN" in message and "sso_url" in message
    assert "offline-revoked" not in message
    assert fake_ocm.count("GET") == 0  # never reached the API


def test_an_empty_token_fails_before_any_request(
    fake_ocm: FakeOcm, client_options: dict[str, Any]
) -> None:
    with (
        OcmClient(fake_ocm.api_url, fake_ocm.sso_url, lambda: "", **client_options) as client,
        pytest.raises(OcmAuthenticationError, match="No OCM offline token"),
    ):
        client.get_machine_pool(SINGLE_AZ, "gpu")
    assert fake_ocm.requests == []


def test_an_sso_url_that_is_not_a_token_endpoint(
    fake_ocm: FakeOcm, client_options: dict[str, Any]
) -> None:
    with (
        OcmClient(
            fake_ocm.api_url, fake_ocm.api_url + "/auth", lambda: OFFLINE_TOKEN, **client_options
        ) as client,
        pytest.raises(Exception, match=r"token exchange with HTTP 404"),
    ):
        client.list_machine_pools(SINGLE_AZ)


# -- errors --------------------------------------------------------------------------------


def test_an_ocm_400_is_quoted_with_code_reason_and_operation_id(client: OcmClient) -> None:
    bad = small_body(root_volume={"aws": {"size": 64}})
    with pytest.raises(OcmApiError) as caught:
        client.create_machine_pool(SINGLE_AZ, bad)
    error = caught.value
    assert error.status_code == 400
    assert error.code == "CLUSTERS-MGMT-400"
    assert "Root volume size 64" in (error.reason or "")
    assert re.fullmatch(r"[0-9a-f-]{36}", error.operation_id or "")
    message = str(error)
    assert f"POST {POOLS}" in message
    assert "CLUSTERS-MGMT-400" in message and "Root volume size 64" in message
    assert error.operation_id in message
    assert error.may_have_been_applied is False


def test_a_409_is_an_api_error_with_its_status(client: OcmClient) -> None:
    client.create_machine_pool(SINGLE_AZ, small_body())
    with pytest.raises(OcmApiError, match="already exists") as caught:
        client.create_machine_pool(SINGLE_AZ, small_body())
    assert caught.value.status_code == 409
    assert caught.value.code == "CLUSTERS-MGMT-409"


def test_an_unknown_cluster_is_a_404_on_list(client: OcmClient) -> None:
    with pytest.raises(OcmApiError, match=r"HTTP 404 CLUSTERS-MGMT-404: Cluster 'nope'"):
        client.list_machine_pools("nope")


# -- retries -------------------------------------------------------------------------------


def test_429_waits_retry_after_then_succeeds_with_one_pool(
    client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]
) -> None:
    fake_ocm.inject("POST", POOLS, Fault.throttle(retry_after=2))
    client.create_machine_pool(SINGLE_AZ, small_body())
    assert sleeps == [2.0]
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["workers"]
    assert [r.status for r in fake_ocm.requests if r.method == "POST" and "machine" in r.path] == [
        429,
        201,
    ]


def test_retry_after_is_capped(client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]) -> None:
    fake_ocm.inject("GET", POOLS, Fault.throttle(retry_after=3600))
    client.list_machine_pools(SINGLE_AZ)
    assert sleeps == [RETRY_AFTER_CAP_S]


def test_retry_after_as_a_date_falls_back_to_backoff(
    client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]
) -> None:
    fake_ocm.inject("GET", POOLS, Fault.throttle(retry_after="Wed, 21 Oct 2015 07:28:00 GMT"))
    client.list_machine_pools(SINGLE_AZ)
    assert sleeps == [backoff(1)]


def test_503_twice_then_success_creates_exactly_one_pool(
    client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]
) -> None:
    fake_ocm.inject("POST", POOLS, Fault.unavailable(), Fault.unavailable())
    client.create_machine_pool(SINGLE_AZ, small_body())
    assert sleeps == [backoff(1), backoff(2)]
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["workers"]
    assert fake_ocm.count("POST", POOLS) == 3


def test_backoff_is_full_jitter_capped(fake_ocm: FakeOcm, client_options: dict[str, Any]) -> None:
    sleeps: list[float] = []
    draws = iter([1.0, 1.0, 1.0, 0.0, 1.0])  # the largest draw, then the smallest
    options = {**client_options, "sleep": sleeps.append, "random": lambda: next(draws)}
    fake_ocm.inject("GET", POOLS, *[Fault.unavailable(502)] * 5)
    with (
        OcmClient(
            fake_ocm.api_url,
            fake_ocm.sso_url,
            lambda: OFFLINE_TOKEN,
            max_attempts=6,
            backoff_base=1.0,
            backoff_cap=3.0,
            **options,
        ) as client,
    ):
        client.list_machine_pools(SINGLE_AZ)
    assert sleeps == [1.0, 2.0, 3.0, 0.0, 3.0]


def test_exhausted_attempts_give_a_clear_error(
    client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]
) -> None:
    fake_ocm.inject("GET", ONE_POOL, *[Fault.unavailable()] * RETRY_MAX_ATTEMPTS)
    with pytest.raises(OcmApiError) as caught:
        client.get_machine_pool(SINGLE_AZ, "gpu")
    error = caught.value
    assert error.status_code == 503
    assert error.attempts == RETRY_MAX_ATTEMPTS
    assert f"gave up after {RETRY_MAX_ATTEMPTS} attempts" in str(error)
    assert f"GET {POOLS}/gpu" in str(error)
    assert len(sleeps) == RETRY_MAX_ATTEMPTS - 1
    assert fake_ocm.count("GET", ONE_POOL) == RETRY_MAX_ATTEMPTS


def test_a_dropped_connection_is_retried(
    client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]
) -> None:
    client.create_machine_pool(SINGLE_AZ, small_body())
    fake_ocm.inject("GET", ONE_POOL, Fault.drop())
    assert client.get_machine_pool(SINGLE_AZ, "workers")["id"] == "workers"
    assert [r.status for r in fake_ocm.requests if r.method == "GET"] == [None, 200]
    assert sleeps == [backoff(1)]


def test_a_slow_answer_times_out_and_is_retried(
    client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]
) -> None:
    fake_ocm.inject("GET", POOLS, Fault.slow(2.0))
    assert client.list_machine_pools(SINGLE_AZ) == []
    assert fake_ocm.count("GET", POOLS) == 2
    assert sleeps == [backoff(1)]


def test_a_retried_post_after_a_timeout_meets_its_own_pool(
    client: OcmClient, fake_ocm: FakeOcm
) -> None:
    """The hazard the provider's create handles: the first POST was applied after all."""
    fake_ocm.inject("POST", POOLS, Fault.slow(2.0))
    with pytest.raises(OcmApiError) as caught:
        client.create_machine_pool(SINGLE_AZ, small_body())
    assert caught.value.status_code == 409
    assert caught.value.may_have_been_applied is True
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["workers"]


def test_sso_is_retried_too(client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]) -> None:
    fake_ocm.inject("POST", "/auth/.*", Fault.unavailable(), Fault.drop())
    assert client.list_machine_pools(SINGLE_AZ) == []
    assert fake_ocm.count("POST", "/auth/.*") == 3
    assert fake_ocm.token_exchanges == 1  # faulted attempts never reach the token handler
    assert sleeps == [backoff(1), backoff(2)]


def test_nothing_listening_is_a_connection_error(client_options: dict[str, Any]) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with (
        OcmClient(url, url + "/token", lambda: OFFLINE_TOKEN, **client_options) as client,
        pytest.raises(OcmConnectionError) as caught,
    ):
        client.list_machine_pools(SINGLE_AZ)
    message = str(caught.value)
    assert f"got no answer after {RETRY_MAX_ATTEMPTS} attempts" in message
    assert "ConnectError" in message and url in message
    assert caught.value.may_have_been_applied is False


def test_other_client_errors_are_not_retried(
    client: OcmClient, fake_ocm: FakeOcm, sleeps: list[float]
) -> None:
    with pytest.raises(OcmApiError):
        client.create_machine_pool(SINGLE_AZ, small_body(replicas=-1))
    assert fake_ocm.count("POST", POOLS) == 1
    assert sleeps == []


def test_gpu_body_is_accepted_as_is(client: OcmClient, fake_ocm: FakeOcm) -> None:
    created = client.create_machine_pool(SINGLE_AZ, gpu_body())
    assert created["aws"] == {"spot_market_options": {"max_price": 0.5}}
    assert created["availability_zones"] == ["us-east-1a"]  # filled in by OCM
