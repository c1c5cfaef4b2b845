"""Where the pods of AcceleratorStack's software run, and what each pool then advertises.

Each DaemonSet pod template is taken from the values we set merged over the pinned chart's
defaults the way Helm merges them (maps deep-merged, lists replaced, null removes a key),
or from an OKE add-on's configuration, and matched against nodes modelled from the served
pools (their selecting labels, the labels the stack adds, and what the kubelet, NFD and the
GPU Operator put on a node) with Kubernetes' own rules (`nodepools.specs.core.node_matching`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from nodepools.json_values import dig
from nodepools.specs.core.labels import INSTANCE_TYPE_LABEL
from nodepools.specs.core.node_matching import selects, untolerated
from nodepools.specs.devices.args import (
    MIG_PROFILES,
    VENDOR_SOFTWARE,
    AcceleratorStackArgs,
    Nvidia,
    ServedPool,
    node_labels,
)
from nodepools.specs.devices.chart_facts import chart_facts
from nodepools.specs.devices.releases import (
    EFA_CHART,
    NEURON_CHART,
    plan_addons,
    plan_releases,
)

# The GPU Operator runs its operands (driver, toolkit, device plugin, DCGM, mig-manager) on
# nodes it labels `nvidia.com/gpu.present=true`: those where NFD found an NVIDIA PCI device.
OPERAND_LABEL = "nvidia.com/gpu.present"
NVIDIA_PCI_LABEL = "feature.node.kubernetes.io/pci-10de.present"


@dataclass(frozen=True)
class DaemonPlacement:
    """The scheduling of one DaemonSet's pods: tolerations, node selector, node affinity.
    `everywhere`: meant for every node of the cluster (NFD's worker), so not kept off CPU
    nodes."""

    release: str
    daemon: str
    vendor: str
    tolerations: tuple[Mapping[str, Any], ...]
    node_selector: Mapping[str, str]
    affinity: Mapping[str, Any] | None
    everywhere: bool = False

    def admits(self, labels: Mapping[str, str]) -> bool:
        return selects(self.node_selector, self.affinity, labels)


def helm_merge(base: Any, overlay: Any) -> Any:
    """`overlay` (the values we set) over `base` (the chart's), as Helm merges them."""
    if not isinstance(base, dict) or not isinstance(overlay, dict):
        return copy.deepcopy(overlay)
    merged: dict[str, Any] = copy.deepcopy(cast("dict[str, Any]", base))
    for key, value in cast("dict[str, Any]", overlay).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = helm_merge(merged.get(key), value)
    return merged


def chart_placement_defaults(chart: str) -> dict[str, Any]:
    """The pinned chart's placement defaults as a values tree."""
    tree: dict[str, Any] = {}
    for path, value in chart_facts()[chart]["defaults"].items():
        node = tree
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = copy.deepcopy(value)
    return tree


def release_daemons(release: str, chart: str, values: Mapping[str, Any]) -> list[DaemonPlacement]:
    """The DaemonSets one release of `chart` runs, from the values it was given (as planned,
    or as registered) merged over the chart's defaults."""
    merged: dict[str, Any] = helm_merge(chart_placement_defaults(chart), dict(values))

    def tolerations(path: str) -> tuple[Mapping[str, Any], ...]:
        return tuple(dig(merged, path) or ())

    if chart == "gpu-operator":
        return [
            DaemonPlacement(
                release, "operands", "nvidia", tolerations("daemonsets.tolerations"),
                {OPERAND_LABEL: "true"}, None,
            ),
            DaemonPlacement(
                release, "nfd-worker", "nvidia",
                tolerations("node-feature-discovery.worker.tolerations"), {}, None,
                everywhere=True,
            ),
        ]  # fmt: skip
    if chart == "nvidia-device-plugin":
        return [
            DaemonPlacement(
                release, "device-plugin", "nvidia", tolerations("tolerations"),
                merged.get("nodeSelector") or {}, merged.get("affinity"),
            )
        ]  # fmt: skip
    if chart == "amd-gpu":
        selector: dict[str, str] = (
            (merged.get("node_selector") or {}) if merged.get("node_selector_enabled") else {}
        )
        return [
            DaemonPlacement(
                release, "device-plugin", "amd", tolerations("tolerations"), selector, None
            )
        ]
    if chart == NEURON_CHART[1]:
        # The chart's template adds this affinity itself, from `neuronInstances`.
        affinity = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": INSTANCE_TYPE_LABEL,
                                    "operator": "In",
                                    "values": list(merged.get("neuronInstances") or []),
                                }
                            ]
                        }
                    ]
                }
            }
        }
        return [
            DaemonPlacement(
                release, "device-plugin", "aws", tolerations("devicePlugin.tolerations"),
                dig(merged, "devicePlugin.nodeSelector") or {}, affinity,
            )
        ]  # fmt: skip
    if chart == EFA_CHART[1]:
        # The chart's template: CriticalAddonsOnly before our list, and a node affinity on
        # `supportedInstanceLabels` (one term per key, the last also keeping EKS Auto Mode
        # nodes out, which bring their own EFA support).
        keys = list(dig(merged, "supportedInstanceLabels.keys") or [])
        types = list(dig(merged, "supportedInstanceLabels.values") or [])
        terms: list[dict[str, Any]] = [
            {"matchExpressions": [{"key": key, "operator": "In", "values": types}]} for key in keys
        ]
        if terms:
            terms[-1]["matchExpressions"].append(
                {"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["auto"]}
            )
        affinity = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
            }
        }
        return [
            DaemonPlacement(
                release, "efa-device-plugin", "efa",
                ({"key": "CriticalAddonsOnly", "operator": "Exists"}, *tolerations("tolerations")),
                merged.get("nodeSelector") or {}, affinity,
            )
        ]  # fmt: skip
    raise ValueError(f"unknown chart {chart!r}")


