"""Karpenter's own controller (KWOK cloud provider) launches nodes from our NodePools.

For every KarpenterNodePool of every example stack (and two component programs): its
rendered NodePool, bridged to the KWOK node class (tests/controlplane/karpenter.py: only
`nodeClassRef` changes; the instance types the provider offers are our catalog's AWS types
with the AWS provider's instance labels), is applied and must be Ready with its disruption
and expiry settings as we wrote them; then
- a pod made from the pool's `scheduling_info` is left pending by kube-scheduler (no node
  fits); Karpenter must create a NodeClaim of that NodePool, of an instance type and a
  capacity type the requirements allow, and the KWOK provider a Node with our template
  labels and taints; once the node is Ready (the test plays its kubelet) the pod binds there;
- on a tainted (accelerator) pool, the same pod without its tolerations gets Karpenter's
  "did not tolerate taint" and no NodeClaim;
- pods asking more than the pool's limits leave room for: Karpenter launches what fits and
  says "exceed limits" for the rest (the pool is applied under a second name for it, so the
  nodes of the first tests do not count).

Runs when `make karpenter-kwok` has built `kwok` (`make test` builds it when Go is there);
skipped otherwise, failed instead under NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1 (.ci/run).
The upstream Karpenter examples are launched in test_karpenter_upstream_kwok.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from nodepools.specs.core.kube import parse_amount

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.karpenter import instance_types, kwok_node_pool
from tests.controlplane.karpenter_run import (
    POOL_LABEL,
    bound_node,
    claims_of,
    conditions,
    karpenter_events,
    play_kubelet,
    registered,
    resources,
    running_karpenter,
    wait,
    wait_nodepool_ready,
)
from tests.controlplane.objects import KubeObject, apply, kube_objects
from tests.controlplane.report import count
from tests.controlplane.test_scheduling import Pool, pool_node, probe_pod
from tests.engines.mocks import STACKS, example_stacks, run_on, stack_config

NAMESPACE = "karpenter-probes"
KARPENTER_POOL = "nodepools:index:KarpenterNodePool"
CAPACITY_TYPE = "karpenter.sh/capacity-type"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"


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


def _karpenter_stacks() -> list[str]:
    return [
        s
        for s in example_stacks()
        if "KarpenterNodePool" in (STACKS / f"Pulumi.{s}.yaml").read_text()
    ]


def _allowed(requirements: list[dict[str, Any]], labels: dict[str, str]) -> list[str]:
    """The requirements a node's labels break (In / NotIn / Exists / DoesNotExist / Gt / Lt)."""
    broken = []
    for r in requirements:
        value = labels.get(r["key"])
        op, values = r["operator"], r.get("values", [])
        if op in ("In", "NotIn"):
            ok = (value in values) == (op == "In")
        elif op in ("Exists", "DoesNotExist"):
            ok = (value is not None) == (op == "Exists")
        else:
            bound = int(values[0])
            number = int(value) if value is not None else None
            ok = (
                number is not None
                and {
                    "Gt": number > bound,
                    "Lt": number < bound,
                    "Gte": number >= bound,
                    "Lte": number <= bound,
                }[op]
            )
        if not ok:
            broken.append(f"{r} (node has {value!r})")
    return broken


# Pools of tests/controlplane/test_component_objects.py that Karpenter's examples do not show.
PROGRAMS = ("gpu-by-requirements", "static")


def _capture(source: str) -> Any:
    if source in PROGRAMS:
        from functools import partial

        from nodepools.offline import run

        from tests.controlplane.test_component_objects import KARPENTER_MORE, karpenter_program

        return run(partial(karpenter_program, source, KARPENTER_MORE[source]))
    return run_on("offline", STACKS, stack=source, config=stack_config(source))


def _node_pools(stack: str) -> tuple[dict[str, dict[str, Any]], list[Pool]]:
    """The stack's rendered NodePools by name, and its Karpenter pools."""
    capture = _capture(stack)
    objects, _ = kube_objects(capture, stack)
    node_pools = {
        o.manifest["metadata"]["name"]: o.manifest
        for o in objects
        if o.manifest["kind"] == "NodePool"
    }
    pools = [pool_node(stack, capture, c) for c in capture.components(KARPENTER_POOL)]
    assert pools and {p.name for p in pools} <= set(node_pools), (
        sorted(node_pools),
        [p.name for p in pools],
    )
    return node_pools, pools


