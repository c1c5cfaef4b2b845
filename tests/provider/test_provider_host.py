"""The components as a Pulumi package: the provider host over real gRPC.

The provider runs in its own process (`python -m nodepools.provider <engine>`), as the
engine starts it for `pulumi package add`; this test plays the engine and the resource
monitor. GetSchema must describe every component; Construct of each component must
register the same children as the Python API, and bad input must come back as our error
with its path.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from nodepools.offline import run
from nodepools.provider.host import component_kinds
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from tests.provider.fake_engine import FakeEngine, serve

STARTUP_SECONDS = 60
RPC_SECONDS = 60

EKS = {
    "kind": "eks",
    "cluster_name": "ml",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-0a1b2c3d"],
}
OKE = {
    "kind": "oke",
    "cluster_id": "ocid1.cluster.oc1..example",
    "compartment_id": "ocid1.compartment.oc1..example",
    "image_id": "ocid1.image.oc1..example",
    "placements": [
        {"availability_domain": "Uocm:PHX-AD-1", "subnet_id": "ocid1.subnet.oc1..example"}
    ],
}
MI300X_POOL = {
    "name": "mi300x",
    "shape": "BM.GPU.MI300X.8",
    "size": 1,
    "gpus_per_node": 8,
    "selector": "selector_1",
}

# One valid input per component, written as a Python user would (snake_case).
SAMPLES: dict[str, dict[str, Any]] = {
    "AcceleratorStack": {
        "platform": "eks",
        "pools": [
            {
                "name": "gpu",
                "accelerator": {
                    "resource": "nvidia.com/gpu",
                    "count": 1,
                    "vendor": "nvidia",
                    "model": "A10G",
                },
                "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                "instance_types": ["g5.2xlarge"],
            }
        ],
        "nvidia": {"time_slicing": {"replicas": {"gpu": 2}}},
    },
    "MachinePool": {"cluster": EKS, "instance_type": "m5.xlarge", "replicas": 2},
    "GpuSpotPool": {"cluster": EKS, "instance_type": "g5.2xlarge", "labels": {"team": "ml"}},
    "SharedNodePool": {
        "cluster": OKE,
        "shape": "BM.GPU.MI300X.8",
        "size": 1,
        "boot_volume_gb": 500,
        "selector": "selector_1",
    },
    "KarpenterNodePool": {
        "capacity_types": ["on-demand"],
        "instance_types": ["trn1.2xlarge"],
        "limits": {"aws.amazon.com/neuron": 2, "cpu": 16, "memory": "64Gi"},
        "node_class": {
            "role": "KarpenterNodeRole-eks-workshop",
            "subnet_selector_tags": {"karpenter.sh/discovery": "eks-workshop"},
            "security_group_selector_tags": {"karpenter.sh/discovery": "eks-workshop"},
        },
    },
    "Recipe": {
        "image": "hashicorp/http-echo",
        "args": ["-text=corrino"],
        "port": 5678,
        "replicas": 2,
        "gpus": 1,
        "node_shape": "BM.GPU.MI300X.8",
        "shared_pool_selector": "selector_1",
        "pools": [MI300X_POOL],
    },
    "PoolQuotas": {
        "pools": [{"name": "default", "gpus": 80}],
        "departments": [
            {
                "name": "rnd",
                "projects": [
                    {"name": "research", "quotas": {"default": {"gpu": 20}}, "over_quota": True}
                ],
            }
        ],
    },
    "NodeRole": {"name_prefix": "ml-nodes"},
    "OkeClusterAutoscaler": {
        "cluster_id": "ocid1.cluster.oc1.phx.aaaa",
        "pools": [
            {
                "name": "gpu",
                "node_pool_id": "ocid1.nodepool.oc1.phx.aaaa",
                "min_nodes": 0,
                "max_nodes": 2,
            }
        ],
    },
    "PoolPlatforms": {
        "pool": {"name": "shared_simulation_training_pool"},
        "common_pod_template": {
            "containers": [{"name": "user", "image": "nvcr.io/nvidia/pytorch:24.08-py3"}]
        },
        "platforms": {
            "l40s_platform": {"node_selector": {"nvidia.com/gpu.product": "NVIDIA-L40S"}}
        },
        "default_platform": "l40s_platform",
    },
    "KueueQueues": {
        "resource_flavors": [{"name": "default-flavor"}],
        "cluster_queues": [
            {
                "name": "cluster-queue",
                "spec": {
                    "namespaceSelector": {},
                    "resourceGroups": [
                        {
                            "coveredResources": ["cpu"],
                            "flavors": [
                                {
                                    "name": "default-flavor",
                                    "resources": [{"name": "cpu", "nominalQuota": 9}],
                                }
                            ],
                        }
                    ],
                },
            }
        ],
        "local_queues": [
            {
                "name": "user-queue",
                "namespace": "default",
                "spec": {"clusterQueue": "cluster-queue"},
            }
        ],
    },
}


def _component_names() -> list[str]:
    """Every component: the fleet's and the standalone ones (`NodeRole`,
    `OkeClusterAutoscaler`: issue 29 item 13)."""
    return sorted(component.__name__ for component, _ in component_kinds())


def _field_names() -> set[str]:
    """Every field name of every args model a component takes (and the models they nest)."""
    from pydantic import BaseModel

    names: set[str] = set()
    seen: set[type] = set()

    def walk(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, info in model.model_fields.items():
            names.add(name)
            for candidate in _types_in(info.annotation):
                if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                    walk(candidate)

    for _, args_model in component_kinds():
        walk(args_model)
    return names


def _types_in(annotation: Any) -> Iterator[Any]:
    import typing

    yield annotation
    for arg in typing.get_args(annotation):
        yield from _types_in(arg)


def _camel(value: Any, fields: set[str]) -> Any:
    """What another language sends: field names camelCased, user map keys untouched."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in fields:
                head, *rest = key.split("_")
                key = head + "".join(part.title() for part in rest)
            out[key] = _camel(item, fields)
        return out
    if isinstance(value, list):
        return [_camel(item, fields) for item in value]
    return value


