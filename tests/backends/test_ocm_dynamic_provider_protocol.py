"""The provider as the Pulumi engine drives it: over gRPC, in Pulumi's own provider process.

``python -m pulumi.dynamic`` is the process the engine starts for Python dynamic resources.
Talking to it directly proves what the in-process tests cannot: the provider unpickles
from ``__provider`` in a fresh interpreter, and every result survives Pulumi's property
serialization (a missing pool reads back as an empty id, which is how the engine learns
it is gone). No Pulumi CLI is needed; everything stays on loopback.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from nodepools.backends.rosa import machine_pool as rosa
from nodepools.backends.rosa.machine_pool import OcmMachinePoolProvider
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from tests.backends.ocm_testing import OFFLINE_TOKEN, SINGLE_AZ, gpu_body, inputs
from tests.fake_ocm import FakeOcm

REPO = Path(__file__).resolve().parents[2]
URN = "urn:pulumi:dev::nodepools::pulumi-python:dynamic/ocm:MachinePool::gpu"
PROVIDER = serialize_provider(
    OcmMachinePoolProvider({"timeout": 2.0, "connect_timeout": 2.0, "trust_env": False})
)


class ProviderProcess:
    """The dynamic provider process the engine would start, and a gRPC stub to it."""

    def __init__(self) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pulumi.dynamic"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr: str | None = None
        port = self.process.stdout.readline().strip()  # the provider announces its port first
        assert port.isdigit(), f"provider did not start: {self.stop()}"
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(self.channel).result(timeout=10)
        self.stub = provider_pb2_grpc.ResourceProviderStub(self.channel)
        self.stub.Configure(provider_pb2.ConfigureRequest(args=struct_pb2.Struct()))

    def stop(self) -> str:
        """End the process (it waits forever otherwise) and return what it wrote to stderr."""
        if self.stderr is None:
            if getattr(self, "channel", None) is not None:
                self.channel.close()
            self.process.kill()
            self.stderr = self.process.communicate(timeout=10)[1]
        return self.stderr


@pytest.fixture
def engine_side() -> Iterator[ProviderProcess]:
    provider = ProviderProcess()
    try:
        yield provider
    finally:
        provider.stop()


def struct(props: dict[str, Any], provider: str = PROVIDER) -> struct_pb2.Struct:
    # A private loop: asyncio.run would leave the thread without a current loop, which
    # Pulumi's mocks in later tests rely on.
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(
            rpc.serialize_properties({**props, "__provider": provider}, {})
        )
    finally:
        loop.close()


def plain(message: struct_pb2.Struct) -> dict[str, Any]:
    props = rpc.deserialize_properties(message)
    props.pop("__provider", None)
    return props


def test_lifecycle_through_the_dynamic_provider_process(engine_side, fake_ocm: FakeOcm) -> None:
    stub = engine_side.stub
    program = struct(
        inputs(fake_ocm, body=gpu_body(autoscaling={"min_replicas": 0.0, "max_replicas": 3.0}))
    )

    checked = stub.Check(provider_pb2.CheckRequest(urn=URN, olds=struct_pb2.Struct(), news=program))
    assert list(checked.failures) == []
    created = stub.Create(provider_pb2.CreateRequest(urn=URN, properties=checked.inputs))
    assert created.id == f"{SINGLE_AZ},gpu"
    outs = plain(created.properties)
    assert outs["pool_id"] == "gpu" and outs["body"]["autoscaling"]["max_replicas"] == 3
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["gpu"]

    read = stub.Read(
        provider_pb2.ReadRequest(id=created.id, urn=URN, properties=created.properties)
    )
    assert read.id == created.id

    relabeled = struct(inputs(fake_ocm, body=gpu_body(labels={"team": "infra"})))
    checked = stub.Check(
        provider_pb2.CheckRequest(urn=URN, olds=created.properties, news=relabeled)
    )
    diff = stub.Diff(
        provider_pb2.DiffRequest(id=created.id, urn=URN, olds=read.properties, news=checked.inputs)
    )
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME and list(diff.replaces) == []
    updated = stub.Update(
        provider_pb2.UpdateRequest(
            id=created.id, urn=URN, olds=read.properties, news=checked.inputs
        )
    )
    assert plain(updated.properties)["body"]["labels"] == {"team": "infra"}

    resized = struct(inputs(fake_ocm, body=gpu_body(instance_type="g5.xlarge")))
    diff = stub.Diff(
        provider_pb2.DiffRequest(id=created.id, urn=URN, olds=updated.properties, news=resized)
    )
    assert list(diff.replaces) == ["body.instance_type"] and diff.deleteBeforeReplace

    stub.Delete(provider_pb2.DeleteRequest(id=created.id, urn=URN, properties=updated.properties))
    assert fake_ocm.pools(SINGLE_AZ) == {}
    gone = stub.Read(
        provider_pb2.ReadRequest(id=created.id, urn=URN, properties=updated.properties)
    )
    assert gone.id == ""  # the engine drops the resource from the state
    stub.Delete(provider_pb2.DeleteRequest(id=created.id, urn=URN, properties=updated.properties))

    assert OFFLINE_TOKEN not in engine_side.stop()


def test_failures_reach_the_engine_without_the_token(engine_side, fake_ocm: FakeOcm) -> None:
    stub = engine_side.stub
    bad = struct(inputs(fake_ocm, token="offline-nope"))
    with pytest.raises(grpc.RpcError) as caught:
        stub.Create(provider_pb2.CreateRequest(urn=URN, properties=bad))
    details = caught.value.details()
    assert "OcmAuthenticationError" in details and "refused the offline token" in details
    assert "offline-nope" not in details and OFFLINE_TOKEN not in details

    invalid = struct(inputs(fake_ocm, body=gpu_body(id="Not_Valid")))
    checked = stub.Check(provider_pb2.CheckRequest(urn=URN, olds=struct_pb2.Struct(), news=invalid))
    assert [(f.property, f.reason.split(" must")[0]) for f in checked.failures] == [
        ("body.id", "'Not_Valid'")
    ]
    assert "offline-nope" not in engine_side.stop()


def test_an_import_never_reaches_the_provider(engine_side, fake_ocm: FakeOcm) -> None:
    """What `pulumi import` / `ResourceOptions(import_=...)` send: a Read with the id and
    URN alone, no state and no inputs. Pulumi's dynamic provider host looks for the pickled
    provider in those properties first and fails (pulumi/pulumi#16175), so the pool can't
    be imported, and neither the module nor its errors may say it can. Should this Read
    ever succeed, Pulumi has fixed it, and import support can be designed and documented."""
    fake_ocm.put_pool(SINGLE_AZ, gpu_body())
    with pytest.raises(grpc.RpcError) as caught:
        engine_side.stub.Read(provider_pb2.ReadRequest(id=f"{SINGLE_AZ},gpu", urn=URN))
    assert "__provider" in caught.value.details()
    assert fake_ocm.requests == []  # OCM never asked: our read never ran
    assert "Pulumi can't import it" in (rosa.__doc__ or "")
