"""OsmoConfig against a fake OSMO on loopback: the seed's documents on `up`, nothing on a
second `up`, updates, destroy, retries, OSMO's errors quoted, and the token kept secret."""

from __future__ import annotations

import base64
import copy
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from nodepools import PoolPlatforms
from nodepools.backends.governance.osmo import OsmoConfigProvider, resolve_token
from nodepools.backends.governance.osmo_client import (
    OsmoApiError,
    OsmoAuthenticationError,
    OsmoClient,
    OsmoConnectionError,
)
from nodepools.backends.http_retry import RetryPolicy
from nodepools.offline import run
from nodepools.planning.artifacts import write_artifacts
from pulumi.dynamic.dynamic import serialize_provider

from tests.fake_ocm import Fault
from tests.fake_osmo import FakeOsmo, running_fake_osmo
from tests.governance.osmo_seed import POOL_FILE, SENT_DOCUMENTS, SENT_ROLE, seed_kwargs

# URL-unsafe characters on purpose: an echo of the encoded form must be redacted too.
TOKEN = "osmo-access+token/with=odd&chars"
OSMO_CONFIG = "pulumi-python:dynamic/osmo:Config"
POOL_PATH = "/api/configs/pool/shared_simulation_training_pool"


@pytest.fixture
def fake() -> Iterator[FakeOsmo]:
    with running_fake_osmo(TOKEN) as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def provider(sleeps: list[float]) -> OsmoConfigProvider:
    policy = RetryPolicy(max_attempts=3, sleep=sleeps.append, random=lambda: 0.5)
    return OsmoConfigProvider(
        {"policy": policy, "timeout": 2.0, "connect_timeout": 2.0, "trust_env": False}
    )


def registrations(fake: FakeOsmo, **changes: Any) -> list[dict[str, Any]]:
    """The OsmoConfig inputs the seed's PoolPlatforms registers, in registration order."""
    kwargs = {**seed_kwargs(), "service": {"url": fake.url, "token": TOKEN}, **changes}
    capture = run(lambda: PoolPlatforms.from_osmo("shared-pool", **kwargs))
    return [
        {k: v for k, v in r.inputs.items() if not k.startswith("__")}
        for r in capture.by_type(OSMO_CONFIG)
    ]


def up(provider: OsmoConfigProvider, desired: list[dict[str, Any]], state: dict[str, Any]):
    """What `pulumi up` does with each resource: check, then create, or diff and update."""
    for inputs in desired:
        news = provider.check({}, inputs).inputs
        key = f"{news['config_type']}/{news['config_name']}"
        if key not in state:
            created = provider.create(news)
            state[created.id] = created.outs
            continue
        if provider.diff(key, state[key], news).changes:
            state[key] = provider.update(key, state[key], news).outs


def destroy(provider: OsmoConfigProvider, state: dict[str, Any]) -> None:
    for key in reversed(list(state)):
        provider.delete(key, state.pop(key))


def sent_documents(fake: FakeOsmo) -> dict[tuple[str, str], Any]:
    found = {}
    for write in fake.writes:
        if write.method != "PUT":
            continue
        kind = write.path.split("/")[3].upper()
        payload = write.body.get("configs", write.body.get("configs_dict"))
        name = write.path.split("/")[4] if kind in ("POOL", "ROLE") else next(iter(payload))
        found[(kind, name)] = payload
    return found


def test_up_sends_exactly_the_seed_documents_and_a_second_up_nothing(provider, fake):
    state: dict[str, Any] = {}
    up(provider, registrations(fake), state)
    assert sent_documents(fake) == SENT_DOCUMENTS
    assert len(fake.writes) == 4
    assert fake.configs["pool"]["shared_simulation_training_pool"] == POOL_FILE
    # The seed's legacy role, translated, is a role OSMO accepts (the fake refuses one
    # without `policies`, as OSMO's `Role` does).
    assert fake.configs["role"]["osmo-shared"] == SENT_ROLE
    # The integers stay integers on the wire (the engine turns numbers into floats).
    assert b'"USER_CPU":1,' in b"".join(fake.raw_requests)
    up(provider, registrations(fake), state)
    assert len(fake.writes) == 4, fake.writes[4:]


