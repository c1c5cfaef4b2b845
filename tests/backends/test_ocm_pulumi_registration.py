"""OcmMachinePool under Pulumi's mock monitor: what the engine would receive on registration."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from google.protobuf import json_format
from nodepools.backends.rosa.machine_pool import INPUT_KEYS, RESOURCE_TYPE, OcmMachinePool
from pulumi.runtime import mocks, rpc

from tests.backends.ocm_testing import OFFLINE_TOKEN, SINGLE_AZ, gpu_body

SECRET_SIGNATURE = "1b47061264138c4ac30d75fd1eb44270"
SIGNATURE_KEY = rpc._special_sig_key


class EchoMocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list | None]:
        return {}, None


class CapturingMonitor(mocks.MockMonitor):
    """Keeps every raw RegisterResource request, exactly as the engine would get it."""

    def __init__(self, mock: pulumi.runtime.Mocks) -> None:
        super().__init__(mock)
        self.registrations: list[Any] = []

    def RegisterResource(self, request: Any) -> Any:
        self.registrations.append(request)
        return super().RegisterResource(request)


@pytest.fixture
def monitor() -> Iterator[CapturingMonitor]:
    # Pulumi's runtime runs on the thread's current loop; give it one of its own.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    mock = EchoMocks()
    capturing = CapturingMonitor(mock)
    pulumi.runtime.set_mocks(mock, preview=False, monitor=capturing)
    yield capturing
    loop.close()
    asyncio.set_event_loop(asyncio.new_event_loop())


def register(token: str | None) -> OcmMachinePool:
    return OcmMachinePool(
        "gpu",
        {
            "cluster_id": SINGLE_AZ,
            "body": gpu_body(),
            "multi_az": False,
            "token": token,
        },
    )


def plain_occurrences(value: Any, secret: str) -> int:
    """How often ``secret`` appears outside a secret-wrapped value."""
    if isinstance(value, dict):
        if value.get(SIGNATURE_KEY) == SECRET_SIGNATURE:
            return 0
        return sum(plain_occurrences(v, secret) for v in value.values())
    if isinstance(value, list):
        return sum(plain_occurrences(v, secret) for v in value)
    return int(isinstance(value, str) and secret in value)


def pool_registration(monitor: CapturingMonitor) -> Any:
    [request] = [r for r in monitor.registrations if r.type.endswith(":MachinePool")]
    return request


def test_the_token_is_registered_only_as_a_secret(monitor: CapturingMonitor) -> None:
    @pulumi.runtime.test
    def program():
        return register(OFFLINE_TOKEN).urn

    program()
    request = pool_registration(monitor)
    assert request.type == "pulumi-python:dynamic/ocm:MachinePool"
    registered = json_format.MessageToDict(request.object)

    assert registered["token"] == {SIGNATURE_KEY: SECRET_SIGNATURE, "value": OFFLINE_TOKEN}
    assert plain_occurrences(registered, OFFLINE_TOKEN) == 0
    everything_else = json_format.MessageToDict(request)
    everything_else.pop("object")
    assert OFFLINE_TOKEN not in json.dumps(everything_else)  # options, dependencies, ...
    assert list(request.additionalSecretOutputs) == ["token"]

    provider = registered["__provider"]
    assert provider[SIGNATURE_KEY] == SECRET_SIGNATURE
    assert OFFLINE_TOKEN.encode() not in base64.b64decode(provider["value"])

    assert registered["resource_type"] == RESOURCE_TYPE
    assert set(registered) - {"__provider", "pool_id", "href"} == set(INPUT_KEYS)
    assert registered.get("pool_id") is None and registered.get("href") is None


def test_a_secret_config_token_stays_secret(monitor: CapturingMonitor) -> None:
    @pulumi.runtime.test
    def program():
        return register(pulumi.Output.secret(OFFLINE_TOKEN)).urn

    program()
    registered = json_format.MessageToDict(pool_registration(monitor).object)
    assert registered["token"] == {SIGNATURE_KEY: SECRET_SIGNATURE, "value": OFFLINE_TOKEN}
    assert plain_occurrences(registered, OFFLINE_TOKEN) == 0


def test_without_a_token_nothing_is_registered_for_it(monitor: CapturingMonitor) -> None:
    @pulumi.runtime.test
    def program():
        return register(None).urn

    program()
    registered = json_format.MessageToDict(pool_registration(monitor).object)
    assert registered.get("token") is None
    assert registered["body"]["instance_type"] == "g4dn.xlarge"


def test_outputs_come_back_as_attributes(monitor: CapturingMonitor) -> None:
    @pulumi.runtime.test
    def program():
        pool = register(OFFLINE_TOKEN)

        def check(values: list[Any]) -> None:
            cluster_id, body = values
            assert cluster_id == SINGLE_AZ
            assert body["id"] == "gpu"

        return pulumi.Output.all(pool.cluster_id, pool.body).apply(check)

    program()