def _read_port(process: subprocess.Popen[bytes], stderr_path: str) -> int:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + STARTUP_SECONDS
    line = b""
    while not line.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not selector.select(timeout=remaining):
            break
        chunk = os.read(process.stdout.fileno(), 64)
        if not chunk:
            break
        line += chunk
    selector.close()
    if not line.strip().isdigit():
        process.kill()
        process.wait(timeout=10)
        pytest.fail(f"provider printed {line!r}; stderr:\n{Path(stderr_path).read_text()}")
    return int(line)


@pytest.fixture(scope="module")
def engine() -> Iterator[tuple[FakeEngine, str]]:
    fake = FakeEngine()
    server, address = serve(fake)
    yield fake, address
    server.stop(grace=None)


@pytest.fixture(scope="module")
def provider(engine: tuple[FakeEngine, str]) -> Iterator[Any]:
    _, address = engine
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    with tempfile.NamedTemporaryFile(prefix="provider-", suffix=".stderr") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-u", "-m", "nodepools.provider", address],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        try:
            port = _read_port(process, stderr.name)
            channel = grpc.insecure_channel(f"127.0.0.1:{port}")
            grpc.channel_ready_future(channel).result(timeout=RPC_SECONDS)
            yield provider_pb2_grpc.ResourceProviderStub(channel)
            channel.close()
        finally:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def schema(provider: Any) -> dict[str, Any]:
    response = provider.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=RPC_SECONDS)
    return json.loads(response.schema)


def test_schema_has_every_component_with_typed_described_inputs_and_outputs(schema):
    assert schema["name"] == "nodepools"
    tokens = sorted(schema["resources"])
    assert tokens == [f"nodepools:index:{name}" for name in _component_names()]
    for token, resource in schema["resources"].items():
        assert resource["isComponent"] is True
        assert resource.get("description"), token
        inputs = resource["inputProperties"]
        assert inputs, token
        for name, prop in inputs.items():
            assert prop.get("description"), f"{token}.{name} has no description"
            assert "type" in prop or "$ref" in prop, f"{token}.{name} has no type"
        assert resource["properties"], f"{token} has no outputs"
    pool = schema["resources"]["nodepools:index:MachinePool"]
    assert pool["inputProperties"]["instanceType"]["type"] == "string"
    assert pool["inputProperties"]["replicas"]["type"] == "integer"
    assert pool["inputProperties"]["cluster"]["$ref"] == "#/types/nodepools:index:Cluster"
    # Exactly one of `instanceType` / `instanceTypes` (checked by the spec): neither required.
    assert set(pool["requiredInputs"]) >= {"cluster"}
    assert not {"instanceType", "instanceTypes"} & set(pool["requiredInputs"])
    assert pool["inputProperties"]["instanceTypes"]["type"] == "array"
    assert {"poolName", "poolId", "schedulingInfo", "schedulingInfoYaml"} <= set(pool["properties"])
    shared = schema["resources"]["nodepools:index:SharedNodePool"]["properties"]
    assert shared["gpusPerNode"]["type"] == "integer"
    cluster = schema["types"]["nodepools:index:Cluster"]
    assert cluster["required"] == ["kind"]
    assert {"clusterName", "clusterId", "compartmentId", "multiAz"} <= set(cluster["properties"])


