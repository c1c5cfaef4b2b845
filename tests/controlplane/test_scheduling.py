"""The real kube-scheduler places pods built from our scheduling info where we say.

For every pool of every example stack: one Node standing for the pool's nodes (its labels and
taints as the pool gives them to its nodes, capacity and allocatable with the accelerator
resource and any other the scheduling info asks for (EFA interfaces), Ready; no kubelet is needed for binding). Then:
- a probe pod from the pool's `scheduling_info` binds to that pool's node;
- the same pod without the tolerations is reported Unschedulable by the scheduler (pools
  with taints only: an untainted pool has nothing to refuse);
- every recipe Deployment's pods (its pod template, `replicas` times: no controller manager
  runs to make them) bind to a node of the pool the recipe's `placement` output names;
- every pool an AcceleratorStack serves carries the labels its device software needs. Where
  that software's DaemonSets run (the pinned charts rendered by helm, placed by the DaemonSet
  controller and this scheduler) is proven in test_helm_charts.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pytest
from nodepools.offline import Capture
from nodepools.planning.sections import pool_components
from nodepools.specs.catalog.instance_types import instance_type
from nodepools.specs.core.labels import POOL_LABEL

from tests.conftest import EKS, OKE
from tests.controlplane.objects import integral
from tests.controlplane.report import count
from tests.engines.mocks import STACKS, example_stacks, run_on, stack_config

NAMESPACE = "scheduling-probes"
KARPENTER_POOL_LABEL = "karpenter.sh/nodepool"  # Karpenter labels every node it launches
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
RECIPE = "nodepools:index:Recipe"
ACCELERATOR_STACK = "nodepools:index:AcceleratorStack"
HOSTNAME_LABEL = "kubernetes.io/hostname"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


@dataclass(frozen=True)
class Pool:
    stack: str
    name: str
    node: dict[str, Any]
    scheduling_info: dict[str, Any]

    @property
    def node_name(self) -> str:
        return self.node["metadata"]["name"]


def parse_taint(text: str) -> dict[str, str]:
    """`key=value:Effect` or `key:Effect`, as the pool specs write taints."""
    key_value, effect = text.rsplit(":", 1)
    key, _, value = key_value.partition("=")
    return (
        {"key": key, "value": value, "effect": effect} if value else {"key": key, "effect": effect}
    )


def pool_node(stack: str, capture: Capture, component: Any) -> Pool:
    spec = integral(component.inputs.get("spec") or {})
    info = integral(capture.outputs_of(component)["scheduling_info"])
    name = f"{stack}-{component.name}"
    labels = {**spec.get("labels", {}), "kubernetes.io/hostname": name}
    if component.type == "nodepools:index:KarpenterNodePool":
        labels[KARPENTER_POOL_LABEL] = spec["poolName"]
    if instance_type(spec.get("instanceType")) is not None:  # not "families c5,m5,r5"
        labels[INSTANCE_TYPE_LABEL] = spec["instanceType"]  # the kubelet's well-known label
    resources = {"cpu": "192", "memory": "2Ti", "pods": "110", "ephemeral-storage": "1Ti"}
    if spec.get("advertised"):
        # The pool's device software partitions its accelerators (MIG, time slicing): the
        # node advertises the partitions, not the hardware.
        resources.update({name: str(count) for name, count in spec["advertised"].items()})
    elif spec.get("acceleratorResource"):
        per_node = spec.get("acceleratorsPerNode") or max(
            info.get("resources", {}).get("limits", {}).values()
        )
        resources[spec["acceleratorResource"]] = str(per_node)
    # Other extended resources the scheduling info asks for (EFA interfaces: the EFA device
    # plugin advertises them on the pool's nodes).
    for resource, amount in info.get("resources", {}).get("limits", {}).items():
        resources.setdefault(resource, str(amount))
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": [parse_taint(t) for t in spec.get("taints", [])]},
        "status": {
            "capacity": resources,
            "allocatable": resources,
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "stands in",
                }
            ],
        },
    }
    return Pool(stack, spec.get("poolName", component.name), node, info)


def probe_pod(name: str, info: dict[str, Any], *, tolerate: bool = True) -> dict[str, Any]:
    limits = {key: str(value) for key, value in info.get("resources", {}).get("limits", {}).items()}
    spec: dict[str, Any] = {
        "nodeSelector": info["nodeSelector"],
        "containers": [
            {"name": "probe", "image": "registry.example/probe:1", "resources": {"limits": limits}}
        ],
    }
    if tolerate and info.get("tolerations"):
        spec["tolerations"] = info["tolerations"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def wait_for(core: Any, name: str, done: Any, timeout: float = 60) -> Any:
    """Poll the pod until done(pod) or the (bounded) timeout; returns the last pod read."""
    deadline = time.monotonic() + timeout
    pod = core.read_namespaced_pod(name, NAMESPACE)
    while not done(pod) and time.monotonic() < deadline:
        time.sleep(0.25)
        pod = core.read_namespaced_pod(name, NAMESPACE)
    return pod


def unschedulable(pod: Any) -> bool:
    return any(
        c.type == "PodScheduled" and c.status == "False" and c.reason == "Unschedulable"
        for c in (pod.status.conditions or [])
    )


@pytest.fixture(scope="module")
def cluster(api_client: Any, scheduler: Any) -> Any:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    core.create_namespace({"metadata": {"name": NAMESPACE}})
    core.create_namespaced_service_account(NAMESPACE, {"metadata": {"name": "default"}})
    return core


def stack_pools(stack: str) -> tuple[Capture, list[Pool]]:
    capture = run_on("offline", STACKS, stack=stack, config=stack_config(stack))
    return capture, [pool_node(stack, capture, c) for c in pool_components(capture)]


def create_nodes(core: Any, pools: list[Pool]) -> None:
    for pool in pools:
        core.create_node(pool.node)
        core.replace_node_status(pool.node_name, pool.node)
        # The TaintNodesByCondition admission plugin taints every new node not-ready until the
        # node lifecycle controller (not run here) sees it Ready: our taints, and only ours.
        core.patch_node(pool.node_name, {"spec": {"taints": pool.node["spec"]["taints"]}})


def delete_pods(core: Any) -> None:
    for pod in core.list_namespaced_pod(NAMESPACE).items:
        core.delete_namespaced_pod(pod.metadata.name, NAMESPACE, grace_period_seconds=0)


@pytest.mark.parametrize("stack", example_stacks())
def test_pods_bind_to_their_pool_and_only_with_its_tolerations(
    stack: str, cluster: Any, record_property: Any
) -> None:
    core = cluster
    capture, pools = stack_pools(stack)
    create_nodes(core, pools)
    bound = refused = 0
    for pool in pools:
        probe = f"{pool.node_name}-probe"
        core.create_namespaced_pod(NAMESPACE, probe_pod(probe, pool.scheduling_info))
        pod = wait_for(core, probe, lambda p: bool(p.spec.node_name))
        assert pod.spec.node_name == pool.node_name, (
            f"{stack}: the probe pod of pool {pool.name} bound to {pod.spec.node_name!r}, not {pool.node_name}: "
            f"{[(c.reason, c.message) for c in pod.status.conditions or []]}"
        )
        bound += 1
        if pool.node["spec"]["taints"]:
            bare = f"{pool.node_name}-no-tolerations"
            core.create_namespaced_pod(
                NAMESPACE, probe_pod(bare, pool.scheduling_info, tolerate=False)
            )
            pod = wait_for(core, bare, lambda p: bool(p.spec.node_name) or unschedulable(p))
            assert not pod.spec.node_name, (
                f"{stack}: a pod without tolerations bound to {pod.spec.node_name}"
            )
            assert unschedulable(pod), f"{stack}: {bare} neither bound nor refused"
            refused += 1
    # The probes leave the nodes empty again: the recipes are placed against whole pools.
    delete_pods(core)
    deployments = recipe_pods(stack, capture, pools, core)
    devices = device_labels(stack, capture, pools)
    count("pools (stand-in Nodes)", len(pools))
    count("probe pods bound by kube-scheduler", bound)
    count("probe pods refused without tolerations", refused)
    count("recipe pods bound", deployments)
    record_property("pools", len(pools))
    record_property("probe pods bound", bound)
    record_property("pods refused without tolerations", refused)
    record_property("recipe pods bound", deployments)
    record_property("pools with their device-software labels checked", devices)


def device_plugin_program() -> None:
    """The NVIDIA device plugin (values select the served pools by affinity), an MI300X pool
    with ROCm's plugin (values select it by nodeSelector), and a CPU pool neither serves."""
    from nodepools import AcceleratorStack, GpuSpotPool, MachinePool, SharedNodePool

    gpu = GpuSpotPool("gpu", {"cluster": EKS, "instance_type": "g5.12xlarge"})
    cpu = MachinePool("cpu", {"cluster": EKS, "instance_type": "m5.large", "replicas": 1})
    amd = SharedNodePool(
        "mi300x",
        {
            "cluster": OKE,
            "shape": "BM.GPU.MI300X.8",
            "size": 1,
            "boot_volume_gb": 200,
            "taints": [{"key": "amd.com/gpu", "value": "true", "effect": "NoSchedule"}],
            # what AcceleratorStack's `node_labels` output asks a program to add
            "labels": {"nodepools.dev/device-software": "amd-gpu"},
        },
    )
    AcceleratorStack(
        "devices",
        {
            "platform": "generic",
            "nvidia": {"mode": "device-plugin"},
            "pools": AcceleratorStack.served([gpu, cpu, amd]),
        },
    )


