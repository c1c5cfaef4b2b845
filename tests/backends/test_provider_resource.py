"""Node groups, launch templates, security and placement groups, node roles, OKE node pools
and add-ons, Kubernetes objects, and the EKS invokes reach the engine exactly as the
provider SDK's typed classes would send them (nodepools.backends.provider_resource).

Every engine-matrix program and example stack runs twice: as shipped, and with each
`ProviderResource` made by the typed SDK class instead, fed the same inputs with their
names turned back into the SDK's Python names through the SDK's own metadata (a name the
SDK does not have fails the swap). Every RegisterResource request of the two runs must be
equal, field for field, in a preview and in a plain-mocks run (outputs = inputs).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import typing
from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi._types as pulumi_types
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pulumi_oci as oci
import pytest
from google.protobuf import json_format
from nodepools.backends import provider_resource
from nodepools.backends.eks.asg_tag import AutoscalingGroupTag
from nodepools.backends.provider_resource import (
    Ec2LaunchTemplate,
    Ec2PlacementGroup,
    Ec2SecurityGroup,
    EksNodeGroup,
    HelmRelease,
    IamRole,
    IamRolePolicyAttachment,
    KubernetesCustomObject,
    KubernetesObject,
    OkeAddon,
    OkeNodePool,
    ProviderResource,
    VpcSecurityGroupEgressRule,
    VpcSecurityGroupIngressRule,
    sdk_invoke,
    sdk_invoke_defaults,
)
from nodepools.offline import run
from nodepools.offline.engine import CapturingMonitor

from benchmarks.instructions import plan_stacks_code, sdks_loaded
from tests.engines.components import COMPONENTS
from tests.engines.mocks import STACKS, PlainMocks, example_stacks, run_on, stack_config

# Where the request was made from: the two programs differ there by construction.
CALL_SITE = ("sourcePosition", "stackTrace", "parentStackTraceHandle")
SDK_CLASSES: dict[type[ProviderResource], Any] = {
    AutoscalingGroupTag: aws.autoscaling.Tag,
    EksNodeGroup: aws.eks.NodeGroup,
    OkeNodePool: oci.containerengine.NodePool,
    OkeAddon: oci.containerengine.Addon,
    KubernetesCustomObject: k8s.apiextensions.CustomResource,
    Ec2LaunchTemplate: aws.ec2.LaunchTemplate,
    Ec2SecurityGroup: aws.ec2.SecurityGroup,
    Ec2PlacementGroup: aws.ec2.PlacementGroup,
    VpcSecurityGroupIngressRule: aws.vpc.SecurityGroupIngressRule,
    VpcSecurityGroupEgressRule: aws.vpc.SecurityGroupEgressRule,
    IamRole: aws.iam.Role,
    IamRolePolicyAttachment: aws.iam.RolePolicyAttachment,
    HelmRelease: k8s.helm.v3.Release,
    # The class depends on the kind: `_built_in_kind`.
    KubernetesObject: None,
}


def _built_in_kind(api_version: str, kind: str) -> Any:
    """The typed pulumi_kubernetes class of a built-in kind: `pulumi_kubernetes.<group>.<version>`
    (`core` for "v1", a group's first label otherwise: "rbac" for rbac.authorization.k8s.io)."""
    group, _, version = api_version.rpartition("/")
    module = importlib.import_module(f"pulumi_kubernetes.{group.split('.')[0] or 'core'}.{version}")
    return getattr(module, kind)


def python_names(value: Any, expected: Any) -> Any:
    """`value` (camelCase names) with the names of SDK input type `expected` turned back
    into the SDK's Python names; KeyError for a name the type does not have."""
    expected = pulumi_types.unwrap_type(expected)
    if value is None or isinstance(value, pulumi.Output):
        return value
    if isinstance(expected, type) and pulumi_types.is_input_type(expected):
        to_python = {v: k for k, v in pulumi_types.input_type_py_to_pulumi_names(expected).items()}
        types = pulumi_types.input_type_types(expected)
        return {
            to_python[key]: python_names(item, types[key])
            for key, item in typing.cast("Mapping[str, Any]", value).items()
        }
    origin = typing.get_origin(expected)
    if origin in (typing.Sequence, list) or str(origin) == "<class 'collections.abc.Sequence'>":
        [item_type] = typing.get_args(expected)
        return [python_names(item, item_type) for item in value]
    return value  # scalars and maps of plain values (labels, tags) keep their keys


# Names of the typed stand-ins made, so a run that never reached them can't pass.
MADE_TYPED: list[str] = []


def _camel_case(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            "".join(w if i == 0 else w.capitalize() for i, w in enumerate(k.split("_"))): (
                _camel_case(v)
            )
            for k, v in dict.items(value)
        }
    if isinstance(value, list):
        return [_camel_case(v) for v in value]
    return value


def _key(request: dict[str, Any]) -> tuple[str, str, str]:
    return (request["type"], request["name"], request.get("parent", ""))


def _typed_init(
    self: ProviderResource,
    name: str,
    inputs: Mapping[str, Any],
    opts: pulumi.ResourceOptions | None = None,
) -> None:
    """`ProviderResource.__init__` as the typed SDK class: the same inputs, given by their
    Python names, to the SDK's own class; `id` and the outputs read back come from it."""
    sdk_class = SDK_CLASSES[type(self)]
    present = {k: v for k, v in inputs.items() if v is not None}
    if sdk_class is k8s.helm.v3.Release:
        # The typed class sets it itself and takes no argument for it.
        assert present.pop("compat") == "true"
    if sdk_class is k8s.apiextensions.CustomResource:
        # Its arguments are apiVersion, kind, metadata and spec, by keyword.
        fields = {k: v for k, v in present.items() if k not in ("apiVersion", "kind")}
        typed = sdk_class(
            name, api_version=present["apiVersion"], kind=present["kind"], opts=opts, **fields
        )
    elif sdk_class is None:  # a built-in Kubernetes kind
        sdk_class = _built_in_kind(present["apiVersion"], present["kind"])
        args_class = getattr(
            importlib.import_module(sdk_class.__module__), f"{sdk_class.__name__}InitArgs"
        )
        fields = {k: v for k, v in present.items() if k not in ("apiVersion", "kind")}
        typed = sdk_class(name, opts=opts, **python_names(fields, args_class))
    else:
        module = importlib.import_module(sdk_class.__module__)
        args_class = getattr(module, f"{sdk_class.__name__}Args")
        typed = sdk_class(name, opts=opts, **python_names(present, args_class))
    MADE_TYPED.append(name)
    # `self` stands for the typed resource from now on (its urn, id and bookkeeping), so
    # that depending on it, or parenting to it, means depending on the typed one.
    self.__dict__.update(typed.__dict__)
    for key in self.READ:
        # The typed output holds the SDK's output classes; the backends read the
        # provider's plain form (camelCase dicts), which is what ours resolve to.
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
        setattr(self, key, getattr(typed, snake).apply(_camel_case))


@pytest.fixture
def requests(monkeypatch):
    seen: list[dict[str, Any]] = []
    original = CapturingMonitor.RegisterResource

    def record(self, request):
        message = json_format.MessageToDict(request)
        seen.append(_canonical({k: v for k, v in message.items() if k not in CALL_SITE}))
        return original(self, request)

    monkeypatch.setattr(CapturingMonitor, "RegisterResource", record)
    return seen


def _canonical(request: dict[str, Any]) -> dict[str, Any]:
    """The SDK collects dependencies in sets: their order is the objects' hash order, which
    differs from run to run for the SDK's own classes too."""
    if "dependencies" in request:
        request["dependencies"] = sorted(request["dependencies"])
    for deps in request.get("propertyDependencies", {}).values():
        if "urns" in deps:
            deps["urns"] = sorted(deps["urns"])
    return request


def _programs() -> list[tuple[str, Any]]:
    stacks = [(f"stack {s}", s) for s in example_stacks()]
    return [*stacks, *((f"component {c}", c) for c in COMPONENTS)]


def _run(program: str, engine: str) -> None:
    if program in COMPONENTS:
        run_on(engine, COMPONENTS[program])
    else:
        run_on(engine, STACKS / "__main__.py", stack=program, config=stack_config(program))


@pytest.mark.parametrize("engine", ["offline", "plain"])
@pytest.mark.parametrize(("label", "program"), _programs(), ids=[p[0] for p in _programs()])
def test_every_registration_is_the_typed_classes_field_for_field(
    requests, monkeypatch, label, program, engine
):
    made_ours: list[str] = []
    original_init = ProviderResource.__init__

    def counted_init(self, name, inputs, opts=None):
        made_ours.append(name)
        original_init(self, name, inputs, opts)

    with monkeypatch.context() as patch:
        patch.setattr(ProviderResource, "__init__", counted_init)
        _run(program, engine)
    ours = list(requests)
    requests.clear()
    MADE_TYPED.clear()
    with monkeypatch.context() as patch:
        patch.setattr(ProviderResource, "__init__", _typed_init)
        _run(program, engine)
    typed = list(requests)
    assert sorted(MADE_TYPED) == sorted(made_ours)
    # Registrations are concurrent: the same set, in whatever order they were made.
    ours.sort(key=_key)
    typed.sort(key=_key)
    assert [_key(r) for r in ours] == [_key(r) for r in typed]
    for mine, theirs in zip(ours, typed, strict=True):
        assert mine == theirs, _key(mine)


def test_the_comparison_covers_every_provider_resource_class(requests, monkeypatch):
    """The programs above register each class at least once, in both forms."""
    seen: set[str] = set()
    for program in (
        "MachinePool/eks-every-option",
        "MachinePool/oke-every-option",
        "OkeClusterAutoscaler",
        "AcceleratorStack/oke",
        "AcceleratorStack/eks",
        "KarpenterNodePool",
        "KueueQueues",
        "NodeRole/shared",
        "Recipe/oke",
        "Recipe/eks-spot",
        "PoolQuotas",
        "PoolPlatforms",
    ):
        _run(program, "offline")
    seen = {r["type"] for r in requests}
    by_kind = (KubernetesCustomObject, KubernetesObject)
    assert {cls.TYPE for cls in SDK_CLASSES if cls not in by_kind} <= seen
    assert {
        "kubernetes:karpenter.sh/v1:NodePool",
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue",
    } <= seen
    # Every built-in kind we make, with the aliases its typed class adds.
    assert {
        KubernetesObject.type_of({"apiVersion": a, "kind": k}) for a, k in KubernetesObject.KINDS
    } <= seen
    assert set(SDK_CLASSES) == set(ProviderResource.__subclasses__())


def test_a_built_in_kind_without_known_aliases_is_refused():
    with pytest.raises(ValueError, match="StatefulSet"):
        KubernetesObject("db", {"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {}})


def test_a_name_the_sdk_lacks_fails_the_typed_stand_in():
    with pytest.raises(KeyError, match="desired"):
        python_names({"scalingConfig": {"desired": 1}}, aws.eks.NodeGroupArgs)


def test_nested_blocks_leave_out_what_is_unset(requests):
    """A None inside a nested block reaches the provider as an explicit null; the typed
    `*Args` leave it out, and so does `present`."""

    def program(details: dict[str, Any]):
        def register():
            OkeNodePool(
                "pool",
                {
                    "clusterId": "ocid1.cluster.oc1..x",
                    "compartmentId": "ocid1.compartment.oc1..x",
                    "nodeShape": "VM.GPU.A10.1",
                    "nodeSourceDetails": details,
                },
            )

        return register

    fields = {"sourceType": "IMAGE", "imageId": "ocid1.image.oc1..x"}
    run(program({**fields, "bootVolumeSizeInGbs": None}), mocks=PlainMocks())
    run(
        program(provider_resource.present(**fields, bootVolumeSizeInGbs=None)),
        mocks=PlainMocks(),
    )
    raw, compact = [
        r["object"]["nodeSourceDetails"] for r in requests if r["type"] == OkeNodePool.TYPE
    ]
    assert raw == {**fields, "bootVolumeSizeInGbs": None}
    assert compact == fields


def test_the_defaults_are_the_sdks():
    for package in ("pulumi_aws", "pulumi_oci"):
        utilities = importlib.import_module(f"{package}._utilities")
        theirs = utilities.get_resource_opts_defaults()
        # What ProviderResource._options fills in.
        assert provider_resource._plugin(package) == (
            theirs.version,
            theirs.plugin_download_url,
        )
        ours_i, theirs_i = sdk_invoke_defaults(package), utilities.get_invoke_opts_defaults()
        assert (ours_i.version, ours_i.plugin_download_url) == (
            theirs_i.version,
            theirs_i.plugin_download_url,
        )


class GroupsMocks(PlainMocks):
    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        if args.token == "aws:eks/getNodeGroups:getNodeGroups":
            return {"clusterName": args.args["clusterName"], "names": ["gpu-1", "gpu-2"]}
        if args.token == "aws:eks/getNodeGroup:getNodeGroup":
            return {
                "tags": {"nodepools.dev/pool": "gpu"},
                "scalingConfigs": [{"desiredSize": 3, "minSize": 0, "maxSize": 4}],
            }
        return {}


def test_the_invokes_are_the_typed_functions_field_for_field(monkeypatch):
    seen: list[dict[str, Any]] = []
    original = CapturingMonitor.Invoke

    def record(self, request):
        seen.append(json_format.MessageToDict(request))
        return original(self, request)

    monkeypatch.setattr(CapturingMonitor, "Invoke", record)
    results: dict[str, Any] = {}

    def typed():
        listed = aws.eks.get_node_groups(cluster_name="ml")
        group = aws.eks.get_node_group(cluster_name="ml", node_group_name="gpu-1")
        results["typed"] = (
            list(listed.names),
            dict(group.tags),
            group.scaling_configs[0].desired_size,
        )

    def ours():
        listed = sdk_invoke(
            "pulumi_aws", "aws:eks/getNodeGroups:getNodeGroups", {"clusterName": "ml"}
        )
        group = sdk_invoke(
            "pulumi_aws",
            "aws:eks/getNodeGroup:getNodeGroup",
            {"clusterName": "ml", "nodeGroupName": "gpu-1"},
        )
        results["ours"] = (
            list(listed["names"]),
            dict(group["tags"]),
            group["scalingConfigs"][0]["desiredSize"],
        )

    run(typed, mocks=GroupsMocks())
    typed_requests = list(seen)
    seen.clear()
    run(ours, mocks=GroupsMocks())
    assert len(seen) == len(typed_requests) == 2
    assert seen == typed_requests
    assert (
        results["ours"]
        == results["typed"]
        == (["gpu-1", "gpu-2"], {"nodepools.dev/pool": "gpu"}, 3)
    )


def test_a_plan_of_every_example_stack_loads_no_provider_sdk():
    """What the registrations above are for: a cold plan never pays the SDKs' imports
    (`pulumi_kubernetes.core.v1` alone is ~250 ms)."""
    out = subprocess.run(
        [sys.executable, "-c", plan_stacks_code(example_stacks())],
        cwd=STACKS.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    assert sdks_loaded(out.stdout) == []
