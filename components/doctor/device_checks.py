"""The device software on the pools it serves: every DaemonSet of each AcceleratorStack's
Helm releases must have a Ready pod on every node of those pools; where it has none, say
why (a taint its pods don't tolerate, a node selector the node lacks)."""

from __future__ import annotations

from collections.abc import Iterable

from nodepools.doctor.expected import Expectations, ReleasePlan
from nodepools.doctor.fields import Obj, condition, entries, field, name, namespace, strings, text
from nodepools.doctor.findings import Finding
from nodepools.doctor.live import LiveCluster
from nodepools.doctor.pool_checks import node_taints, pool_nodes
from nodepools.specs.core.node_matching import selects, untolerated

HELM_RELEASE_ANNOTATION = "meta.helm.sh/release-name"
INSTANCE_LABEL = "app.kubernetes.io/instance"
# The GPU Operator's operands (device plugin, container toolkit, DCGM, ...) are created by
# its controller from the ClusterPolicy, not by Helm: they are owned by the ClusterPolicy.
OPERATOR_OWNER_KINDS = {"gpu-operator": "ClusterPolicy"}


def release_daemonsets(release: ReleasePlan, daemonsets: Iterable[Obj]) -> list[Obj]:
    owner_kind = OPERATOR_OWNER_KINDS.get(release.chart)
    found: list[Obj] = []
    for ds in daemonsets:
        if namespace(ds) != release.namespace:
            continue
        owners = {text(o, "kind") for o in entries(ds, "metadata", "ownerReferences")}
        if (
            strings(ds, "metadata", "annotations").get(HELM_RELEASE_ANNOTATION) == release.name
            or strings(ds, "metadata", "labels").get(INSTANCE_LABEL) == release.name
            or (owner_kind is not None and owner_kind in owners)
        ):
            found.append(ds)
    return sorted(found, key=name)


def _pod_ready(pod: Obj) -> str | None:
    """None when Ready; else why not (the first waiting container's reason, or the phase)."""
    ready = condition(pod, "Ready")
    if ready is not None and ready.get("status") == "True":
        return None
    for container in entries(pod, "status", "containerStatuses"):
        waiting = field(container, "state", "waiting")
        if waiting:
            reason = f"container {text(container, 'name')} {text(waiting, 'reason') or 'waiting'}"
            return f"{reason}: {text(waiting, 'message')}" if text(waiting, "message") else reason
    return f"phase {text(pod, 'status', 'phase') or 'unknown'}, not Ready"


def _why_no_pod(ds: Obj, node: Obj) -> str:
    spec = field(ds, "spec", "template", "spec")
    labels = strings(node, "metadata", "labels")
    blocking = untolerated(entries(spec, "tolerations"), node_taints(node))
    if blocking:
        return f"its pods don't tolerate the node's taint {blocking[0]}"
    selector = strings(spec, "nodeSelector")
    if not selects(selector, field(spec, "affinity"), labels):
        missing = {k: v for k, v in selector.items() if labels.get(k) != v}
        if missing:
            shown = ", ".join(f"{k}={v}" for k, v in sorted(missing.items()))
            return f"its node selector asks for {shown}, which the node lacks"
        return "its required node affinity doesn't match the node's labels"
    return "it may run there but has no pod yet (the DaemonSet controller hasn't created one)"


def _daemonset_findings(
    ds: Obj, served: Iterable[str], plan: Expectations, live: LiveCluster
) -> list[Finding]:
    uid = text(ds, "metadata", "uid")
    subject = f"daemonset/{namespace(ds)}/{name(ds)}"
    pods = [
        p
        for p in live.pods
        if any(text(o, "uid") == uid for o in entries(p, "metadata", "ownerReferences"))
    ]
    by_node = {text(p, "spec", "nodeName"): p for p in pods}
    found: list[Finding] = []
    for pool in (plan.pool(n) for n in served):
        for node in pool_nodes(pool, live.nodes):
            pod = by_node.get(name(node))
            if pod is None:
                message = f"no pod on node {name(node)}: {_why_no_pod(ds, node)}"
                found.append(Finding(pool.name, "daemonset-no-pod", subject, message))
                continue
            reason = _pod_ready(pod)
            if reason is not None:
                message = f"pod {name(pod)} on node {name(node)}: {reason}"
                found.append(Finding(pool.name, "daemonset-pod-not-ready", subject, message))
    return found


def check_releases(plan: Expectations, live: LiveCluster) -> list[Finding]:
    found: list[Finding] = []
    planned = {p.name for p in plan.pools}
    for release in plan.releases:
        served = [n for n in release.serves if n in planned]
        daemonsets = release_daemonsets(release, live.daemonsets)
        if not daemonsets and served:
            message = (
                f"no DaemonSet of Helm release {release.name} ({release.chart}) in namespace "
                f"{release.namespace}: the pools {', '.join(served)} get no device software"
            )
            found.append(
                Finding(
                    "", "release-missing", f"release/{release.namespace}/{release.name}", message
                )
            )
        for ds in daemonsets:
            found += _daemonset_findings(ds, served, plan, live)
    return found
