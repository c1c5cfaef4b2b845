"""The pinned charts, rendered by the pinned helm with exactly the values each AcceleratorStack
registers (tests/charts), reach the real API server, and their DaemonSets run where the stack
says.

For every program of tests/charts/programs.py (the example stacks, the engine matrix's
AcceleratorStack programs, the device-plugin program, a chart on disk) and each of its Helm
releases: every rendered object is applied by server-side apply (the chart's CRDs first,
Established, then namespaces, then the rest); an object whose API this server does not serve
(OpenShift's SecurityContextConstraints on rosa) is listed, not applied. Then Kubernetes' own
DaemonSet controller (kube-controller-manager, `--controllers=daemonset`) decides from each
rendered DaemonSet which stand-in nodes get a pod, and kube-scheduler binds it: a pod must be
bound on every node of every pool the release serves, and no pod may be made for a node of a
pool it does not serve (other vendors' pools, CPU pools), except NFD's worker, which labels
every node by design. The nodes: one per served pool and instance type, with the labels
`nodepools.specs.devices.placement.modeled_nodes` gives them (the pool's selecting labels, the
ones the stack asks for, the kubelet's instance type, NFD's and the GPU Operator's GPU labels)
and the pool's taints and startup taints; and one per pool component the stack doesn't serve.

Not proven here: the GPU Operator's own operands (driver, toolkit, device plugin, DCGM,
mig-manager DaemonSets), which its controller makes from the ClusterPolicy (tests/README.md).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from nodepools.devices import accelerator_stack
from nodepools.planning.sections import pool_components
from nodepools.specs.devices.args import AcceleratorStackArgs
from nodepools.specs.devices.placement import modeled_nodes
from nodepools.specs.devices.releases import plan_releases

from tests.charts.helm import Release, releases_of, render, require_charts, require_helm
from tests.charts.programs import PROGRAMS
from tests.controlplane.cluster import ControlPlane, _wait_ready, free_port, kubeconfig, tools_dir  # pyright: ignore[reportPrivateUsage]
from tests.controlplane.objects import KubeObject, apply, server_message
from tests.controlplane.report import count
from tests.controlplane.test_scheduling import Pool, create_nodes, pool_node

FIRST = ("CustomResourceDefinition", "Namespace")
EVERYWHERE = {"node-feature-discovery"}  # app.kubernetes.io/name of DaemonSets meant for every node
# Node labels that only a GPU-sharing setup the stack doesn't make puts on a node: a DaemonSet
# selecting them (the device plugin chart's MPS control daemon) serves none of our pools.
SHARING_ONLY = {"nvidia.com/mps.capable"}


@pytest.fixture(scope="module")
def daemonset_controller(scheduler: ControlPlane) -> Iterator[ControlPlane]:
    """kube-controller-manager running the DaemonSet controller only, for this module."""
    config = kubeconfig(scheduler)
    port = free_port()
    manager = scheduler.start(
        "daemonset-controller",
        [
            str(tools_dir() / "kube-controller-manager"),
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={scheduler.workdir / 'daemonset-controller-certs'}",
            "--controllers=daemonset",
            "--leader-elect=false",
            "--profiling=false",
            "--v=1",
        ],
    )
    _wait_ready(
        scheduler, f"https://127.0.0.1:{port}/healthz", "daemonset-controller", manager, timeout=120
    )
    yield scheduler
    scheduler.stop_one(manager)


def stacks_of(
    program: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, dict[str, AcceleratorStackArgs]]:
    """The program's capture and each AcceleratorStack's validated args, by name."""
    specs: dict[str, AcceleratorStackArgs] = {}
    planned = accelerator_stack.plan_releases

    def recording(name: str, spec: AcceleratorStackArgs) -> Any:
        specs[name] = spec
        return planned(name, spec)

    monkeypatch.setattr(accelerator_stack, "plan_releases", recording)
    return PROGRAMS[program](), specs


def _node_name(*parts: str) -> str:
    return "helm-" + hashlib.sha1("/".join(parts).encode()).hexdigest()[:12]


def stand_in_nodes(program: str, capture: Any, spec: AcceleratorStackArgs) -> list[Pool]:
    """Nodes for the stack's served pools and the program's other pools."""
    from nodepools.specs.core.labels import INSTANCE_TYPE_LABEL

    served = {p.name for p in spec.pools}
    pools: list[Pool] = []
    for pool, labels in modeled_nodes(spec):
        name = _node_name(program, pool.name, labels.get(INSTANCE_TYPE_LABEL, ""))
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {**labels, "kubernetes.io/hostname": name}},
            "spec": {
                "taints": [
                    {"key": t.key, "effect": t.effect, **({"value": t.value} if t.value else {})}
                    for t in pool.all_taints
                ]
            },
            "status": _status(),
        }
        pools.append(Pool(program, pool.name, node, {}))
    for component in pool_components(capture):
        other = pool_node(program, capture, component)
        if other.name in served:
            continue
        name = _node_name(program, other.name)
        other.node["metadata"]["name"] = name
        other.node["metadata"]["labels"]["kubernetes.io/hostname"] = name
        pools.append(Pool(program, other.name, other.node, {}))
    return pools


def _status() -> dict[str, Any]:
    resources = {"cpu": "192", "memory": "2Ti", "pods": "110", "ephemeral-storage": "1Ti"}
    ready = {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "stands in"}
    return {"capacity": resources, "allocatable": resources, "conditions": [ready]}


def _kind_served(dynamic: Any, manifest: dict[str, Any]) -> bool:
    from kubernetes.dynamic.exceptions import ResourceNotFoundError

    try:
        dynamic.resources.get(api_version=manifest["apiVersion"], kind=manifest["kind"])
    except ResourceNotFoundError:
        return False
    return True


def apply_rendered(dynamic: Any, release: Release, objects: list[dict[str, Any]]) -> list[str]:
    """Every rendered object applied for real (CRDs first, Established, then namespaces,
    then the rest); returns the objects whose API is not served here."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    from tests.controlplane.cluster import wait_established

    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": release.namespace}}
    # What kube-controller-manager's serviceaccount controller (not run here) puts in every
    # namespace, and pods without a serviceAccountName use.
    default_account = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "default", "namespace": release.namespace},
    }
    ordered = sorted(
        [namespace, default_account, *objects],
        key=lambda o: FIRST.index(o["kind"]) if o["kind"] in FIRST else len(FIRST),
    )
    not_served: list[str] = []
    crds: list[str] = []
    for manifest in ordered:
        if manifest["kind"] not in FIRST and crds:
            wait_established(client.ApiextensionsV1Api(dynamic.client), crds, "chart CRDs")
            dynamic.resources.invalidate_cache()
            crds = []
        if not _kind_served(dynamic, manifest):
            not_served.append(
                f"{manifest['apiVersion']} {manifest['kind']} {manifest['metadata']['name']}"
            )
            continue
        namespaced = dynamic.resources.get(
            api_version=manifest["apiVersion"], kind=manifest["kind"]
        ).namespaced
        if namespaced:
            manifest["metadata"].setdefault("namespace", release.namespace)
        obj = KubeObject(f"{release.name} ({release.chart_name})", manifest)
        try:
            apply(dynamic, obj, dry_run=False)
        except ApiException as error:
            pytest.fail(f"apply rejected {obj.label}: {server_message(error)}", pytrace=False)
        if manifest["kind"] == "CustomResourceDefinition":
            crds.append(manifest["metadata"]["name"])
    count("rendered chart objects applied (CRDs first)", len(ordered) - len(not_served))
    return not_served


