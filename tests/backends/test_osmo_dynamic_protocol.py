"""OsmoConfig as the Pulumi engine drives it: over gRPC, in Pulumi's own dynamic provider
process (`python -m pulumi.dynamic`), fed the inputs the seed's PoolPlatforms registers.

`up` is what the engine does per resource: Check, then Create for a new one, or Diff (and
Update only when Diff says so) for one in the state. The fake OSMO must receive exactly the
seed's four documents on the first `up` and nothing on the second.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import struct_pb2
from nodepools import PoolPlatforms
from nodepools.backends.governance.osmo import OsmoConfigProvider
from nodepools.offline import run
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime.proto import provider_pb2

from tests.backends.test_ocm_dynamic_provider_protocol import ProviderProcess, plain
from tests.backends.test_ocm_dynamic_provider_protocol import struct as ocm_struct
from tests.backends.test_osmo_provider import OSMO_CONFIG, TOKEN, sent_documents
from tests.fake_osmo import running_fake_osmo
from tests.governance.osmo_seed import SENT_DOCUMENTS, seed_kwargs

PROVIDER = serialize_provider(
    OsmoConfigProvider({"timeout": 2.0, "connect_timeout": 2.0, "trust_env": False})
)


def struct(props: dict[str, Any]) -> struct_pb2.Struct:
    return ocm_struct(props, PROVIDER)


def program_inputs(url: str) -> list[tuple[str, dict[str, Any]]]:
    kwargs = {**seed_kwargs(), "service": {"url": url, "token": TOKEN}}
    capture = run(lambda: PoolPlatforms.from_osmo("shared-pool", **kwargs))
    return [
        (r.urn, {k: v for k, v in r.inputs.items() if not k.startswith("__")})
        for r in capture.by_type(OSMO_CONFIG)
    ]


@pytest.fixture
def engine_side():
    provider = ProviderProcess()
    try:
        yield provider
    finally:
        provider.stop()


def up(stub, resources, state: dict[str, Any]) -> None:
    for urn, inputs in resources:
        olds = state.get(urn)
        checked = stub.Check(
            provider_pb2.CheckRequest(
                urn=urn, olds=olds[1] if olds else struct_pb2.Struct(), news=struct(inputs)
            )
        )
        assert list(checked.failures) == []
        if olds is None:
            created = stub.Create(provider_pb2.CreateRequest(urn=urn, properties=checked.inputs))
            state[urn] = (created.id, created.properties)
            continue
        diff = stub.Diff(
            provider_pb2.DiffRequest(id=olds[0], urn=urn, olds=olds[1], news=checked.inputs)
        )
        if diff.changes == provider_pb2.DiffResponse.DIFF_SOME:
            updated = stub.Update(
                provider_pb2.UpdateRequest(id=olds[0], urn=urn, olds=olds[1], news=checked.inputs)
            )
            state[urn] = (olds[0], updated.properties)


def test_up_twice_and_destroy_through_the_dynamic_provider_process(engine_side):
    stub = engine_side.stub
    with running_fake_osmo(TOKEN) as fake:
        resources = program_inputs(fake.url)
        state: dict[str, Any] = {}
        up(stub, resources, state)
        assert sent_documents(fake) == SENT_DOCUMENTS
        assert len(fake.writes) == 4
        # The engine carries numbers as doubles; OSMO still gets the seed's integers.
        wire = b"".join(fake.raw_requests)
        assert b'"USER_CPU":1,' in wire and b'"USER_CPU":1.0' not in wire
        ids = sorted(resource_id for resource_id, _ in state.values())
        assert ids == sorted(f"{t}/{n}" for t, n in SENT_DOCUMENTS)
        for _, properties in state.values():
            assert plain(properties)["token"] == TOKEN  # the engine keeps it a secret output

        up(stub, program_inputs(fake.url), state)
        assert len(fake.writes) == 4, [w.path for w in fake.writes[4:]]

        for urn in reversed(list(state)):
            resource_id, properties = state.pop(urn)
            stub.Delete(provider_pb2.DeleteRequest(id=resource_id, urn=urn, properties=properties))
        assert fake.configs["pool"] == {} and fake.configs["role"] == {}
        assert [w.method for w in fake.writes[4:]] == ["DELETE"] * 4
    assert TOKEN not in engine_side.stop()


def test_osmo_refusals_reach_the_engine_quoted_and_without_the_token(engine_side):
    stub = engine_side.stub
    with running_fake_osmo(TOKEN) as fake:
        pool = [(u, i) for u, i in program_inputs(fake.url) if i["config_type"] == "POOL"]
        urn, inputs = pool[0]
        with pytest.raises(Exception) as caught:
            stub.Create(provider_pb2.CreateRequest(urn=urn, properties=struct(inputs)))
        details = caught.value.details()
        assert "Pod template l40s does not exist!" in details and TOKEN not in details
        bad = {**inputs, "token": "not-the-token"}
        with pytest.raises(Exception) as caught:
            stub.Create(provider_pb2.CreateRequest(urn=urn, properties=struct(bad)))
        details = caught.value.details()
        assert "OsmoAuthenticationError" in details and "not-the-token" not in details
    stderr = engine_side.stop()
    assert TOKEN not in stderr and "not-the-token" not in stderr