def test_a_changed_document_is_put_again_and_destroy_deletes_everything(provider, fake):
    state: dict[str, Any] = {}
    up(provider, registrations(fake), state)
    pool = copy.deepcopy(POOL_FILE)
    pool["description"] = "Simulation, training and evaluation"
    up(provider, registrations(fake, pool=pool), state)
    assert [(w.method, w.path) for w in fake.writes[4:]] == [("PUT", POOL_PATH)]
    assert fake.configs["pool"]["shared_simulation_training_pool"]["description"] == (
        "Simulation, training and evaluation"
    )
    destroy(provider, state)
    assert fake.configs["pool"] == {} and fake.configs["role"] == {}
    assert set(fake.configs["pod_template"]) == {"default_ctrl", "default_user"}
    # Deleting what is already gone is fine.
    provider.delete("POOL/shared_simulation_training_pool", {"url": fake.url, "token": TOKEN})


def test_read_reports_drift_and_a_deleted_config(provider, fake):
    state: dict[str, Any] = {}
    up(provider, registrations(fake), state)
    key = "POD_TEMPLATE/l40s"
    fake.configs["pod_template"]["l40s"] = {"spec": {"nodeSelector": {"x": "y"}}}
    read = provider.read(key, state[key])
    assert read.outs["document"] == {"l40s": {"spec": {"nodeSelector": {"x": "y"}}}}
    pool = provider.read(
        "POOL/shared_simulation_training_pool", state["POOL/shared_simulation_training_pool"]
    )
    assert pool.outs["document"] == POOL_FILE
    del fake.configs["role"]["osmo-shared"]
    assert provider.read("ROLE/osmo-shared", state["ROLE/osmo-shared"]).id == ""


def test_throttling_and_server_errors_are_retried_with_backoff(provider, fake, sleeps):
    fake.inject(
        "PUT", "/api/configs/pod_template", Fault.throttle(retry_after=2), Fault.unavailable(502)
    )
    fake.inject("PUT", POOL_PATH, Fault.drop())
    state: dict[str, Any] = {}
    up(provider, registrations(fake), state)
    assert sent_documents(fake) == SENT_DOCUMENTS
    # Retry-After 2 honoured; then the jittered backoff: random 0.5 x ceiling, the ceiling
    # 0.5 s doubling per failed attempt (second attempt of the template: 1 s; first of the
    # pool: 0.5 s).
    assert sleeps == [2.0, 0.5, 0.25]


def test_osmo_errors_are_quoted(provider, fake):
    pool_only = [r for r in registrations(fake) if r["config_type"] == "POOL"]
    with pytest.raises(OsmoApiError) as caught:
        up(provider, pool_only, {})
    assert "HTTP 400 USER: Pod template l40s does not exist!" in str(caught.value)
    fake.inject("PUT", POOL_PATH, *[Fault.unavailable(503)] * 3)
    with pytest.raises(OsmoApiError) as caught:
        up(provider, pool_only, {})
    assert "HTTP 503: Injected fault 503; gave up after 3 attempts" in str(caught.value)


def test_no_answer_at_all_is_a_connection_error(provider, fake):
    fake.inject("PUT", POOL_PATH, Fault.drop(), Fault.drop(), Fault.drop())
    pool_only = [r for r in registrations(fake) if r["config_type"] == "POOL"]
    with pytest.raises(OsmoConnectionError) as caught:
        up(provider, pool_only, {})
    assert caught.value.may_have_been_applied


def test_a_revoked_session_is_renewed_once(provider, fake):
    state: dict[str, Any] = {}
    up(provider, [r for r in registrations(fake) if r["config_name"] == "a100"], state)
    fake.revoke_sessions()
    with OsmoClient(fake.url, lambda: TOKEN, trust_env=False) as client:
        client._jwt = None
        assert (
            client.get_config("POD_TEMPLATE", "a100")
            == SENT_DOCUMENTS[("POD_TEMPLATE", "a100")]["a100"]
        )
    assert fake.token_exchanges >= 2