def test_every_component_has_a_construct_sample():
    assert sorted(SAMPLES) == _component_names()


def _construct(provider: Any, engine: FakeEngine, component: str, name: str, inputs: dict) -> Any:
    struct = struct_pb2.Struct()
    struct.update(inputs)
    request = provider_pb2.ConstructRequest(
        project=engine.project,
        stack=engine.stack,
        type=f"nodepools:index:{component}",
        name=name,
        inputs=struct,
        monitorEndpoint=_ADDRESS[0],
        dryRun=False,
    )
    return provider.Construct(request, timeout=RPC_SECONDS)


_ADDRESS: list[str] = []


@pytest.mark.parametrize("component", sorted(SAMPLES))
def test_construct_registers_what_the_python_api_registers(provider, engine, component):
    fake, address = engine
    _ADDRESS[:] = [address]
    name = f"ml-{component.lower()}"
    before = len(fake.registrations)
    response = _construct(
        provider, fake, component, name, _camel(SAMPLES[component], _field_names())
    )
    assert response.urn.endswith(f"nodepools:index:{component}::{name}")
    via_provider = sorted((r.type, r.name) for r in fake.registrations[before:])

    module = {c.__name__: c for c, _ in component_kinds()}[component]
    capture = run(lambda: module(name, SAMPLES[component]))
    via_python = sorted((r.type, r.name) for r in capture.resources)
    assert via_provider == via_python
    assert len(via_provider) > 1  # the component and at least one child


def test_construct_with_invalid_input_returns_our_error_with_its_path(provider, engine):
    fake, address = engine
    _ADDRESS[:] = [address]
    bad = _camel({**SAMPLES["MachinePool"], "replicas": -1}, _field_names())
    before = len(fake.registrations)
    with pytest.raises(grpc.RpcError) as raised:
        _construct(provider, fake, "MachinePool", "bad-pool", bad)
    message = raised.value.details()
    assert "replicas" in message and "-1" in message, message
    # nothing of the bad pool was registered
    assert [r for r in fake.registrations[before:] if r.name.startswith("bad-pool")] == []


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _yaml_programs() -> list[Path]:
    return sorted(p for p in EXAMPLES.glob("*/Pulumi.yaml") if "runtime: yaml" in p.read_text())


def _check_against_schema(value: Any, prop: dict, schema: dict, path: str) -> list[str]:
    """What a Pulumi YAML type check would refuse: unknown properties, wrong types,
    missing required ones. `${...}` interpolations are taken as strings."""
    problems: list[str] = []
    if "$ref" in prop:
        ref = prop["$ref"]
        if ref == "pulumi.json#/Any":
            return problems
        type_def = schema["types"][ref.removeprefix("#/types/")]
        return _check_against_schema(value, type_def, schema, path)
    kind = prop.get("type")
    if kind == "object" and "properties" in prop:
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {value!r}"]
        for key, item in value.items():
            if key not in prop["properties"]:
                problems.append(f"{path}.{key}: not a property of this type")
            else:
                problems += _check_against_schema(
                    item, prop["properties"][key], schema, f"{path}.{key}"
                )
        problems += [
            f"{path}.{key}: required" for key in prop.get("required", []) if key not in value
        ]
    elif kind == "object":
        if not isinstance(value, dict):
            return [f"{path}: expected a map, got {value!r}"]
        inner = prop.get("additionalProperties", {})
        for key, item in value.items():
            problems += _check_against_schema(item, inner, schema, f"{path}.{key}")
    elif kind == "array":
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {value!r}"]
        for index, item in enumerate(value):
            problems += _check_against_schema(
                item, prop.get("items", {}), schema, f"{path}[{index}]"
            )
    elif kind == "integer" and not (isinstance(value, int) and not isinstance(value, bool)):
        problems.append(f"{path}: expected an integer, got {value!r}")
    elif kind == "number" and not isinstance(value, int | float):
        problems.append(f"{path}: expected a number, got {value!r}")
    elif kind == "boolean" and not isinstance(value, bool):
        problems.append(f"{path}: expected a boolean, got {value!r}")
    elif kind == "string" and not isinstance(value, str):
        problems.append(f"{path}: expected a string, got {value!r}")
    return problems