def _subset(want: Any, have: Any) -> bool:
    """WANT's every field is in HAVE with the same value (the server adds defaults)."""
    if isinstance(want, dict):
        return isinstance(have, dict) and all(
            k in have and _subset(v, have[k])
            for k, v in want.items()  # pyright: ignore[reportUnknownVariableType]
        )
    return want == have


def apply_ready(
    dynamic: Any, plane: ControlPlane, manifest: dict[str, Any], label: str
) -> dict[str, Any]:
    """Apply the bridged NodePool, then `check_ready`."""
    apply(dynamic, KubeObject(label, manifest), dry_run=False)
    return check_ready(dynamic, plane, manifest, label)


def check_ready(
    dynamic: Any, plane: ControlPlane, manifest: dict[str, Any], label: str
) -> dict[str, Any]:
    """Wait until Karpenter validated the applied NodePool and calls it Ready; check it kept
    our disruption (consolidation, budgets), expiry and termination settings."""
    live = wait_nodepool_ready(dynamic, manifest["metadata"]["name"], plane)
    spec, ours = live["spec"], manifest["spec"]
    assert _subset(ours.get("disruption", {}), spec.get("disruption", {})), (label, spec)
    for key in ("expireAfter", "terminationGracePeriod"):
        if key in ours["template"]["spec"]:
            assert spec["template"]["spec"][key] == ours["template"]["spec"][key], (label, key)
    return live


def allowed_capacity_types(manifest: dict[str, Any]) -> list[str]:
    """What the NodePool's capacity-type requirement allows; without one, every type offered
    (Karpenter v1 has no default: large-instances.yaml launches spot here)."""
    for r in manifest["spec"]["template"]["spec"].get("requirements", []):
        if r["key"] == CAPACITY_TYPE and r["operator"] == "In":
            return list(r["values"])
    return ["on-demand", "spot"]


def check_node(stack: str, manifest: dict[str, Any], node: Any) -> dict[str, str]:
    """The node Karpenter launched: of an instance type we offer and the requirements allow,
    of an allowed capacity type, with the template's labels and taints. Returns its labels."""
    labels = node.metadata.labels or {}
    template = manifest["spec"]["template"]
    assert labels.get(POOL_LABEL) == manifest["metadata"]["name"]
    offered = {t["name"] for t in instance_types()}
    assert labels.get(INSTANCE_TYPE) in offered, (stack, labels.get(INSTANCE_TYPE))
    assert labels.get(CAPACITY_TYPE) in allowed_capacity_types(manifest), (
        f"{stack}: capacity type {labels.get(CAPACITY_TYPE)!r}, "
        f"allowed {allowed_capacity_types(manifest)}"
    )
    for key, value in template.get("metadata", {}).get("labels", {}).items():
        assert labels.get(key) == value, (key, value, labels.get(key))
    broken = _allowed(template["spec"].get("requirements", []), labels)
    assert not broken, f"{stack}: Karpenter launched {labels.get(INSTANCE_TYPE)} against {broken}"
    taints = {(t.key, t.value, t.effect) for t in node.spec.taints or []}
    for taint in template["spec"].get("taints", []):
        assert (taint["key"], taint.get("value"), taint["effect"]) in taints, (taint, taints)
    return labels


def launch_and_bind(
    core: Any,
    dynamic: Any,
    plane: ControlPlane,
    pod: dict[str, Any],
    pool: str,
    namespace: str = NAMESPACE,
) -> dict[str, Any]:
    """Create POD (pending: no node fits); `wait_launched`, then `wait_bound_and_initialized`.
    Returns the NodeClaim."""
    name = pod["metadata"]["name"]
    before = {c["metadata"]["name"] for c in claims_of(dynamic, pool)}
    core.create_namespaced_pod(namespace, pod)
    claim = wait_launched(dynamic, plane, pool, name, before)
    wait_bound_and_initialized(core, dynamic, plane, claim, pool, name, namespace)
    return claim


