"""What the plan promises, per pool and per device release: the half of the comparison that
comes from our side. Built from the offline plan of the stack (its JSON document and the
capture of what the components registered), never from the cluster."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from nodepools.doctor.fields import Obj, entries, field, strings, text
from nodepools.json_values import is_dict, is_list
from nodepools.offline import Capture
from nodepools.specs.core.taints import Taint

# The label that finds a pool's nodes, in the order tried: ours (every component sets it
# unless told not to), then Karpenter's own (always on the nodes a NodePool launches).
IDENTITY_LABELS = ("nodepools.dev/pool", "karpenter.sh/nodepool")

# The extended resource each chart's DaemonSets make the nodes advertise: a release serves
# the pools that advertise it (EFA: the pools the stack enables EFA on).
CHART_RESOURCES = {
    "gpu-operator": "nvidia.com/gpu",
    "nvidia-device-plugin": "nvidia.com/gpu",
    "amd-gpu": "amd.com/gpu",
    "neuron-helm-chart": "aws.amazon.com/neuron",
    "aws-efa-k8s-device-plugin": "vpc.amazonaws.com/efa",
}
EFA_RESOURCE = "vpc.amazonaws.com/efa"


@dataclass(frozen=True)
class PoolPlan:
    """One pool as planned."""

    name: str
    component: str
    backend: str
    identity: tuple[str, str]  # (label key, value) that finds the pool's nodes
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    min_nodes: int | None
    max_nodes: int | None
    autoscaled: bool
    advertised: Mapping[str, int]  # resource -> units per node, as the device software offers
    scheduling: Obj
    limits: dict[str, Any]  # Karpenter NodePool limits
    nodepool: str | None  # the Karpenter NodePool's name

    @property
    def is_karpenter(self) -> bool:
        return self.nodepool is not None


@dataclass(frozen=True)
class ReleasePlan:
    """One Helm release of an AcceleratorStack and the pools whose nodes its DaemonSets
    must run on."""

    name: str
    namespace: str
    chart: str
    stack: str
    serves: tuple[str, ...]


@dataclass(frozen=True)
class QueuePlan:
    """One Kueue LocalQueue the stack's PoolQuotas create: `namespace/name`, its project."""

    namespace: str
    name: str
    project: str
    quotas: str


@dataclass(frozen=True)
class Expectations:
    stack: str
    pools: tuple[PoolPlan, ...]
    releases: tuple[ReleasePlan, ...] = ()
    queues: tuple[QueuePlan, ...] = ()
    resources: frozenset[str] = dataclass_field(default_factory=frozenset[str])

    def pool(self, name: str) -> PoolPlan:
        return next(p for p in self.pools if p.name == name)


def _whole(value: Any) -> int | None:
    return None if value is None else int(value)


def _identity(scheduling: Obj, labels: Mapping[str, str], name: str) -> tuple[str, str]:
    selector: Mapping[str, str] = scheduling.get("nodeSelector") or {}
    for key in IDENTITY_LABELS:
        if key in selector:
            return key, str(selector[key])
        if key in labels:
            return key, str(labels[key])
    if selector:
        key = sorted(selector)[0]
        return key, str(selector[key])
    return IDENTITY_LABELS[0], name


def pool_plan(entry: Obj, advertised: Mapping[str, int]) -> PoolPlan:
    """A pool of the plan document (`pools[]`), with what the device software advertises."""
    scheduling = field(entry, "scheduling")
    labels = strings(entry, "labels")
    nodes = field(entry, "nodes")
    accelerator = field(entry, "accelerator")
    offered = dict(advertised)
    if not offered and accelerator.get("resource") and accelerator.get("per_node"):
        offered[text(accelerator, "resource")] = int(accelerator["per_node"])
    karpenter = entry.get("backend") == "karpenter"
    taints: list[Any] = entry["taints"] if is_list(entry.get("taints")) else []
    return PoolPlan(
        name=text(entry, "name"),
        component=text(entry, "component"),
        backend=text(entry, "backend"),
        identity=_identity(scheduling, labels, text(entry, "name")),
        labels=labels,
        taints=tuple(Taint.model_validate(t) for t in taints),
        min_nodes=_whole(nodes.get("min")),
        max_nodes=_whole(nodes.get("max")),
        autoscaled=bool(nodes.get("autoscaled")),
        advertised=offered,
        scheduling=scheduling,
        limits=field(entry, "limits") if karpenter else {},
        nodepool=(text(entry, "resource_name") or text(entry, "name")) if karpenter else None,
    )


def _stack_outputs(capture: Capture) -> dict[str, Obj]:
    """AcceleratorStack name -> its registered outputs (advertised, efa)."""
    stacks: dict[str, Obj] = {}
    for resource in capture.resources:
        if resource.type == "nodepools:index:AcceleratorStack":
            stacks[resource.name] = dict(resource.outputs or resource.inputs)
    return stacks


def _releases(capture: Capture, stacks: Mapping[str, Obj]) -> list[ReleasePlan]:
    releases: list[ReleasePlan] = []
    for resource in capture.resources:
        if resource.type != "kubernetes:helm.sh/v3:Release" or not resource.parent:
            continue
        stack = resource.parent.rsplit("::", 1)[-1]
        outputs = stacks.get(stack)
        if outputs is None:
            continue
        chart = text(resource.inputs, "chart").rsplit("/", 1)[-1]
        wanted = CHART_RESOURCES.get(chart)
        if wanted == EFA_RESOURCE:
            serves = sorted(field(outputs, "efa"))
        else:
            serves = sorted(
                pool
                for pool, offer in field(outputs, "advertised").items()
                if wanted is None or (is_dict(offer) and offer.get("resource") == wanted)
            )
        releases.append(
            ReleasePlan(
                name=text(resource.inputs, "name") or resource.name,
                namespace=text(resource.inputs, "namespace") or "default",
                chart=chart,
                stack=stack,
                serves=tuple(serves),
            )
        )
    return sorted(releases, key=lambda r: (r.namespace, r.name))


def _advertised(stacks: Mapping[str, Obj]) -> dict[str, dict[str, int]]:
    offered: dict[str, dict[str, int]] = {}
    for outputs in stacks.values():
        for pool, offer in field(outputs, "advertised").items():
            if is_dict(offer) and offer.get("resource") and offer.get("count"):
                offered.setdefault(pool, {})[text(offer, "resource")] = int(offer["count"])
    return offered


def expectations(document: Obj, capture: Capture) -> Expectations:
    """The plan's promises: `document` is the stack's plan document (`plan --format json`),
    `capture` what its program registered."""
    stacks = _stack_outputs(capture)
    offered = _advertised(stacks)
    pools = tuple(
        pool_plan(entry, offered.get(text(entry, "name"), {}))
        for entry in sorted(entries(document, "pools"), key=lambda e: text(e, "name"))
    )
    queues = {
        (text(row, "queue"), text(row, "project"), text(row, "quotas"))
        for row in entries(document, "quotas")
        if "/" in text(row, "queue")
    }
    resources = {r for pool in pools for r in pool.advertised} | {
        r for pool in pools for r in field(pool.scheduling, "resources", "limits")
    }
    return Expectations(
        stack=text(document, "stack"),
        pools=pools,
        releases=tuple(_releases(capture, stacks)),
        queues=tuple(
            QueuePlan(*queue.split("/", 1), project=project, quotas=quotas)
            for queue, project, quotas in sorted(queues)
        ),
        resources=frozenset(resources),
    )
