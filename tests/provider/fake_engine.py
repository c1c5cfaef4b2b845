"""A loopback engine and resource monitor for a provider under test, over real gRPC.

The provider process reaches the engine for logs and the monitor to register the children
of a component it constructs, as it would under `pulumi up`. The monitor answers like
plain mocks (outputs = inputs) and records every registration.
"""

from __future__ import annotations

import threading
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import (
    engine_pb2,
    engine_pb2_grpc,
    resource_pb2,
    resource_pb2_grpc,
)

_FEATURES = {"secrets", "resourceReferences", "outputValues", "deletedWith", "aliasSpecs"}


@dataclass
class Registration:
    type: str
    name: str
    custom: bool
    parent: str
    inputs: dict[str, Any]


@dataclass
class FakeEngine(engine_pb2_grpc.EngineServicer, resource_pb2_grpc.ResourceMonitorServicer):
    project: str = "provider-test"
    stack: str = "test"
    registrations: list[Registration] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # engine
    def Log(self, request: Any, context: Any) -> empty_pb2.Empty:
        with self._lock:
            self.logs.append(request.message)
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> Any:
        return engine_pb2.GetRootResourceResponse(urn="")

    def SetRootResource(self, request: Any, context: Any) -> Any:
        return engine_pb2.SetRootResourceResponse()

    # resource monitor
    def SupportsFeature(self, request: Any, context: Any) -> Any:
        return resource_pb2.SupportsFeatureResponse(hasSupport=request.id in _FEATURES)

    def GetDeploymentInfo(self, request: Any, context: Any) -> Any:
        return resource_pb2.DeploymentInfo(
            supportedFeatures=[
                resource_pb2.RESOURCE_MONITOR_FEATURE_SECRETS,
                resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES,
                resource_pb2.RESOURCE_MONITOR_FEATURE_OUTPUT_VALUES,
                resource_pb2.RESOURCE_MONITOR_FEATURE_ALIAS_SPECS,
                resource_pb2.RESOURCE_MONITOR_FEATURE_DELETED_WITH,
            ]
        )

    def Invoke(self, request: Any, context: Any) -> Any:
        return resource_pb2.InvokeResponse(**{"return": struct_pb2.Struct()})

    def RegisterResource(self, request: Any, context: Any) -> Any:
        from google.protobuf import json_format

        parent_type = ""
        if request.parent:
            parent_type = request.parent.split("::")[-2].split("$")[-1] + "$"
        urn = (
            f"urn:pulumi:{self.stack}::{self.project}::{parent_type}{request.type}::{request.name}"
        )
        with self._lock:
            self.registrations.append(
                Registration(
                    type=request.type,
                    name=request.name,
                    custom=request.custom,
                    parent=request.parent,
                    inputs=json_format.MessageToDict(request.object),
                )
            )
        return resource_pb2.RegisterResourceResponse(
            urn=urn,
            id=f"{request.name}-id" if request.custom else "",
            object=request.object,
        )

    def RegisterResourceOutputs(self, request: Any, context: Any) -> empty_pb2.Empty:
        return empty_pb2.Empty()


def serve(engine: FakeEngine) -> tuple[grpc.Server, str]:
    """Start `engine` on an ephemeral loopback port; returns the server and its address."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    engine_pb2_grpc.add_EngineServicer_to_server(engine, server)
    resource_pb2_grpc.add_ResourceMonitorServicer_to_server(engine, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}"
