"""Karpenter's own examples (tests/upstream_karpenter: aws/karpenter-provider-aws examples/v1),
as KarpenterNodePool emits them, launched by Karpenter's controller (KWOK provider).

Each example NodePool is bridged to the KWOK node class (tests/controlplane/karpenter.py)
and applied under a name of its own (`<example>-<pool>`: the examples share `default`); it
must be Ready; a pod that selects it by `karpenter.sh/nodepool` must make Karpenter launch a
NodeClaim of an instance type and capacity type the requirements allow, the node must carry
the template's labels and taints, and the pod binds once the node is Ready (the test plays
its kubelet). The offered examples are launched together (the `launches` fixture), each test
reads its own example's outcome.

What the bridge can't offer is checked the other way round, naming why: Karpenter must say
no instance type fits and launch nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.karpenter import kwok_node_pool
from tests.controlplane.karpenter_run import (
    POOL_LABEL,
    claims_of,
    karpenter_events,
    play_kubelet,
    resources,
    running_karpenter,
    wait,
)
from tests.controlplane.objects import KubeObject, apply
from tests.controlplane.report import count
from tests.controlplane.test_karpenter_kwok import (
    check_node,
    check_ready,
    wait_bound,
    wait_initialized,
    wait_launched,
)
from tests.test_karpenter_upstream import EXAMPLES, emit_example
from tests.test_karpenter_upstream import _documents as documents  # pyright: ignore[reportPrivateUsage]

NAMESPACE = "karpenter-upstream"

# Examples whose NodePools ask what the KWOK bridge's instance types can't have: our
# catalog's types are offered for Linux only (the AWS provider also offers Windows AMIs on
# them), so Karpenter finds no type for their `kubernetes.io/os In [windows]`.
NOT_OFFERED = (
    "windows-2019.yaml",
    "windows-2022.yaml",
    "windows-2025.yaml",
    "windows-custom-userdata.yaml",
)
REFUSAL = "nodepool requirements filtered out all available instance types"
# Requirement keys the bridge's instance types don't carry (our catalog knows no local NVMe
# sizes). Karpenter does not filter on a key an instance type lacks, so the pool launches on
# any type the rest of its requirements allow: the node is checked without them.
UNLABELED = ("karpenter.k8s.aws/instance-local-nvme",)


@pytest.fixture(scope="module")
def karpenter(
    control_plane: ControlPlane,
    api_client: Any,
    dynamic_client: Any,
    installed_crds: list[str],
    scheduler: Any,
) -> Iterator[ControlPlane]:
    with running_karpenter(control_plane, api_client, dynamic_client, NAMESPACE) as plane:
        yield plane


def _node_pools(example: str) -> list[dict[str, Any]]:
    rendered, _ = emit_example(example, documents(example))
    return [m for manifests in rendered for m in manifests.values() if m["kind"] == "NodePool"]


def _pod(name: str, pool: str, manifest: dict[str, Any]) -> dict[str, Any]:
    tolerations = [
        {"key": t["key"], "operator": "Exists", "effect": t["effect"]}
        for t in manifest["spec"]["template"]["spec"].get("taints", [])
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "nodeSelector": {POOL_LABEL: pool},
            "tolerations": tolerations,
            "containers": [{"name": "probe", "image": "registry.example/probe:1"}],
        },
    }


def _without_unlabeled(manifest: dict[str, Any]) -> dict[str, Any]:
    template = manifest["spec"]["template"]
    requirements = [r for r in template["spec"]["requirements"] if r["key"] not in UNLABELED]
    spec = {**template["spec"], "requirements": requirements}
    return {**manifest, "spec": {**manifest["spec"], "template": {**template, "spec": spec}}}


@dataclass
class Launch:
    """One bridged NodePool of an example, its probe pod, and what the controller did."""

    example: str
    name: str
    manifest: dict[str, Any]
    claim: dict[str, Any] | None = None
    node: Any = None
    events: list[str] | None = None
    claims: list[dict[str, Any]] | None = None
    failure: str | None = None


def _record(launch: Launch, step: Callable[..., Any], *args: Any) -> Any:
    """STEP(*ARGS)'s result; a failed wait is kept as the launch's failure (its test reports
    it) instead of failing the others."""
    if launch.failure is not None:
        return None
    try:
        return step(*args)
    except (pytest.fail.Exception, AssertionError) as error:
        launch.failure = str(error)
        return None


@pytest.fixture(scope="module")
def launches(
    karpenter: ControlPlane, api_client: Any, dynamic_client: Any
) -> Iterator[dict[str, list[Launch]]]:
    """Every offered example's NodePools applied together, one probe pod each, created
    together: the controller works on all of them at once (one provisioning batch), and each
    step waits for the slowest pool instead of the sum (112 s one example after another, 37 s
    together). Each pod selects its own pool by name, so no pool takes another example's pod.
    Then, with those gone, each example Karpenter can't offer alone: its FailedScheduling
    event lists every NodePool the pod doesn't fit, truncated, so the refusal it must name is
    seen only when the example's pools are the only ones."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    by_example: dict[str, list[Launch]] = {}
    for example in EXAMPLES:
        stem = example.removesuffix(".yaml")
        for rendered in _node_pools(example):
            name = f"{stem}-{rendered['metadata']['name']}"[:63]
            bridged = kwok_node_pool(rendered)
            manifest = {**bridged, "metadata": {**bridged["metadata"], "name": name}}
            by_example.setdefault(example, []).append(Launch(example, name, manifest))
    every = [launch for found in by_example.values() for launch in found]
    offered = [launch for launch in every if launch.example not in NOT_OFFERED]
    try:
        _launch_together(offered, karpenter, core, dynamic_client)
        for launch in offered:
            _delete(core, dynamic_client, launch.name)
        for launch in every:
            if launch.example in NOT_OFFERED:
                _refuse_alone(launch, karpenter, core, dynamic_client)
        yield by_example
    finally:
        for launch in every:
            _delete(core, dynamic_client, launch.name)