def wait_launched(
    dynamic: Any, plane: ControlPlane, pool: str, pod: str, before: set[str]
) -> dict[str, Any]:
    """Karpenter's new NodeClaim of POOL (none of BEFORE) for pending POD, registered, with its
    Node."""

    def launched() -> dict[str, Any] | None:
        new = [c for c in claims_of(dynamic, pool) if c["metadata"]["name"] not in before]
        done = [c for c in new if registered(c) and c["status"].get("nodeName")]
        return done[0] if done else None

    return wait(f"a registered NodeClaim of NodePool {pool} for pod {pod}", launched, plane)


def wait_bound_and_initialized(
    core: Any,
    dynamic: Any,
    plane: ControlPlane,
    claim: dict[str, Any],
    pool: str,
    pod: str,
    namespace: str,
) -> None:
    """Play the CLAIM's node's kubelet; `wait_bound`, then `wait_initialized`."""
    play_kubelet(core, claim["status"]["nodeName"])
    wait_bound(core, plane, claim, pod, namespace)
    wait_initialized(dynamic, plane, claim, pool)


def wait_bound(
    core: Any, plane: ControlPlane, claim: dict[str, Any], pod: str, namespace: str
) -> None:
    """Wait until kube-scheduler binds POD to the CLAIM's node (its kubelet played)."""
    node = claim["status"]["nodeName"]
    wait(f"pod {pod} bound to {node}", lambda: bound_node(core, namespace, pod) == node, plane)


def wait_initialized(dynamic: Any, plane: ControlPlane, claim: dict[str, Any], pool: str) -> None:
    """Wait until Karpenter calls CLAIM (of POOL) Initialized."""

    def initialized() -> bool:
        current = next(
            c
            for c in claims_of(dynamic, pool)
            if c["metadata"]["name"] == claim["metadata"]["name"]
        )
        return conditions(current).get("Initialized", {}).get("status") == "True"

    wait(f"NodeClaim {claim['metadata']['name']} Initialized", initialized, plane)


ALL = [*_karpenter_stacks(), *PROGRAMS]


@pytest.mark.parametrize("stack", ALL)
def test_karpenter_launches_nodes_from_our_node_pools_and_the_pods_bind(
    stack: str, karpenter: ControlPlane, api_client: Any, dynamic_client: Any
) -> None:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    node_pools, pools = _node_pools(stack)
    for pool in pools:
        manifest = kwok_node_pool(node_pools[pool.name])
        apply_ready(dynamic_client, karpenter, manifest, f"{stack}: {pool.name} (KWOK)")
        replicas = manifest["spec"].get("replicas")
        if replicas is not None:  # a static NodePool keeps `replicas` nodes without pending pods
            found = wait(
                f"{stack}: {replicas} NodeClaims of static NodePool {pool.name} with their Nodes",
                lambda name=pool.name, want=replicas: (
                    [c for c in claims_of(dynamic_client, name) if registered(c)]
                    if len([c for c in claims_of(dynamic_client, name) if registered(c)]) >= want
                    else None
                ),
                karpenter,
            )
            assert len(found) == replicas, [c["metadata"]["name"] for c in found]
            for claim in found:
                check_node(stack, manifest, core.read_node(claim["status"]["nodeName"]))
            count("Karpenter (KWOK): NodeClaims launched from our NodePools", len(found))
            continue
        pod = probe_pod(f"{stack}-{pool.name}"[:63], pool.scheduling_info)
        pod["metadata"]["namespace"] = NAMESPACE
        claim = launch_and_bind(core, dynamic_client, karpenter, pod, pool.name)
        labels = check_node(stack, manifest, core.read_node(claim["status"]["nodeName"]))
        # The pod's scheduling info selects the node Karpenter made for it.
        selector = pool.scheduling_info["nodeSelector"]
        assert all(labels.get(k) == v for k, v in selector.items()), (selector, labels)
        count("Karpenter (KWOK): NodeClaims launched from our NodePools")
        count("Karpenter (KWOK): pods bound on the nodes it launched")