def addon_daemons(
    name: str, vendor: str, configurations: Mapping[str, str]
) -> list[DaemonPlacement]:
    """The DaemonSet of an OKE GPU plugin add-on, from its configuration arguments."""

    def loaded(key: str) -> Any:
        return json.loads(configurations[key]) if key in configurations else None

    return [
        DaemonPlacement(
            name,
            "device-plugin",
            vendor,
            tuple(loaded("tolerations") or ()),
            loaded("nodeSelectors") or {},
            loaded("affinity"),
        )
    ]


def planned_daemons(name: str, spec: AcceleratorStackArgs) -> list[DaemonPlacement]:
    """Every DaemonSet the stack's releases and add-ons run."""
    daemons: list[DaemonPlacement] = []
    for release in plan_releases(name, spec):
        daemons += release_daemons(release.name, release.chart, release.values)
    for addon in plan_addons(name, spec):
        daemons += addon_daemons(addon.name, addon.vendor, addon.configurations)
    return daemons


def discovered_labels(pool: ServedPool, instance_type: str | None) -> dict[str, str]:
    """Labels a node of `pool` gets from the cloud's kubelet (its instance type) and, on an
    NVIDIA node, from NFD and the GPU Operator."""
    labels: dict[str, str] = {}
    if instance_type:
        labels[INSTANCE_TYPE_LABEL] = instance_type
    if pool.accelerator is not None and pool.accelerator.vendor == "nvidia":
        labels[NVIDIA_PCI_LABEL] = "true"
        labels[OPERAND_LABEL] = "true"
    return labels


def modeled_nodes(spec: AcceleratorStackArgs) -> list[tuple[ServedPool, dict[str, str]]]:
    """One node per served pool and instance type (one without a type when none is known),
    with the labels it would carry."""
    added = node_labels(spec)
    nodes: list[tuple[ServedPool, dict[str, str]]] = []
    for pool in sorted(spec.pools, key=lambda p: p.name):
        for instance_type in pool.instance_types or [None]:
            labels = {**pool.selector, **added.get(pool.name, {})}
            nodes.append((pool, {**labels, **discovered_labels(pool, instance_type)}))
    return nodes


@dataclass(frozen=True)
class Advertised:
    """What one node of a pool advertises once the stack runs, whether that is other than
    its accelerators as the pool describes them (MIG slices, time-sliced GPUs: `changed`),
    and whether the stack's pods for it tolerate every taint (and startup taint) of the
    pool and select its nodes."""

    pool: str
    software: str
    resource: str
    count: int
    tolerated: bool
    selected: bool
    changed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "software": self.software,
            "resource": self.resource,
            "count": self.count,
            "changed": self.changed,
            "tolerated": self.tolerated,
            "selected": self.selected,
        }


