"""The OCM token never leaks: not in the serialized provider, logs, errors, or the client."""

from __future__ import annotations

import base64
import json
import logging
import pickle
from typing import Any
from urllib.parse import quote

import dill
import pytest
from nodepools.backends.rosa.machine_pool import OcmMachinePoolProvider
from nodepools.backends.rosa.ocm_client import (
    OcmApiError,
    OcmAuthenticationError,
    OcmClient,
    secret_forms,
)
from pulumi.dynamic.dynamic import serialize_provider

from tests.backends.ocm_testing import OFFLINE_TOKEN, SINGLE_AZ, gpu_body, inputs
from tests.fake_ocm import FakeOcm, Fault

POOLS = rf"/api/clusters_mgmt/v1/clusters/{SINGLE_AZ}/machine_pools"
GPU = f"{SINGLE_AZ},gpu"


def issued_access_tokens(fake: FakeOcm) -> list[str]:
    return list(fake._access_tokens)


def secrets_of(fake: FakeOcm) -> list[str]:
    return [OFFLINE_TOKEN, *issued_access_tokens(fake)]


def paths_holding(value: Any, secret: str, path: tuple = ()) -> list[tuple]:
    """Every path in a nested structure whose value contains ``secret``."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in paths_holding(v, secret, (*path, k))]
    if isinstance(value, list | tuple):
        return [p for i, v in enumerate(value) for p in paths_holding(v, secret, (*path, i))]
    return [path] if secret in str(value) else []


def assert_no_secret_logged(records: list[logging.LogRecord], secrets: list[str]) -> None:
    assert records, "the test should have produced log records to inspect"
    for record in records:
        texts = [record.getMessage(), repr(record.args), record.exc_text or ""]
        for secret in secrets:
            assert not any(secret in text for text in texts), (record.name, record.getMessage())


def run_lifecycle(provider: OcmMachinePoolProvider, fake: FakeOcm) -> dict[str, Any]:
    """Create (through a timeout), refresh (through a 401), update, delete: every path."""
    fake.inject("POST", POOLS, Fault.throttle(retry_after=1), Fault.slow(2.0))
    news = provider.check({}, inputs(fake)).inputs
    created = provider.create(news)
    fake.revoke_access_tokens()
    refreshed = provider.read(created.id, created.outs)
    changed = provider.check({}, inputs(fake, body=gpu_body(labels={"a": "b"}))).inputs
    updated = provider.update(created.id, refreshed.outs, changed)
    provider.delete(created.id, updated.outs)
    return {"created": created.outs, "refreshed": refreshed.outs, "updated": updated.outs}


def test_serialized_provider_is_a_bare_class_reference() -> None:
    """What Pulumi stores as `__provider`: the class by name and the (empty) options."""
    serialized = base64.b64decode(serialize_provider(OcmMachinePoolProvider()))
    assert (
        b"nodepools.backends.rosa.machine_pool" in serialized
        and b"OcmMachinePoolProvider" in serialized
    )
    assert len(serialized) < 200  # no code, closures or clients pickled by value
    assert OFFLINE_TOKEN.encode() not in serialized


def test_provider_that_has_worked_still_serializes_without_token(
    client_options, fake_ocm: FakeOcm
) -> None:
    # Options without functions, so that dill can serialize it exactly as Pulumi would.
    provider = OcmMachinePoolProvider({"timeout": 2.0, "max_attempts": 2, "trust_env": False})
    news = provider.check({}, inputs(fake_ocm)).inputs
    created = provider.create(news)
    provider.delete(created.id, created.outs)
    serialized = base64.b64decode(serialize_provider(provider))
    assert vars(provider) == {
        "_client_options": {"timeout": 2.0, "max_attempts": 2, "trust_env": False}
    }
    for secret in secrets_of(fake_ocm):
        assert secret.encode() not in serialized


def test_token_only_ever_sits_under_the_token_output(client_options, fake_ocm: FakeOcm) -> None:
    outputs = run_lifecycle(OcmMachinePoolProvider(client_options), fake_ocm)
    for stage, outs in outputs.items():
        assert paths_holding(outs, OFFLINE_TOKEN) == [("token",)], stage
        for access_token in issued_access_tokens(fake_ocm):
            assert paths_holding(outs, access_token) == [], stage


def test_no_log_record_carries_a_token(caplog, client_options, fake_ocm: FakeOcm) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included
    run_lifecycle(OcmMachinePoolProvider(client_options), fake_ocm)
    with pytest.raises(OcmAuthenticationError):
        OcmMachinePoolProvider(client_options).create(inputs(fake_ocm, token="offline-nope"))
    assert any(r.name == "nodepools.backends.rosa.ocm_client" for r in caplog.records)
    assert_no_secret_logged(caplog.records, [*secrets_of(fake_ocm), "offline-nope"])


def test_error_messages_carry_no_token(client_options, fake_ocm: FakeOcm) -> None:
    provider = OcmMachinePoolProvider(client_options)
    errors: list[Exception] = []
    for props in (
        inputs(fake_ocm, token="offline-nope"),
        inputs(fake_ocm, cluster_id="nope"),
        inputs(fake_ocm, body=gpu_body(autoscaling=None)),
    ):
        with pytest.raises(Exception) as caught:
            provider.create(props)
        errors.append(caught.value)
    fake_ocm.inject("GET", POOLS + "/gpu", Fault.unavailable(401), Fault.unavailable(401))
    with pytest.raises(OcmAuthenticationError) as caught:
        provider.read(GPU, inputs(fake_ocm))
    errors.append(caught.value)
    for error in errors:
        text = f"{error!s} {error!r} {error.args!r}"
        for secret in [*secrets_of(fake_ocm), "offline-nope"]:
            assert secret not in text


class EchoingSso(FakeOcm):
    """An SSO that quotes the offered token back in its error (some do, in debug modes)."""

    def _token(self, method: str, raw: bytes):
        status, headers, body = super()._token(method, raw)
        if status == 400:
            body["error_description"] = f"Invalid refresh token {raw.decode()}"
        return status, headers, body


def test_an_echoed_token_is_redacted_from_the_error(client_options) -> None:
    with EchoingSso(offline_token=OFFLINE_TOKEN) as fake:
        fake.add_cluster(SINGLE_AZ)
        with (
            OcmClient(fake.api_url, fake.sso_url, lambda: "offline-nope", **client_options) as c,
            pytest.raises(OcmAuthenticationError) as caught,
        ):
            c.list_machine_pools(SINGLE_AZ)
    assert "Invalid refresh token" in str(caught.value)
    assert "offline-nope" not in str(caught.value)
    assert "<redacted>" in str(caught.value)


def test_an_api_error_echoing_the_access_token_is_redacted(client: OcmClient, fake_ocm) -> None:
    client.list_machine_pools(SINGLE_AZ)
    [access_token] = issued_access_tokens(fake_ocm)
    fake_ocm.put_pool(SINGLE_AZ, {"id": "x", "instance_type": "m5.xlarge", "replicas": 1})
    original = fake_ocm.handle

    def echoing(method, path, query, headers, raw):
        status, extra, body = original(method, path, query, headers, raw)
        if status == 409:
            body["reason"] += f" (request by {headers.get('Authorization')})"
        return status, extra, body

    fake_ocm.handle = echoing
    with pytest.raises(OcmApiError) as caught:
        client.create_machine_pool(
            SINGLE_AZ, {"id": "x", "instance_type": "m5.xlarge", "replicas": 1}
        )
    assert access_token not in str(caught.value)
    assert "Bearer <redacted>" in str(caught.value)


def test_the_client_shows_and_pickles_no_credential(client: OcmClient, fake_ocm) -> None:
    client.list_machine_pools(SINGLE_AZ)  # now it holds an access token
    [access_token] = issued_access_tokens(fake_ocm)
    shown = [repr(client), str(client), json.dumps(vars(client), default=repr)]
    for text in shown:
        assert OFFLINE_TOKEN not in text and access_token not in text
    assert "<redacted>" in shown[2]
    for dump in (pickle.dumps, dill.dumps):
        with pytest.raises(TypeError, match="cannot be pickled"):
            dump(client)


@pytest.mark.parametrize(
    "echo",
    [
        pytest.param(lambda raw, token: raw.decode(), id="form-encoded request body"),
        pytest.param(lambda raw, token: quote(token, safe="").lower(), id="lower-case percent"),
        pytest.param(lambda raw, token: json.dumps({"t": token}), id="json-escaped"),
        pytest.param(lambda raw, token: base64.b64encode(token.encode()).decode(), id="base64"),
        pytest.param(
            lambda raw, token: base64.urlsafe_b64encode(token.encode()).decode().rstrip("="),
            id="base64url",
        ),
    ],
)
def test_an_echoed_token_is_redacted_in_its_encoded_forms(client_options, echo) -> None:
    token = 'offline/n0pe+tok=en&x y"<z>'

    class Echoing(FakeOcm):
        def _token(self, method: str, raw: bytes):
            status, headers, body = super()._token(method, raw)
            if status == 400:
                body["error_description"] = f"Invalid refresh token {echo(raw, token)}"
            return status, headers, body

    with Echoing(offline_token=OFFLINE_TOKEN) as fake:
        fake.add_cluster(SINGLE_AZ)
        with (
            OcmClient(fake.api_url, fake.sso_url, lambda: token, **client_options) as c,
            pytest.raises(OcmAuthenticationError) as caught,
        ):
            c.list_machine_pools(SINGLE_AZ)
    message = str(caught.value)
    assert "Invalid refresh token" in message and "<redacted>" in message
    for form in secret_forms(token):
        assert form not in message, form
    assert "n0pe" not in message
