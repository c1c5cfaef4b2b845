"""Each pool's nodes against the plan: how many, their labels and taints, whether they are
Ready, what accelerators they advertise; for Karpenter pools, their NodeClaims and limits."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from nodepools.doctor.expected import PoolPlan
from nodepools.doctor.fields import Obj, condition, entries, field, name, strings, text
from nodepools.doctor.findings import Finding, PoolStatus
from nodepools.doctor.live import LiveCluster
from nodepools.specs.core.kube import parse_amount
from nodepools.specs.core.taints import Taint

# Labels in these prefixes are ours: one on a node that the plan doesn't give is a leftover
# (a renamed label, an older version of the pool).
OWN_LABEL_PREFIXES = ("nodepools.dev/",)
REPELLING = ("NoSchedule", "NoExecute")
CORDON_TAINT = "node.kubernetes.io/unschedulable"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
CLAIM_STAGES = ("Launched", "Registered", "Initialized")
# The reason of a condition Karpenter has not reconciled yet (operatorpkg's status package).
AWAITING = "AwaitingReconciliation"


def node_taints(node: Obj) -> list[Taint]:
    return [
        Taint(key=text(t, "key"), value=text(t, "value") or None, effect=text(t, "effect"))
        for t in entries(node, "spec", "taints")
    ]


def allocatable(node: Obj, resource: str) -> Fraction:
    value = field(node, "status", "allocatable").get(resource)
    return Fraction(0) if value is None else parse_amount(value)


def not_ready_reason(node: Obj) -> str | None:
    """None when the node is Ready; else why not, as the kubelet reported it."""
    ready = condition(node, "Ready")
    if ready is None:
        return "no Ready condition (the kubelet never reported)"
    if ready.get("status") == "True":
        return None
    return text(ready, "message") or text(ready, "reason") or "not Ready"


def pool_nodes(pool: PoolPlan, nodes: Iterable[Obj]) -> list[Obj]:
    key, value = pool.identity
    return sorted(
        (n for n in nodes if strings(n, "metadata", "labels").get(key) == value), key=name
    )


def used_up(limits: dict[str, object], used: dict[str, object]) -> list[tuple[str, object, object]]:
    """(resource, used, limit) for every limit a Karpenter NodePool has reached."""
    return [
        (resource, used.get(resource, 0), limit)
        for resource, limit in sorted(limits.items())
        if parse_amount(used.get(resource, 0)) >= parse_amount(limit)
    ]


def live_nodepool(pool: PoolPlan, live: LiveCluster) -> Obj | None:
    return next((n for n in live.nodepools if name(n) == pool.nodepool), None)


def nodepool_limits(pool: PoolPlan, nodepool: Obj) -> list[tuple[str, object, object]]:
    limits = field(nodepool, "spec", "limits") or dict(pool.limits)
    return used_up(limits, field(nodepool, "status", "resources"))


def _amount(value: Fraction) -> str:
    return str(int(value)) if value.denominator == 1 else str(float(value))


def _label_findings(pool: PoolPlan, node: Obj) -> list[Finding]:
    subject, labels = f"node/{name(node)}", strings(node, "metadata", "labels")
    found: list[Finding] = []
    for key, want in sorted(pool.labels.items()):
        if key not in labels:
            found.append(
                Finding(pool.name, "label-missing", subject, f"label {key}={want!r} is missing")
            )
        elif labels[key] != want:
            message = f"label {key} is {labels[key]!r}, the plan says {want!r}"
            found.append(Finding(pool.name, "label-different", subject, message))
    for key in sorted(labels):
        if key.startswith(OWN_LABEL_PREFIXES) and key not in pool.labels:
            message = f"label {key}={labels[key]!r} is not in the plan"
            found.append(Finding(pool.name, "label-extra", subject, message))
    return found


def _taint_findings(pool: PoolPlan, node: Obj) -> list[Finding]:
    subject = f"node/{name(node)}"
    have = {(t.key, t.effect): t for t in node_taints(node)}
    want = {(t.key, t.effect): t for t in pool.taints}
    found: list[Finding] = []
    for identity, taint in sorted(want.items()):
        if identity not in have:
            message = f"taint {taint} is missing: pods without the toleration can land here"
            found.append(Finding(pool.name, "taint-missing", subject, message))
        elif (have[identity].value or "") != (taint.value or ""):
            message = f"taint is {have[identity]}, the plan says {taint}"
            found.append(Finding(pool.name, "taint-different", subject, message))
    for identity, taint in sorted(have.items()):
        # A cordon's taint is reported as the cordon (node-cordoned).
        if identity not in want and taint.effect in REPELLING and taint.key != CORDON_TAINT:
            message = (
                f"taint {taint} is not in the plan: the pool's scheduling info doesn't tolerate it"
            )
            found.append(Finding(pool.name, "taint-extra", subject, message))
    return found


def _accelerator_findings(pool: PoolPlan, node: Obj, status: PoolStatus) -> list[Finding]:
    subject = f"node/{name(node)}"
    found: list[Finding] = []
    for resource, per_node in sorted(pool.advertised.items()):
        have = allocatable(node, resource)
        status.advertised[resource] = status.advertised.get(resource, 0) + int(have)
        if have == 0:
            message = (
                f"advertises 0 {resource} (the plan says {per_node} per node): its device "
                "plugin is not running there or found no device"
            )
            found.append(Finding(pool.name, "accelerators-zero", subject, message))
        elif have < per_node:
            message = f"advertises {_amount(have)} {resource}, the plan says {per_node} per node"
            found.append(Finding(pool.name, "accelerators-fewer", subject, message))
    return found


def _count_findings(pool: PoolPlan, count: int) -> list[Finding]:
    subject = f"pool/{pool.name}"
    if pool.min_nodes is not None and count < pool.min_nodes:
        key, value = pool.identity
        message = f"{count} nodes found by label {key}={value}, the minimum is {pool.min_nodes}"
        return [Finding(pool.name, "nodes-below-minimum", subject, message)]
    if pool.max_nodes is not None and count > pool.max_nodes:
        message = f"{count} nodes, the maximum is {pool.max_nodes}"
        return [Finding(pool.name, "nodes-above-maximum", subject, message)]
    return []


def _claim_failure(stage: str, state: Obj) -> str | None:
    """Why the NodeClaim is stuck at STAGE, or None while Karpenter is still on it.

    Karpenter marks a launch it could not make `Unknown`, not `False`: the reason is
    `LaunchFailed` (or the cloud provider's own reason) with the provider's error as message,
    and it retries until LaunchTimeout (5 minutes), then deletes the NodeClaim. Only the
    initial `AwaitingReconciliation` is progress. `Registered` and `Initialized` are Unknown
    while the node joins (NodeNotFound, NodeNotReady, ...): the node's own findings say why.
    A `False` condition is always a failure."""
    status, reason = state.get("status"), text(state, "reason")
    failed = status == "False" or (
        stage == "Launched" and status == "Unknown" and reason not in ("", AWAITING)
    )
    if not failed:
        return None
    why = text(state, "message") or reason
    retry = " (Karpenter retries, then deletes the NodeClaim)" if status == "Unknown" else ""
    return f"not {stage}{retry}: {why}" if why else f"not {stage}{retry}"


def _failed_claims(pool: PoolPlan, claims: Iterable[Obj]) -> list[Finding]:
    found: list[Finding] = []
    for claim in sorted(claims, key=name):
        for stage in CLAIM_STAGES:
            state = condition(claim, stage)
            message = None if state is None else _claim_failure(stage, state)
            if message is not None:
                found.append(
                    Finding(
                        pool.name,
                        f"nodeclaim-not-{stage.lower()}",
                        f"nodeclaim/{name(claim)}",
                        message,
                    )
                )
                break
    return found


def _claim_of(nodepool: str, claim: str) -> bool:
    """Whether CLAIM is a name Karpenter generated for NODEPOOL (`<nodepool>-<suffix>`, the
    suffix without dashes, so a pool `gpu` doesn't take `gpu-large`'s NodeClaims)."""
    prefix = f"{nodepool}-"
    return claim.startswith(prefix) and "-" not in claim[len(prefix) :]


def _capacity_findings(pool: PoolPlan, live: LiveCluster) -> list[Finding]:
    """NodeClaims of the pool Karpenter deleted for insufficient capacity (their events)."""
    present = {name(c) for c in live.nodeclaims}
    latest: dict[str, Obj] = {}
    for event in live.capacity_events:
        claim = text(event, "involvedObject", "name")
        if pool.nodepool and _claim_of(pool.nodepool, claim) and claim not in present:
            latest[claim] = event
    return [
        Finding(
            pool.name,
            "nodeclaim-insufficient-capacity",
            f"nodeclaim/{claim}",
            f"deleted by Karpenter, no capacity: {text(event, 'message')}",
        )
        for claim, event in sorted(latest.items())
    ]


def _karpenter_findings(pool: PoolPlan, live: LiveCluster, status: PoolStatus) -> list[Finding]:
    subject = f"nodepool/{pool.nodepool}"
    if not live.has_karpenter:
        message = "the cluster serves no karpenter.sh/v1 NodePools: is Karpenter installed?"
        return [Finding(pool.name, "karpenter-missing", subject, message)]
    nodepool = live_nodepool(pool, live)
    if nodepool is None:
        return [
            Finding(
                pool.name, "nodepool-missing", subject, "no such Karpenter NodePool in the cluster"
            )
        ]
    claims = [
        c
        for c in live.nodeclaims
        if strings(c, "metadata", "labels").get(NODEPOOL_LABEL) == pool.nodepool
    ]
    status.nodeclaims = len(claims)
    used = field(nodepool, "status", "resources")
    for resource, limit in (field(nodepool, "spec", "limits") or dict(pool.limits)).items():
        status.limits[resource] = f"{used.get(resource, 0)}/{limit}"
    found = _failed_claims(pool, claims) + _capacity_findings(pool, live)
    for resource, used, limit in nodepool_limits(pool, nodepool):
        message = f"uses {used} {resource} of its limit {limit}: Karpenter launches no more nodes"
        found.append(Finding(pool.name, "limits-reached", subject, message))
    return found


def check_pool(pool: PoolPlan, live: LiveCluster) -> tuple[PoolStatus, list[Finding]]:
    """The pool's status and every finding about its nodes."""
    nodes = pool_nodes(pool, live.nodes)
    status = PoolStatus(pool.name, [name(n) for n in nodes], pool.min_nodes, pool.max_nodes)
    found = _count_findings(pool, len(nodes))
    for node in nodes:
        subject = f"node/{name(node)}"
        reason = not_ready_reason(node)
        if reason is not None:
            found.append(Finding(pool.name, "node-not-ready", subject, f"not Ready: {reason}"))
        if field(node, "spec").get("unschedulable"):
            found.append(Finding(pool.name, "node-cordoned", subject, "cordoned (unschedulable)"))
        found += _label_findings(pool, node)
        found += _taint_findings(pool, node)
        found += _accelerator_findings(pool, node, status)
    if pool.is_karpenter:
        found += _karpenter_findings(pool, live, status)
    return status, found