def test_the_token_never_appears_in_plaintext(provider, fake, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    kwargs = {**seed_kwargs(), "service": {"url": fake.url, "token": TOKEN}}
    capture = run(lambda: PoolPlatforms.from_osmo("shared-pool", **kwargs))
    # Inputs: registered as a secret, so plans and artifacts redact it.
    for resource in capture.by_type(OSMO_CONFIG):
        assert "token" in resource.secret_paths
    written = write_artifacts(capture, tmp_path)
    assert written and all(TOKEN not in p.read_text() for p in written)
    component = capture.components(PoolPlatforms.TYPE)[0]
    assert TOKEN not in repr(component.inputs) and TOKEN not in repr(capture.outputs_of(component))
    # State: only under `token` (which the resource declares a secret output).
    state: dict[str, Any] = {}
    up(provider, registrations(fake), state)
    for outs in state.values():
        assert [k for k, v in outs.items() if TOKEN in repr(v)] == ["token"]
    # Errors, even when OSMO echoes the token back (here, URL-encoded).
    errors: list[Exception] = []
    bad = {**registrations(fake)[0], "token": TOKEN + "x"}
    with pytest.raises(OsmoAuthenticationError) as caught:
        provider.create(bad)
    errors.append(caught.value)
    fake.inject("PUT", POOL_PATH, Fault.unavailable(401), Fault.unavailable(401))
    with pytest.raises(OsmoAuthenticationError) as caught:
        up(provider, [r for r in registrations(fake) if r["config_type"] == "POOL"], {})
    errors.append(caught.value)
    for error in errors:
        assert TOKEN not in f"{error} {error!r} {error.args!r}"
    # Logs.
    assert caplog.records
    for record in caplog.records:
        assert TOKEN not in record.getMessage() and TOKEN not in repr(record.args)
    # The pickled provider (what Pulumi stores as `__provider`).
    plain = OsmoConfigProvider({"timeout": 2.0, "trust_env": False})
    up(plain, registrations(fake), {})
    assert TOKEN.encode() not in base64.b64decode(serialize_provider(plain))
    with OsmoClient(fake.url, lambda: TOKEN) as client, pytest.raises(TypeError):
        import pickle

        pickle.dumps(client)


def test_the_environment_provides_url_and_token(provider, fake, monkeypatch):
    monkeypatch.setenv("OSMO_URL", fake.url)
    monkeypatch.setenv("OSMO_TOKEN", TOKEN)
    kwargs = seed_kwargs()
    capture = run(lambda: PoolPlatforms.from_osmo("shared-pool", **kwargs))
    desired = [
        {k: v for k, v in r.inputs.items() if not k.startswith("__")}
        for r in capture.by_type(OSMO_CONFIG)
    ]
    assert all(r.get("token") is None and r.get("url") is None for r in desired)
    up(provider, desired, {})
    assert sent_documents(fake) == SENT_DOCUMENTS
    monkeypatch.delenv("OSMO_TOKEN")
    with pytest.raises(OsmoAuthenticationError, match="OSMO_TOKEN"):
        resolve_token(None)


def test_check_refuses_bad_inputs(provider):
    result = provider.check(
        {},
        {
            "config_type": "BACKEND",
            "config_name": "",
            "document": None,
            "url": "http://example.com",
        },
    )
    assert sorted(f.property for f in result.failures) == [
        "config_name",
        "config_type",
        "document",
        "url",
    ]


def test_the_fake_refuses_a_role_osmo_refuses(fake):
    """OSMO's `Role` requires `policies` of semantic actions: the seed's legacy role as
    written (what plan sent before the translation) is refused, the translation accepted."""
    from tests.governance.osmo_seed import ROLE_FILE

    with OsmoClient(fake.url, lambda: TOKEN, trust_env=False) as client:
        with pytest.raises(OsmoApiError, match="policies"):
            client.put_config("ROLE", "osmo-shared", ROLE_FILE)
        for policy in ({"actions": ["Workflow:create"]}, {"effect": "Maybe", "actions": []}):
            with pytest.raises(OsmoApiError):
                client.put_config("ROLE", "osmo-shared", {**SENT_ROLE, "policies": [policy]})
        client.put_config("ROLE", "osmo-shared", SENT_ROLE)
    assert fake.configs["role"] == {"osmo-shared": SENT_ROLE}


def test_check_refuses_a_document_osmo_would_refuse(provider):
    """The provider checks each document against the facts' rules before any request: a
    legacy-only role (what older plans sent) or a pool with a non-integer GPU guarantee."""
    from tests.governance.osmo_seed import ROLE_FILE

    base = {"url": "https://osmo.example.com", "token": TOKEN}
    role = provider.check(
        {}, {**base, "config_type": "ROLE", "config_name": "osmo-shared", "document": ROLE_FILE}
    )
    assert [f.property for f in role.failures] == ["document.policies"]
    pool = {**POOL_FILE, "resources": {"gpu": {"guarantee": 4.0, "maximum": "8"}}}
    result = provider.check(
        {}, {**base, "config_type": "POOL", "config_name": POOL_FILE["name"], "document": pool}
    )
    assert [f.property for f in result.failures] == ["document.resources.gpu.maximum"]
    ok = {**base, "config_type": "ROLE", "config_name": "osmo-shared", "document": SENT_ROLE}
    assert provider.check({}, ok).failures == []
