"""Why is my pod pending? Every Pending pod that asks for an accelerator the stack's pools
advertise, or selects one of its pools, is matched to the pool its scheduling info points
at, and given the first reason it can't run there, in the order a user fixes them: held
by its queue, a node selector the pool's nodes lack, a taint it doesn't tolerate, a
resource the pool doesn't advertise (or more than a node has), the pool at its maximum or
its limits, nodes advertising nothing; else the scheduler's own FailedScheduling message.
Kueue Workloads that are not admitted are reported with their queue and Kueue's reason."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from nodepools.doctor.expected import IDENTITY_LABELS, Expectations, PoolPlan
from nodepools.doctor.fields import Obj, condition, entries, field, name, namespace, strings, text
from nodepools.doctor.findings import Finding
from nodepools.doctor.live import LiveCluster
from nodepools.doctor.pool_checks import allocatable, live_nodepool, nodepool_limits, pool_nodes
from nodepools.specs.core.kube import parse_amount
from nodepools.specs.core.node_matching import untolerated

KUEUE_GATE = "kueue.x-k8s.io/admission"


def requests(pod: Obj) -> dict[str, Fraction]:
    """What the pod asks of a node, per resource: the sum over its containers (limits stand
    for requests where a container sets only limits, as the API server defaults them), or
    the largest init container's when larger."""

    def asked(container: Obj) -> dict[str, Fraction]:
        merged = {
            **field(container, "resources", "limits"),
            **field(container, "resources", "requests"),
        }
        return {k: parse_amount(v) for k, v in merged.items()}

    total: dict[str, Fraction] = {}
    for container in entries(pod, "spec", "containers"):
        for resource, amount in asked(container).items():
            total[resource] = total.get(resource, Fraction(0)) + amount
    for container in entries(pod, "spec", "initContainers"):
        for resource, amount in asked(container).items():
            total[resource] = max(total.get(resource, Fraction(0)), amount)
    return total


def _is_pending(pod: Obj) -> bool:
    return text(pod, "status", "phase") == "Pending" and not text(pod, "spec", "nodeName")


def _candidates(pod: Obj, plan: Expectations, asked: Mapping[str, Fraction]) -> list[PoolPlan]:
    selector = strings(pod, "spec", "nodeSelector")
    by_identity = [p for p in plan.pools if selector.get(p.identity[0]) == p.identity[1]]
    if by_identity:
        return by_identity
    if any(key in selector for key in IDENTITY_LABELS):
        return []  # it names a pool this stack doesn't have
    by_labels = [
        p for p in plan.pools if selector and all(p.labels.get(k) == v for k, v in selector.items())
    ]
    if by_labels:
        return by_labels
    return [p for p in plan.pools if any(r in p.advertised for r in asked if r in plan.resources)]


def _selector_problem(pod: Obj, pool: PoolPlan) -> str | None:
    labels = {**pool.labels, **strings(pool.scheduling, "nodeSelector")}
    for key, value in sorted(strings(pod, "spec", "nodeSelector").items()):
        if labels.get(key) != value:
            have = f"{key}={labels[key]}" if key in labels else f"no {key} label"
            return f"node selector {key}={value}: the pool's nodes have {have}"
    return None


def _resource_problem(
    pool: PoolPlan, asked: Mapping[str, Fraction], plan: Expectations
) -> tuple[str, str] | None:
    for resource, amount in sorted(asked.items()):
        if resource not in plan.resources:
            continue
        offered = pool.advertised.get(resource)
        if offered is None:
            return (
                "resource-not-advertised",
                f"asks for {resource}, which pool {pool.name} doesn't advertise",
            )
        if amount > offered:
            return (
                "resource-over-node",
                f"asks for {amount} {resource}; a node of pool {pool.name} has {offered}",
            )
    return None


def _capacity_problem(
    pool: PoolPlan, asked: Mapping[str, Fraction], live: LiveCluster
) -> tuple[str, str] | None:
    nodes = pool_nodes(pool, live.nodes)
    if pool.is_karpenter:
        nodepool = live_nodepool(pool, live)
        reached = nodepool_limits(pool, nodepool) if nodepool is not None else []
        if reached:
            resource, _, limit = reached[0]
            return (
                "limits-reached",
                f"NodePool {pool.nodepool} has used its limit of {limit} {resource}",
            )
    elif pool.max_nodes is not None and len(nodes) >= pool.max_nodes:
        return "pool-at-maximum", f"pool {pool.name} is at its maximum of {pool.max_nodes} nodes"
    for resource in sorted(r for r in asked if r in pool.advertised):
        if nodes and all(allocatable(n, resource) == 0 for n in nodes):
            message = (
                f"the pool's {len(nodes)} nodes advertise 0 {resource} (see the pool's findings)"
            )
            return "resource-zero-on-nodes", message
    return None