def _interpolate(value: Any, config: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("${") and value.endswith("}"):
        return config[value[2:-1]]
    if isinstance(value, dict):
        return {k: _interpolate(v, config) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, config) for v in value]
    return value


def test_yaml_examples_exist():
    assert _yaml_programs(), "no Pulumi YAML example program under examples/"


@pytest.mark.parametrize("program", _yaml_programs(), ids=lambda p: p.parent.name)
def test_yaml_example_type_checks_against_the_schema_and_constructs(
    program, schema, provider, engine
):
    import yaml

    document = yaml.safe_load(program.read_text())
    assert document["packages"]["nodepools"] == "../../provider"
    assert (program.parent / document["packages"]["nodepools"] / "PulumiPlugin.yaml").is_file()
    config = {key: spec.get("default") for key, spec in document.get("config", {}).items()}
    fake, address = engine
    _ADDRESS[:] = [address]
    for name, resource in document["resources"].items():
        token = resource["type"]
        assert token in schema["resources"], f"{name}: unknown type {token}"
        definition = schema["resources"][token]
        props = resource.get("properties", {})
        as_type = {
            "type": "object",
            "properties": definition["inputProperties"],
            "required": definition.get("requiredInputs", []),
        }
        assert _check_against_schema(props, as_type, schema, name) == []
        component = token.rsplit(":", 1)[-1]
        response = _construct(provider, fake, component, name, _interpolate(props, config))
        assert response.urn.endswith(f"{token}::{name}")
    for output, expression in document.get("outputs", {}).items():
        resource, _, prop = expression[2:-1].partition(".")
        token = document["resources"][resource]["type"]
        assert prop in schema["resources"][token]["properties"], f"{output}: {expression}"


def _pulumi_cli() -> str | None:
    import shutil

    return shutil.which("pulumi")


@pytest.mark.skipif(_pulumi_cli() is None, reason="the Pulumi CLI is not on PATH")
def test_pulumi_package_get_schema_reads_the_plugin(tmp_path):
    plugin = Path(__file__).resolve().parents[2] / "provider"
    out = subprocess.run(
        [_pulumi_cli(), "package", "get-schema", str(plugin)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    names = sorted(json.loads(out.stdout)["resources"])
    assert names == [f"nodepools:index:{name}" for name in _component_names()]


def test_the_standalone_components_are_in_the_schema_and_the_reference(schema):
    """Issue 29 item 13: `NodeRole` and `OkeClusterAutoscaler` are components a program
    builds beside the fleet's sections; other languages and the reference name them too."""
    reference = (Path(__file__).resolve().parents[2] / "docs" / "reference.md").read_text()
    for name in ("NodeRole", "OkeClusterAutoscaler"):
        assert f"nodepools:index:{name}" in schema["resources"]
        assert f"## {name}\n" in reference
    autoscaler = schema["resources"]["nodepools:index:OkeClusterAutoscaler"]
    assert {"clusterId", "pools", "addon"} <= set(autoscaler["inputProperties"])
    assert {"nodes", "addonId"} <= set(autoscaler["properties"])


def test_the_schema_reads_each_types_source_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's analyzer caches the docstrings it finds but not a failed lookup: without our
    analyzer, the types made at run time read and parsed the host's source once per property
    (867 times, most of the provider's start-up)."""
    import inspect
    from collections import Counter

    from nodepools.provider.host import NodepoolsProvider

    looked_up: Counter[str] = Counter()
    original = inspect.getsource

    def counting(obj: Any) -> str:
        looked_up[getattr(obj, "__qualname__", repr(obj))] += 1
        return original(obj)

    monkeypatch.setattr(inspect, "getsource", counting)
    NodepoolsProvider("0.0.0")
    assert looked_up, "the analyzer no longer reads sources: this test has nothing to count"
    assert max(looked_up.values()) == 1, looked_up.most_common(3)