def _launch_together(launches: list[Launch], plane: ControlPlane, core: Any, dynamic: Any) -> None:
    """Each step for every launch before the next step: apply, Ready, pod, NodeClaim, the
    node's kubelet played, pod bound, NodeClaim Initialized; the node kept for the test."""
    for launch in launches:
        apply(dynamic, KubeObject(launch.name, launch.manifest), dry_run=False)
    for launch in launches:
        label = f"{launch.example}: {launch.name} (KWOK)"
        _record(launch, check_ready, dynamic, plane, launch.manifest, label)
    for launch in launches:
        if launch.failure is None:
            core.create_namespaced_pod(NAMESPACE, _pod(launch.name, launch.name, launch.manifest))
    for launch in launches:
        launch.claim = _record(
            launch, wait_launched, dynamic, plane, launch.name, launch.name, set()
        )
    launched = [launch for launch in launches if launch.claim is not None]
    for launch in launched:
        play_kubelet(core, launch.claim["status"]["nodeName"])  # pyright: ignore[reportOptionalSubscript]
    for launch in launched:
        _record(launch, wait_bound, core, plane, launch.claim, launch.name, NAMESPACE)
    for launch in launched:
        _record(launch, wait_initialized, dynamic, plane, launch.claim, launch.name)
        if launch.failure is None and launch.claim is not None:
            launch.node = core.read_node(launch.claim["status"]["nodeName"])


def _refuse_alone(launch: Launch, plane: ControlPlane, core: Any, dynamic: Any) -> None:
    """LAUNCH's pool applied alone and Ready; its pod's Karpenter events kept; the pool and
    the pod deleted."""
    apply(dynamic, KubeObject(launch.name, launch.manifest), dry_run=False)
    label = f"{launch.example}: {launch.name} (KWOK)"
    _record(launch, check_ready, dynamic, plane, launch.manifest, label)
    if launch.failure is None:
        core.create_namespaced_pod(NAMESPACE, _pod(launch.name, launch.name, launch.manifest))
        launch.events = _record(
            launch,
            wait,
            f"Karpenter's FailedScheduling event on pod {launch.name}",
            lambda: karpenter_events(core, NAMESPACE, launch.name),
            plane,
        )
        launch.claims = claims_of(dynamic, launch.name)
    _delete(core, dynamic, launch.name)


@pytest.mark.parametrize("example", EXAMPLES)
def test_karpenter_launches_nodes_from_its_own_examples(
    example: str, launches: dict[str, list[Launch]]
) -> None:
    for launch in launches[example]:
        assert launch.failure is None, launch.failure
        if example in NOT_OFFERED:
            assert any(REFUSAL in m for m in launch.events or []), launch.events
            assert launch.claims == [], example
            count("Karpenter (KWOK): upstream example NodePools refused (not offered)")
            continue
        assert launch.node is not None
        check_node(example, _without_unlabeled(launch.manifest), launch.node)
        count("Karpenter (KWOK): upstream example NodePools launched")


def _delete(core: Any, dynamic: Any, name: str) -> None:
    from kubernetes.client.exceptions import ApiException

    for call in (
        lambda: core.delete_namespaced_pod(name, NAMESPACE, grace_period_seconds=0),
        lambda: resources(dynamic, "NodePool").delete(name=name),
    ):
        try:
            call()
        except ApiException as error:
            if error.status != 404:
                raise