def device_labels(stack: str, capture: Capture, pools: list[Pool]) -> int:
    """Every pool an AcceleratorStack serves (built in this program) carries the labels its
    device software needs (the stack's `node_labels` output); returns the pools checked."""
    by_name = {pool.name: pool for pool in pools}
    checked = 0
    for component in capture.components(ACCELERATOR_STACK):
        outputs = capture.outputs_of(component)
        for pool_name in sorted(outputs.get("advertised") or {}):
            pool = by_name.get(pool_name)
            if pool is None:  # a pool given to the stack by value, not built in this program
                continue
            needed = (outputs.get("node_labels") or {}).get(pool_name, {})
            have = pool.node["metadata"]["labels"]
            missing = {k: v for k, v in needed.items() if have.get(k) != v}
            assert not missing, (
                f"{stack}: pool {pool_name} lacks the labels {missing} its device software needs"
            )
            checked += 1
    return checked


def recipe_pods(stack: str, capture: Capture, pools: list[Pool], core: Any) -> int:
    """Each recipe Deployment's pods bind to a node of the pool its `placement` names."""
    nodes = {pool.name: pool.node_name for pool in pools}
    count = 0
    for recipe in capture.components(RECIPE):
        placement = capture.outputs_of(recipe).get("placement")
        for deployment in (d for d in capture.descendants(recipe.urn) if d.type == DEPLOYMENT):
            manifest = integral(deployment.inputs)
            template = manifest["spec"]["template"]
            replicas = manifest["spec"].get("replicas", 1)
            if placement is None:
                # A waiting recipe: whatever its pods select, no node of this stack takes them.
                replicas = max(replicas, 1)
            for replica in range(replicas):
                name = f"{stack}-{deployment.name}-{replica}"
                pod = {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": name,
                        "namespace": NAMESPACE,
                        "labels": template["metadata"]["labels"],
                    },
                    "spec": template["spec"],
                }
                core.create_namespaced_pod(NAMESPACE, pod)
                if placement is None:
                    read = wait_for(
                        core, name, lambda p: bool(p.spec.node_name) or unschedulable(p)
                    )
                    assert not read.spec.node_name, (
                        f"{stack}: {name} of waiting recipe {recipe.name} bound"
                    )
                    continue
                read = wait_for(core, name, lambda p: bool(p.spec.node_name))
                assert placement in nodes, (
                    f"{stack}: recipe {recipe.name} placed on {placement!r}, not a pool here"
                )
                assert read.spec.node_name == nodes[placement], (
                    f"{stack}: {name} bound to {read.spec.node_name!r}, placement says {placement}"
                )
                assert template["spec"]["nodeSelector"][POOL_LABEL] == placement
                count += 1
    return count