@pytest.mark.parametrize("stack", ALL)
def test_a_pod_without_the_tolerations_never_makes_karpenter_launch(
    stack: str, karpenter: ControlPlane, api_client: Any, dynamic_client: Any
) -> None:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    node_pools, pools = _node_pools(stack)
    tainted = [p for p in pools if node_pools[p.name]["spec"]["template"]["spec"].get("taints")]
    if not tainted:
        pytest.skip(f"{stack} has no tainted (accelerator) Karpenter pool")
    for pool in tainted:
        manifest = kwok_node_pool(node_pools[pool.name])
        apply_ready(dynamic_client, karpenter, manifest, f"{stack}: {pool.name} (KWOK)")
        before = {c["metadata"]["name"] for c in claims_of(dynamic_client, pool.name)}
        name = f"{stack}-{pool.name}"[:52] + "-untolerated"
        pod = probe_pod(name, pool.scheduling_info, tolerate=False)
        pod["metadata"]["namespace"] = NAMESPACE
        core.create_namespaced_pod(NAMESPACE, pod)
        # Karpenter's provisioning round for the pod ends in its FailedScheduling event.
        messages = wait(
            f"Karpenter's FailedScheduling event on pod {name}",
            lambda name=name: karpenter_events(core, NAMESPACE, name),
            karpenter,
        )
        taint = manifest["spec"]["template"]["spec"]["taints"][0]["key"]
        assert any("did not tolerate taint" in m and taint in m for m in messages), messages
        after = {c["metadata"]["name"] for c in claims_of(dynamic_client, pool.name)}
        assert after == before, f"{stack}: Karpenter launched {sorted(after - before)} for {name}"
        assert bound_node(core, NAMESPACE, name) is None
        count("Karpenter (KWOK): pods without tolerations refused a launch")


def _unit(pool: Pool, limits: dict[str, Any]) -> tuple[str, int, dict[str, str]]:
    """The limited resource a pod of the pool fills, how much one pod asks, and the extra
    requests that make it so: the accelerators its scheduling info asks when the pool limits
    them, else a quarter of the CPU limit."""
    asked = pool.scheduling_info.get("resources", {}).get("limits", {})
    for resource, amount in sorted(asked.items()):
        if resource in limits:
            return resource, int(amount), {}
    cpu = int(limits["cpu"]) // 4
    return "cpu", cpu, {"cpu": str(cpu)}


def _capacity(instance: str, resource: str) -> int:
    offered = next(t for t in instance_types() if t["name"] == instance)
    return int(str(offered["resources"].get(resource, "0")).removesuffix("Mi"))