def _target(pod: Any) -> str | None:
    """The node a DaemonSet pod is made for (the controller's matchFields on metadata.name)."""
    affinity = pod.spec.affinity
    terms = affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms
    for term in terms:
        for field in term.match_fields or []:
            if field.key == "metadata.name":
                return field.values[0]
    return None


def daemon_pods(core: Any, daemonset: dict[str, Any]) -> list[Any]:
    labels = daemonset["spec"]["selector"]["matchLabels"]
    selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
    namespace = daemonset["metadata"]["namespace"]
    pods = core.list_namespaced_pod(namespace, label_selector=selector).items
    return [
        p
        for p in pods
        if any(
            o.kind == "DaemonSet" and o.name == daemonset["metadata"]["name"]
            for o in p.metadata.owner_references or []
        )
    ]


def expected_nodes(
    daemonset: dict[str, Any], pools: list[Pool], served: set[str]
) -> tuple[list[str], list[str], list[str]]:
    """(nodes it must run on, nodes it must stay off, nodes where that can't be told: a served
    pool described without instance types, for a DaemonSet selecting nodes by type)."""
    from nodepools.specs.core.labels import INSTANCE_TYPE_LABEL

    template = daemonset["spec"]["template"]
    labels = template["metadata"].get("labels") or {}
    pod = template["spec"]
    if SHARING_ONLY & set(pod.get("nodeSelector") or {}):
        return [], [p.node_name for p in pools], []
    by_type = INSTANCE_TYPE_LABEL in json.dumps(pod.get("affinity") or {}) + json.dumps(
        pod.get("nodeSelector") or {}
    )
    serve: list[str] = []
    unknown: list[str] = []
    for pool in (p for p in pools if p.name in served):
        typed = INSTANCE_TYPE_LABEL in pool.node["metadata"]["labels"]
        (serve if typed or not by_type else unknown).append(pool.node_name)
    if labels.get("app.kubernetes.io/name") in EVERYWHERE:
        return serve, [], unknown
    return serve, [p.node_name for p in pools if p.name not in served], unknown