def _reason(
    pod: Obj, pool: PoolPlan, asked: Mapping[str, Fraction], plan: Expectations, live: LiveCluster
) -> tuple[str, str]:
    gates = [text(g, "name") for g in entries(pod, "spec", "schedulingGates")]
    if KUEUE_GATE in gates:
        return "held-by-queue", "held by Kueue until its workload is admitted (see its Workload)"
    if gates:
        return "scheduling-gated", f"held by scheduling gates {', '.join(gates)}"
    selector = _selector_problem(pod, pool)
    if selector is not None:
        return "selector-mismatch", selector
    blocking = untolerated(entries(pod, "spec", "tolerations"), pool.taints)
    if blocking:
        return (
            "taint-not-tolerated",
            f"doesn't tolerate the pool's taint {blocking[0]} (its scheduling info has the toleration)",
        )
    problem = _resource_problem(pool, asked, plan) or _capacity_problem(pool, asked, live)
    if problem is not None:
        return problem
    message = _scheduler_message(pod, live.events)
    if message:
        return "scheduler", f"the scheduler says: {message}"
    return "pending", "pending with no reason found yet (no FailedScheduling event)"


def _scheduler_message(pod: Obj, events: Iterable[Obj]) -> str | None:
    uid = text(pod, "metadata", "uid")
    mine = [
        e
        for e in events
        if text(e, "involvedObject", "name") == name(pod)
        and text(e, "involvedObject", "namespace") == namespace(pod)
        and text(e, "involvedObject", "uid") in ("", uid)
    ]
    if not mine:
        return None
    latest = max(mine, key=lambda e: text(e, "lastTimestamp") or text(e, "eventTime"))
    return text(latest, "message").strip() or None


def check_pending_pods(
    plan: Expectations, live: LiveCluster, only_namespace: str | None = None
) -> list[Finding]:
    found: list[Finding] = []
    for pod in sorted(live.pods, key=lambda p: (namespace(p), name(p))):
        if not _is_pending(pod) or (only_namespace and namespace(pod) != only_namespace):
            continue
        asked = requests(pod)
        selector = strings(pod, "spec", "nodeSelector")
        if not (
            any(r in plan.resources for r in asked) or any(k in selector for k in IDENTITY_LABELS)
        ):
            continue
        subject = f"pod/{namespace(pod)}/{name(pod)}"
        candidates = _candidates(pod, plan, asked)
        if not candidates:
            shown = ", ".join(f"{k}={v}" for k, v in sorted(selector.items())) or "none"
            message = f"pending; its node selector ({shown}) matches no pool of stack {plan.stack}"
            found.append(Finding("", "pod-matches-no-pool", subject, message))
            continue
        pool = candidates[0]
        kind, why = _reason(pod, pool, asked, plan, live)
        found.append(Finding(pool.name, kind, subject, f"pending on pool {pool.name}: {why}"))
    return found


def _settled(workload: Obj) -> bool:
    return any(
        (state := condition(workload, kind)) is not None and state.get("status") == "True"
        for kind in ("Finished", "Admitted")
    )


def check_workloads(
    plan: Expectations, live: LiveCluster, only_namespace: str | None = None
) -> list[Finding]:
    if plan.queues and not live.has_kueue:
        message = "the stack has PoolQuotas, the cluster serves no Kueue API: is Kueue installed?"
        return [Finding("", "kueue-missing", "kueue", message)]
    cluster_queue_of = {
        (namespace(q), name(q)): text(q, "spec", "clusterQueue") for q in live.local_queues
    }
    found: list[Finding] = []
    for queue in plan.queues:
        if live.has_kueue and (queue.namespace, queue.name) not in cluster_queue_of:
            message = f"project {queue.project}'s LocalQueue is not in the cluster"
            found.append(
                Finding(
                    "", "localqueue-missing", f"localqueue/{queue.namespace}/{queue.name}", message
                )
            )
    for workload in sorted(live.workloads, key=lambda w: (namespace(w), name(w))):
        if (only_namespace and namespace(workload) != only_namespace) or _settled(workload):
            continue
        queue = text(workload, "spec", "queueName")
        where = f"queue {namespace(workload)}/{queue}"
        subject = f"workload/{namespace(workload)}/{name(workload)}"
        if (namespace(workload), queue) not in cluster_queue_of:
            found.append(
                Finding("", "workload-no-queue", subject, f"names {where}, which doesn't exist")
            )
            continue
        where += f" (ClusterQueue {cluster_queue_of[(namespace(workload), queue)]})"
        reserved = condition(workload, "QuotaReserved") or {}
        why = text(reserved, "message") or "waiting for quota"
        found.append(
            Finding("", "workload-not-admitted", subject, f"not admitted by {where}: {why}")
        )
    return found
