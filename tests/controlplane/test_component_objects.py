"""Component programs beyond the example stacks, applied to the real API server.

- every program of the engine matrix (tests/engines/components.py: one per component and
  backend, AcceleratorStack included), found by iterating its table;
- Kueue's site examples as tests/governance/test_kueue_queues.py reproduces them (named
  flavors, Topology, queues without a cohort, fair sharing, admission checks), rendered by the
  KueueQueues component from that module's own inputs;
- Karpenter's examples/v1 as tests/test_karpenter_upstream.py reproduces them (every
  requirement form it uses, minValues, a custom node class with userData, amiSelectorTerms,
  blockDeviceMappings), plus what those examples do not show: every requirement operator,
  a static NodePool (replicas) and a GPU pool by requirements, rendered by KarpenterNodePool.

Each program's objects go through the same path as the stacks' (dryRun=All, then for real,
read back; their Helm releases rendered and applied in test_helm_charts.py), then are deleted, so a later program may use the
same cluster-scoped names with other (possibly immutable) fields. And where our validator
refuses a manifest, the server must refuse it too: each refusal below is a rendered manifest
with one mistake, which both must reject.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from nodepools.offline import run
from nodepools.validation import validate_manifest

from tests.controlplane.objects import KubeObject, apply, kube_objects, server_message
from tests.controlplane.report import count
from tests.controlplane.test_stack_objects import apply_all
from tests.engines.components import COMPONENTS
from tests.governance.test_kueue_queues import EXAMPLES as KUEUE_EXAMPLES
from tests.governance.test_kueue_queues import _args as kueue_args
from tests.governance.test_kueue_queues import _documents as kueue_documents
from tests.test_karpenter_upstream import EXAMPLES as KARPENTER_EXAMPLES
from tests.test_karpenter_upstream import _documents as karpenter_documents
from tests.test_karpenter_upstream import _pool_args as karpenter_pool_args


def kueue_program(example: str) -> None:
    from nodepools import KueueQueues

    KueueQueues("site", kueue_args(kueue_documents(example), **KUEUE_EXAMPLES[example]))


def karpenter_program(name: str, args: dict[str, Any]) -> None:
    from nodepools import KarpenterNodePool

    KarpenterNodePool(name, args)


def karpenter_example_program(example: str) -> None:
    """Every NodePool of an upstream example file as tests/test_karpenter_upstream.py writes
    it (the first pool naming a node class creates it, later ones name it)."""
    from nodepools import KarpenterNodePool

    documents = karpenter_documents(example)
    classes = {d["metadata"]["name"]: d for d in documents if d["kind"] == "EC2NodeClass"}
    created: set[str] = set()
    for i, doc in enumerate(d for d in documents if d["kind"] == "NodePool"):
        class_name = doc["spec"]["template"]["spec"]["nodeClassRef"]["name"]
        node_class = None if class_name in created else classes[class_name]
        created.add(class_name)
        KarpenterNodePool(f"example-{i}", karpenter_pool_args(doc, node_class))


# What Karpenter's examples do not show, each a pool our validator accepts.
KARPENTER_MORE: dict[str, dict[str, Any]] = {
    "every-operator": {
        "node_class_name": "default",
        "requirements": [
            {
                "key": "karpenter.k8s.aws/instance-category",
                "operator": "In",
                "values": ["c", "m", "r"],
                "min_values": 2,
            },
            {"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["t3"]},
            {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["2"]},
            {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["65"]},
            {"key": "karpenter.k8s.aws/instance-memory", "operator": "Gte", "values": ["8192"]},
            {
                "key": "karpenter.k8s.aws/instance-network-bandwidth",
                "operator": "Lte",
                "values": ["50000"],
            },
            {"key": "topology.kubernetes.io/zone", "operator": "Exists"},
            {"key": "example.com/legacy-hardware", "operator": "DoesNotExist"},
        ],
    },
    # The KWOK provider launches a static NodeClaim only with an instance-type requirement.
    "static": {
        "node_class_name": "default",
        "replicas": 3,
        "limits": {"nodes": 5},
        "instance_types": ["m5.large", "m5.xlarge"],
    },
    "gpu-by-requirements": {
        "node_class_name": "default",
        "requirements": [
            {
                "key": "karpenter.k8s.aws/instance-family",
                "operator": "In",
                "values": ["p5", "g6e"],
                "min_values": 2,
            }
        ],
        "limits": {"nvidia.com/gpu": 16},
    },
}


PROGRAMS: dict[str, Callable[[], None]] = {
    **{f"kueue {example}": partial(kueue_program, example) for example in sorted(KUEUE_EXAMPLES)},
    **{
        f"karpenter {example}": partial(karpenter_example_program, example)
        for example in KARPENTER_EXAMPLES
    },
    **{
        f"karpenter {name}": partial(karpenter_program, name, args)
        for name, args in KARPENTER_MORE.items()
    },
}


def delete_all(dynamic: Any, objects: list[KubeObject], timeout: float = 30) -> None:
    """Delete what a program applied (namespaces stay: no namespace controller runs here to
    empty and finalize them) and wait until it is gone."""
    from kubernetes.client.exceptions import ApiException

    doomed = [o for o in reversed(objects) if o.manifest["kind"] != "Namespace"]
    for obj in doomed:
        resource, name, namespace = _where(dynamic, obj)
        try:
            dynamic.delete(resource, name=name, namespace=namespace)
        except ApiException as error:
            if error.status != 404:
                raise
    deadline = time.monotonic() + timeout
    for obj in doomed:
        resource, name, namespace = _where(dynamic, obj)
        while time.monotonic() < deadline:
            try:
                dynamic.get(resource, name=name, namespace=namespace)
            except ApiException as error:
                if error.status == 404:
                    break
                raise
            time.sleep(0.2)
        else:
            pytest.fail(f"{obj.label} still there {timeout:.0f} s after its deletion")


def _where(dynamic: Any, obj: KubeObject) -> tuple[Any, str, str | None]:
    manifest = obj.manifest
    resource = dynamic.resources.get(api_version=manifest["apiVersion"], kind=manifest["kind"])
    namespace = (
        (manifest["metadata"].get("namespace") or "default") if resource.namespaced else None
    )
    return resource, manifest["metadata"]["name"], namespace


def apply_program(dynamic: Any, source: str, program: Callable[[], None]) -> tuple[int, int]:
    """A program's objects applied, read back and deleted; returns (objects, Helm releases,
    which test_helm_charts.py renders and applies)."""
    capture = run(program)
    objects, _ = kube_objects(capture, source)
    releases = len(capture.by_type("kubernetes:helm.sh/v3:Release"))
    apply_all(dynamic, objects)
    delete_all(dynamic, objects)
    if objects:
        count("programs applied (component programs, Kueue and Karpenter upstream examples)")
    return len(objects), releases


def test_every_engine_matrix_programs_objects_are_accepted(
    dynamic_client: Any, installed_crds: list[str], record_property: Any
) -> None:
    # One test over the whole table: most of its programs register cloud resources only.
    reached = {
        key: apply_program(dynamic_client, f"component {key}", program)
        for key, program in COMPONENTS.items()
    }
    with_objects = sorted(
        key for key, (objects, releases) in reached.items() if objects or releases
    )
    assert with_objects, reached
    record_property("programs with Kubernetes objects", with_objects)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_upstream_examples_objects_are_accepted_by_the_api_server(
    program: str, dynamic_client: Any, installed_crds: list[str], record_property: Any
) -> None:
    objects, _ = apply_program(dynamic_client, program, PROGRAMS[program])
    assert objects, f"{program}: nothing reached the server"
    record_property("applied", objects)


def _manifest(program: Callable[[], None], kind: str) -> dict[str, Any]:
    capture = run(program)
    objects, _ = kube_objects(capture, "refusal")
    [found] = [o.manifest for o in objects if o.manifest["kind"] == kind]
    return copy.deepcopy(found)


def _node_pool() -> dict[str, Any]:
    return _manifest(
        partial(karpenter_program, "refused", KARPENTER_MORE["every-operator"]), "NodePool"
    )


def _requirements(m: dict[str, Any]) -> list[dict[str, Any]]:
    return m["spec"]["template"]["spec"]["requirements"]


def _cluster_queue() -> dict[str, Any]:
    return _manifest(partial(kueue_program, "single-clusterqueue-setup.yaml"), "ClusterQueue")


def _gt_two_values(m: dict[str, Any]) -> None:
    _requirements(m).append({"key": "example.com/size", "operator": "Gt", "values": ["1", "2"]})


def _restricted_key(m: dict[str, Any]) -> None:
    _requirements(m).append({"key": "kubernetes.io/hostname", "operator": "Exists"})


def _in_without_values(m: dict[str, Any]) -> None:
    _requirements(m).append({"key": "example.com/zone", "operator": "In", "values": []})


def _min_values_over_values(m: dict[str, Any]) -> None:
    _requirements(m).append(
        {"key": "example.com/tier", "operator": "In", "values": ["a"], "minValues": 2}
    )


def _restricted_label(m: dict[str, Any]) -> None:
    m["spec"]["template"].setdefault("metadata", {}).setdefault("labels", {})[
        "karpenter.sh/nodepool"
    ] = "x"


def _disruption_without_consolidate_after(m: dict[str, Any]) -> None:
    m["spec"]["disruption"] = {"consolidationPolicy": "WhenEmpty"}


def _taint_bad_effect(m: dict[str, Any]) -> None:
    m["spec"]["template"]["spec"]["taints"] = [{"key": "gpu", "effect": "Sometimes"}]


def _queue_bad_strategy(m: dict[str, Any]) -> None:
    m["spec"]["queueingStrategy"] = "Random"


def _queue_duplicate_resource(m: dict[str, Any]) -> None:
    group = m["spec"]["resourceGroups"][0]
    group["coveredResources"] = [*group["coveredResources"], group["coveredResources"][0]]


REFUSALS: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], None]]] = {
    "NodePool: Gt with two values": (_node_pool, _gt_two_values),
    "NodePool: requirement on kubernetes.io/hostname": (_node_pool, _restricted_key),
    "NodePool: In without values": (_node_pool, _in_without_values),
    "NodePool: minValues above the values": (_node_pool, _min_values_over_values),
    "NodePool: karpenter.sh label in the template": (_node_pool, _restricted_label),
    "NodePool: disruption without consolidateAfter": (
        _node_pool,
        _disruption_without_consolidate_after,
    ),
    "NodePool: taint effect Sometimes": (_node_pool, _taint_bad_effect),
    "ClusterQueue: queueingStrategy Random": (_cluster_queue, _queue_bad_strategy),
    "ClusterQueue: a resource covered twice": (_cluster_queue, _queue_duplicate_resource),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_what_our_validator_refuses_the_server_refuses(
    case: str, dynamic_client: Any, installed_crds: list[str]
) -> None:
    from kubernetes.client.exceptions import ApiException

    render, spoil = REFUSALS[case]
    manifest = render()
    assert validate_manifest(manifest) == [], f"{case}: the rendered manifest is not valid"
    spoil(manifest)
    ours = validate_manifest(manifest)
    assert ours, f"{case}: our validator accepts it"
    try:
        apply(dynamic_client, KubeObject(f"refusal {case}", manifest), dry_run=True)
    except ApiException as error:
        assert error.status in (400, 422), (case, server_message(error))
    else:
        pytest.fail(f"{case}: the API server accepts what our validator refuses: {ours}")
    count("server refusals checked")