def software_of(spec: AcceleratorStackArgs, vendor: str) -> str:
    if vendor == "nvidia":
        return f"nvidia-{spec.nvidia_mode}"
    if vendor == "amd":
        return "amd-oke-addon" if spec.uses_oke_addons else "amd-gpu"
    return "neuron"


def advertised_resource(spec: AcceleratorStackArgs, pool: ServedPool) -> tuple[str, int]:
    """The resource and count one node of `pool` advertises after MIG or time slicing."""
    acc = pool.accelerator
    assert acc is not None
    nv = spec.nvidia or Nvidia()
    if acc.vendor != "nvidia":
        return acc.resource, acc.count
    profile = nv.mig.profile.get(pool.name)
    if profile is not None:
        count = acc.count * MIG_PROFILES[acc.model][profile]
        # `single` advertises the slices as nvidia.com/gpu, `mixed` by profile.
        resource = f"nvidia.com/mig-{profile}" if nv.mig.strategy == "mixed" else acc.resource
        return resource, count
    if pool.name in nv.time_slicing.replicas:
        return acc.resource, acc.count * nv.time_slicing.replicas[pool.name]
    return acc.resource, acc.count


def advertised(spec: AcceleratorStackArgs, name: str = "stack") -> list[Advertised]:
    """Per served accelerator pool, by name: software, advertised resource and count, and
    whether every DaemonSet of its vendor (and, for an EFA pool, the EFA device plugin's)
    tolerates the pool's taints and (unless meant for every node) selects each of its
    modelled nodes."""
    daemons = planned_daemons(name, spec)
    nodes = modeled_nodes(spec)
    out: list[Advertised] = []
    for pool in sorted(spec.pools, key=lambda p: p.name):
        acc = pool.accelerator
        if acc is None or acc.vendor not in VENDOR_SOFTWARE:
            continue
        # An EFA pool needs the EFA device plugin as well as its accelerator's.
        mine = [d for d in daemons if d.vendor == acc.vendor or (pool.efa and d.vendor == "efa")]
        tolerated = bool(mine) and all(
            not untolerated(d.tolerations, pool.all_taints) for d in mine
        )
        selected = bool(mine) and all(
            d.admits(labels) for d in mine for served, labels in nodes if served is pool
        )
        resource, count = advertised_resource(spec, pool)
        # Compared with the served pool's own accelerator, not a count shown elsewhere: a
        # Karpenter pool of several sizes has no one count per node, and asks for 1.
        changed = (resource, count) != (acc.resource, acc.count)
        software = software_of(spec, acc.vendor)
        out.append(Advertised(pool.name, software, resource, count, tolerated, selected, changed))
    return out


def efa_placement(spec: AcceleratorStackArgs, name: str = "stack") -> dict[str, dict[str, bool]]:
    """Per EFA pool the EFA device plugin serves: whether its pods tolerate the pool's taints
    (and startup taints) and select each of its modelled nodes. {} without EFA pools."""
    daemons = [d for d in planned_daemons(name, spec) if d.vendor == "efa"]
    nodes = modeled_nodes(spec)
    out: dict[str, dict[str, bool]] = {}
    for pool in spec.efa_pools:
        out[pool.name] = {
            "tolerated": bool(daemons)
            and all(not untolerated(d.tolerations, pool.all_taints) for d in daemons),
            "selected": bool(daemons)
            and all(
                d.admits(labels) for d in daemons for served, labels in nodes if served is pool
            ),
        }
    return out


def advertised_overrides(spec: AcceleratorStackArgs) -> dict[str, dict[str, Any]]:
    """Pool name -> `{resource, count}` one node advertises, for the served pools whose
    device software advertises something other than the hardware (MIG slices, time-sliced
    GPUs): a pool's `advertised` field, so its scheduling info and the cluster-autoscaler's
    node template say what the node will offer."""
    out: dict[str, dict[str, Any]] = {}
    for pool in sorted(spec.pools, key=lambda p: p.name):
        acc = pool.accelerator
        if acc is None:
            continue
        resource, count = advertised_resource(spec, pool)
        if (resource, count) != (acc.resource, acc.count):
            out[pool.name] = {"resource": resource, "count": count}
    return out