@pytest.mark.parametrize("stack", ALL)
def test_the_pools_limits_stop_further_launches(
    stack: str, karpenter: ControlPlane, api_client: Any, dynamic_client: Any
) -> None:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    node_pools, pools = _node_pools(stack)
    limited = [
        p
        for p in pools
        if node_pools[p.name]["spec"].get("limits") and "replicas" not in node_pools[p.name]["spec"]
    ]
    if not limited:
        pytest.skip(f"{stack} has no Karpenter pool with limits that launches for pods")
    for pool in limited:
        # Applied under a second name, selected by it: the nodes the other tests launched for
        # the first one neither count against these limits nor take these pods.
        manifest = kwok_node_pool(node_pools[pool.name])
        name = f"{pool.name[:56]}-limits"
        manifest = {**manifest, "metadata": {**manifest["metadata"], "name": name}}
        apply_ready(dynamic_client, karpenter, manifest, f"{stack}: {name} (KWOK)")
        limits = manifest["spec"]["limits"]
        resource, each, extra = _unit(pool, limits)
        pods = int(limits[resource]) // each + 1  # one more than the limit can hold
        names = []
        for i in range(pods):
            pod = probe_pod(f"{name[:56]}-{i}", pool.scheduling_info)
            pod["metadata"]["namespace"] = NAMESPACE
            pod["spec"]["nodeSelector"] = {**pod["spec"]["nodeSelector"], POOL_LABEL: name}
            container = pod["spec"]["containers"][0]
            container["resources"]["requests"] = extra
            core.create_namespaced_pod(NAMESPACE, pod)
            names.append(pod["metadata"]["name"])

        def settled(
            name: str = name, names: list[str] = names, resource: str = resource, each: int = each
        ) -> tuple[list[dict[str, Any]], list[str]] | None:
            # Every pod is either refused (Karpenter's event) or in a NodeClaim's requests.
            claims = claims_of(dynamic_client, name)
            asked = (c["spec"].get("resources", {}).get("requests", {}) for c in claims)
            placed = sum(parse_amount(r.get(resource, "0")) for r in asked) // each
            refused = [m for n in names for m in karpenter_events(core, NAMESPACE, n)[:1]]
            return (claims, refused) if refused and placed + len(refused) >= len(names) else None

        claims, refused = wait(
            f"{stack}: each pod of {name} in a NodeClaim or refused for its limits",
            settled,
            karpenter,
        )
        assert all("exceed limits for nodepool" in m and name in m for m in refused), refused
        wanted = {c["metadata"]["name"] for c in claims}

        def all_launched(name: str = name, wanted: set[str] = wanted) -> list[str] | None:
            current = [
                c for c in claims_of(dynamic_client, name) if c["metadata"]["name"] in wanted
            ]
            if len(current) < len(wanted) or not all(
                conditions(c).get("Launched", {}).get("status") == "True" for c in current
            ):
                return None
            return [c["metadata"]["labels"][INSTANCE_TYPE] for c in current]

        launched = wait(f"{stack}: the NodeClaims of {name} launched", all_launched, karpenter)
        for key, limit in limits.items():
            if key in ("cpu", resource) or key.startswith(("nvidia.com/", "aws.amazon.com/")):
                used = sum(_capacity(t, key) for t in launched)
                assert used <= int(limit), (
                    f"{stack}: {name} launched {launched}: {used} {key} > {limit}"
                )
        assert len(claims) < pods, (stack, name, len(claims), pods)
        count("Karpenter (KWOK): pods refused a launch by the pool's limits", len(refused))


def test_karpenters_runtime_validation_refuses_what_our_validator_refuses(
    karpenter: ControlPlane, dynamic_client: Any
) -> None:
    # The control for `apply_ready`: Ready is Karpenter's verdict, not a formality. A
    # capacity type Karpenter doesn't know passes the NodePool CRD's schema and CEL rules;
    # Karpenter's runtime validation refuses it (ValidationSucceeded False, not Ready), as our
    # validator does before anything is registered.
    from nodepools.specs.core.base import SpecError
    from nodepools.specs.core.parse import parse_spec
    from nodepools.specs.karpenter.args import KarpenterNodePoolArgs

    unknown = {"key": CAPACITY_TYPE, "operator": "In", "values": ["preemptible"]}
    args = {"node_class_name": "default", "requirements": [unknown]}
    with pytest.raises(SpecError, match="preemptible"):
        parse_spec(KarpenterNodePoolArgs, args, "refused")
    node_pools, pools = _node_pools("eks-training")
    manifest = kwok_node_pool(node_pools[pools[0].name])
    template = manifest["spec"]["template"]
    requirements = [
        unknown if r["key"] == CAPACITY_TYPE else r for r in template["spec"]["requirements"]
    ]
    assert unknown in requirements
    name = "runtime-refused"
    spec = {**template["spec"], "requirements": requirements}
    manifest = {
        **manifest,
        "metadata": {**manifest["metadata"], "name": name},
        "spec": {**manifest["spec"], "template": {**template, "spec": spec}},
    }
    apply(dynamic_client, KubeObject(name, manifest), dry_run=False)
    pools_api = resources(dynamic_client, "NodePool")

    def refused() -> dict[str, Any] | None:
        found = conditions(pools_api.get(name=name).to_dict())
        validation = found.get("ValidationSucceeded", {})
        return found if validation.get("status") == "False" else None

    found = wait(f"Karpenter's runtime validation of NodePool {name}", refused, karpenter)
    assert "preemptible" in found["ValidationSucceeded"]["message"], found
    assert found.get("Ready", {}).get("status") != "True", found
    pools_api.delete(name=name)