def check_placement(
    core: Any, daemonset: dict[str, Any], serve: list[str], avoid: list[str], where: str
) -> None:
    """A bound pod on every node of `serve`; none made for a node of `avoid`."""
    deadline = time.monotonic() + 90
    bound: dict[str, str] = {}
    while time.monotonic() < deadline:
        pods = daemon_pods(core, daemonset)
        bound = {t: p.spec.node_name for p in pods if (t := _target(p)) and p.spec.node_name}
        if all(node in bound for node in serve):
            break
        time.sleep(0.5)
    missing = [node for node in serve if bound.get(node) != node]
    name = daemonset["metadata"]["name"]
    if missing:
        namespace = daemonset["metadata"]["namespace"]
        events = [
            f"{e.involved_object.kind} {e.involved_object.name}: {e.reason} {e.message}"
            for e in core.list_namespaced_event(namespace).items
            if e.type == "Warning"
        ]
        pytest.fail(
            f"{where}: DaemonSet {name} has no bound pod on {missing} (bound: {sorted(bound)}); "
            f"warnings in {namespace}: {events[-5:]}",
            pytrace=False,
        )
    made_for = {_target(p) for p in daemon_pods(core, daemonset)}
    wrong = sorted(node for node in avoid if node in made_for)
    assert not wrong, f"{where}: DaemonSet {name} runs on {wrong}, of pools it does not serve"
    count(
        "rendered DaemonSet pods bound on served pools (DaemonSet controller + kube-scheduler)",
        len(serve),
    )
    count("rendered DaemonSets kept off pools they do not serve", len(avoid))


def clean_up(dynamic: Any, core: Any, rendered: list[dict[str, Any]], nodes: list[str]) -> None:
    """The release's namespaced objects and DaemonSet pods deleted (no garbage collector
    here), and the stand-in nodes: the next program starts from none of them."""
    from kubernetes.client.exceptions import ApiException

    for manifest in rendered:
        if manifest["kind"] in FIRST or not _kind_served(dynamic, manifest):
            continue
        resource = dynamic.resources.get(api_version=manifest["apiVersion"], kind=manifest["kind"])
        try:
            dynamic.delete(
                resource,
                name=manifest["metadata"]["name"],
                namespace=manifest["metadata"].get("namespace") if resource.namespaced else None,
                # Not a Job's default (orphan), whose finalizer only the garbage collector
                # (not run here) removes.
                body={"propagationPolicy": "Background"},
            )
        except ApiException as error:
            if error.status != 404:
                raise
        if manifest["kind"] == "DaemonSet":
            for pod in daemon_pods(core, manifest):
                core.delete_namespaced_pod(
                    pod.metadata.name, pod.metadata.namespace, grace_period_seconds=0
                )
    for node in nodes:
        core.delete_node(node)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_rendered_charts_are_applied_and_their_daemonsets_run_where_the_stack_says(
    program: str,
    daemonset_controller: ControlPlane,
    dynamic_client: Any,
    api_client: Any,
    monkeypatch: pytest.MonkeyPatch,
    record_property: Any,
) -> None:
    from kubernetes import client

    helm, charts = require_helm(), require_charts()
    core = client.CoreV1Api(api_client)
    capture, specs = stacks_of(program, monkeypatch)
    releases = releases_of(capture)
    if not releases:
        pytest.skip(f"{program}: no Helm release (OKE add-ons install the software there)")
    not_served: list[str] = []
    unproven: list[str] = []
    for stack_name, spec in sorted(specs.items()):
        plans = {plan.name: plan for plan in plan_releases(stack_name, spec)}
        pools = stand_in_nodes(program, capture, spec)
        create_nodes(core, pools)
        rendered_all: list[dict[str, Any]] = []
        try:
            for release in (r for r in releases if r.inputs["name"] in plans):
                rendered = render(helm, release, charts)
                count("Helm releases rendered by helm from the pinned charts")
                not_served += apply_rendered(dynamic_client, release, rendered)
                rendered_all += rendered
                served = set(plans[release.inputs["name"]].pools)
                for daemonset in (o for o in rendered if o["kind"] == "DaemonSet"):
                    serve, avoid, unknown = expected_nodes(daemonset, pools, served)
                    unproven += unknown
                    check_placement(core, daemonset, serve, avoid, f"{program} {release.name}")
        finally:
            clean_up(dynamic_client, core, rendered_all, [p.node_name for p in pools])
    record_property("not served here", not_served)
    record_property("nodes without an instance type (placement by type unproven)", unproven)
    record_property("nodes without an instance type (placement by type unproven)", unproven)
