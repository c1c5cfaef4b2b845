"""Every example stack's device software lands on every accelerator node of its vendor and
on no CPU node.

Nodes: one per pool and instance type, from the fleet's resolved pools (their labels, with
the ones the fleet adds for the AcceleratorStack; their taints and Karpenter startup
taints), or from the AcceleratorStack's own descriptions for pools the stack does not build,
plus what the kubelet, NFD and the GPU Operator label a node with. Daemons: the tolerations,
node selector and affinity of every DaemonSet pod template, from the chart values (or OKE
add-on configurations) the stack *registered*, merged with the pinned charts' defaults as
Helm merges them. Matched with Kubernetes' rules (`nodepools.specs.core.node_matching`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nodepools.fleet.deploy import validate_fleet
from nodepools.offline import Capture
from nodepools.specs.core.node_matching import untolerated
from nodepools.specs.core.taints import Taint
from nodepools.specs.devices.args import ServedPool
from nodepools.specs.devices.placement import (
    DaemonPlacement,
    addon_daemons,
    discovered_labels,
    release_daemons,
)
from nodepools.specs.devices.served_pools import served_pool

from tests.engines.mocks import example_stacks, run_on, stack_config

STACKS = Path(__file__).resolve().parents[2] / "stacks"
STACK_TYPE = "nodepools:index:AcceleratorStack"
VENDOR = {"nvidia.com/gpu": "nvidia", "amd.com/gpu": "amd", "aws.amazon.com/neuron": "aws"}


def _fleet_config(stack: str) -> dict[str, Any]:
    return {key.split(":", 1)[1]: value for key, value in stack_config(stack).items()}


def stack_nodes(stack: str) -> list[tuple[str, str | None, dict[str, str], list[Taint]]]:
    """(pool, vendor or None, labels, taints incl. startup taints) per modelled node."""
    entries, ctx = validate_fleet(_fleet_config(stack))
    nodes: list[tuple[str, str | None, dict[str, str], list[Taint]]] = []
    seen: set[str] = set()
    for (_, _), (_, resolved) in sorted(ctx.preflights.items(), key=lambda kv: kv[0][1]):
        if not hasattr(resolved, "pool_name"):
            continue
        served = ServedPool.model_validate(served_pool(resolved))
        labels = dict(resolved.labels)
        if served.node_labels is not None:
            labels.update(served.node_labels)
        seen.add(served.name)
        nodes += _nodes_of(served, labels)
    # Pools the stack only describes (existing nodes): the AcceleratorStack's own view.
    for entry in entries:
        if entry.component == "AcceleratorStack":
            for served in entry.args.pools:
                if served.name not in seen:
                    nodes += _nodes_of(served, dict(served.selector))
    return nodes


def efa_pools(stack: str) -> set[str]:
    """The pools of the stack whose nodes carry EFA interfaces."""
    _, ctx = validate_fleet(_fleet_config(stack))
    return {
        resolved.pool_name
        for _, resolved in ctx.preflights.values()
        if hasattr(resolved, "pool_name") and ServedPool.model_validate(served_pool(resolved)).efa
    }


def _nodes_of(served: ServedPool, labels: dict[str, str]):
    vendor = served.accelerator.vendor if served.accelerator else None
    return [
        (served.name, vendor, {**labels, **discovered_labels(served, t)}, served.all_taints)
        for t in served.instance_types or [None]
    ]


def stack_daemons(capture: Capture) -> dict[str, list[DaemonPlacement]]:
    """AcceleratorStack name -> the DaemonSets its registered releases and add-ons run."""
    stacks = {r.urn: r.name for r in capture.resources if r.type == STACK_TYPE}
    out: dict[str, list[DaemonPlacement]] = {name: [] for name in stacks.values()}
    for resource in capture.resources:
        if resource.parent not in stacks:
            continue
        owner = stacks[resource.parent]
        if resource.type == "kubernetes:helm.sh/v3:Release":
            chart = str(resource.inputs["chart"]).rsplit("/", 1)[-1]
            out[owner] += release_daemons(resource.name, chart, resource.inputs.get("values") or {})
        elif resource.type == "oci:ContainerEngine/addon:Addon":
            vendor = {"NvidiaGpuPlugin": "nvidia", "AmdGpuPlugin": "amd"}[
                resource.inputs["addonName"]
            ]
            config = {c["key"]: c["value"] for c in resource.inputs.get("configurations") or []}
            out[owner] += addon_daemons(resource.name, vendor, config)
    return out


def served_by(capture: Capture) -> dict[str, set[str]]:
    return {
        r.name: set(r.inputs.get("advertised") or {})
        for r in capture.resources
        if r.type == STACK_TYPE
    }


@pytest.mark.parametrize("stack", example_stacks())
def test_each_daemon_lands_on_each_accelerator_node_of_its_vendor_and_on_no_cpu_node(stack: str):
    capture = run_on("offline", STACKS, stack=stack, config=stack_config(stack))
    daemons = stack_daemons(capture)
    served = served_by(capture)
    nodes = stack_nodes(stack)
    assert daemons, f"{stack} has no AcceleratorStack"
    problems: list[str] = []
    covered: set[str] = set()
    for owner, placements in daemons.items():
        assert placements, f"{stack}: {owner} registered no DaemonSet"
        for daemon in placements:
            where = f"{stack}: {daemon.release}/{daemon.daemon}"
            if daemon.vendor == "efa":
                continue  # below
            for pool, vendor, labels, taints in nodes:
                if vendor == daemon.vendor and pool in served[owner]:
                    covered.add(pool)
                    if not daemon.admits(labels):
                        problems.append(f"{where} does not select a node of {pool} ({labels})")
                    missing = untolerated(daemon.tolerations, taints)
                    if missing:
                        problems.append(f"{where} does not tolerate {pool}'s {missing}")
                elif vendor is None and not daemon.everywhere and daemon.admits(labels):
                    problems.append(f"{where} selects a CPU node of {pool}")
    assert problems == []
    assert _efa_problems(stack, daemons, nodes) == []
    accelerator_pools = {pool for pool, vendor, _, _ in nodes if vendor is not None}
    assert accelerator_pools <= covered, f"{stack}: pools without device software"


def _efa_problems(
    stack: str,
    daemons: dict[str, list[DaemonPlacement]],
    nodes: list[tuple[str, str | None, dict[str, str], list[Taint]]],
) -> list[str]:
    """The EFA device plugin lands on every node of every EFA pool (or nothing advertises
    `vpc.amazonaws.com/efa` there) and on no other node."""
    with_efa = efa_pools(stack)
    problems: list[str] = []
    efa_daemons = [d for placements in daemons.values() for d in placements if d.vendor == "efa"]
    if with_efa and not efa_daemons:
        problems.append(f"{stack}: EFA pools {sorted(with_efa)} but no EFA device plugin")
    for daemon in efa_daemons:
        where = f"{stack}: {daemon.release}/{daemon.daemon}"
        for pool, _, labels, taints in nodes:
            if pool in with_efa:
                if not daemon.admits(labels):
                    problems.append(f"{where} does not select a node of {pool} ({labels})")
                missing = untolerated(daemon.tolerations, taints)
                if missing:
                    problems.append(f"{where} does not tolerate {pool}'s {missing}")
            elif daemon.admits(labels):
                problems.append(f"{where} selects a node of {pool}, which has no EFA")
    return problems


def test_the_efa_proof_has_an_efa_pool_to_prove():
    assert "h100-block" in efa_pools("eks-training")


def test_the_proof_fails_when_a_taint_is_not_tolerated_or_a_default_selector_stays():
    """The matcher the proof relies on catches both bugs the audit found."""
    nvidia_node = {"nodepools.dev/pool": "gpu", "nvidia.com/gpu.present": "true"}
    taint = Taint(key="team", value="ml", effect="NoSchedule")
    (operands, _) = release_daemons("r", "gpu-operator", {"daemonsets": {"tolerations": []}})
    assert operands.admits(nvidia_node)
    assert untolerated(operands.tolerations, [taint]) == [taint]
    # The AMD chart's default selector merged with ours, had it not been nulled out.
    (amd,) = release_daemons(
        "r", "amd-gpu", {"node_selector_enabled": True, "node_selector": {"x": "y"}}
    )
    assert not amd.admits({"x": "y"})  # the NFD and arch keys stay: no NFD, no node
