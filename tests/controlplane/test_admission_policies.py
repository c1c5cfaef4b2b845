"""The ValidatingAdmissionPolicies PoolPlatforms emits, enforced by the real API server.

The platform objects of seed 002's pool (tests/governance/kubernetes_platforms.yaml) are applied;
then a pod asking an A100 node for more GPUs than it has is denied with our message, and one
within the platform's limits is admitted. And every PoolPlatforms of the stacks and example
programs (tests/controlplane/governance_programs.py): each platform's policy denies, on its
namespaces, the pods that break what it checks (privileged, hostNetwork, GPUs over a node)
and admits one that breaks nothing; an OSMO-target platform emits no Kubernetes object. Pods are created with dryRun=All: admission runs in
full, nothing is stored, so no kubelet or controller is needed.
"""

from __future__ import annotations

import time
from contextlib import suppress
from typing import Any

import pytest
from nodepools import PoolPlatforms
from nodepools.offline import run
from nodepools.specs.core.kube import kube_name
from nodepools.specs.core.labels import PLATFORM_LABEL

from tests.controlplane.governance_programs import Governed, governed_components
from tests.controlplane.objects import kube_objects, server_message
from tests.controlplane.report import count
from tests.controlplane.test_stack_objects import apply_all
from tests.governance.stacks import osmo_args

NAMESPACE = "shared-simulation-training-pool"
A100 = {"nvidia.com/gpu.product": "NVIDIA-A100"}


def a100_pod(gpus: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"probe-{gpus}-gpus", "namespace": NAMESPACE},
        "spec": {
            "nodeSelector": A100,
            "containers": [
                {
                    "name": "user",
                    "image": "registry.example/train:1",
                    "resources": {
                        "requests": {"nvidia.com/gpu": gpus},
                        "limits": {"nvidia.com/gpu": gpus},
                    },
                }
            ],
        },
    }


def create_dry_run(core: Any, pod: dict[str, Any]) -> str | None:
    """None when admitted, else the server's denial."""
    from kubernetes.client.exceptions import ApiException

    try:
        core.create_namespaced_pod(NAMESPACE, pod, dry_run="All")
    except ApiException as error:
        return server_message(error)
    return None


@pytest.fixture(scope="module")
def platform_objects(dynamic_client: Any, api_client: Any) -> int:
    from kubernetes import client

    objects, skipped = kube_objects(
        run(lambda: PoolPlatforms("shared-pool", osmo_args())), "platforms"
    )
    assert not skipped, skipped
    apply_all(dynamic_client, objects)
    # No controller manager runs here: the ServiceAccount admission plugin needs the
    # namespace's default service account, which its controller would have made.
    core = client.CoreV1Api(api_client)
    core.create_namespaced_service_account(NAMESPACE, {"metadata": {"name": "default"}})
    return len(objects)


@pytest.fixture(scope="module")
def over_limit_denial(api_client: Any, platform_objects: int) -> str | None:
    """The server's answer to a pod asking an A100 node for 9 GPUs (it has 8), once the
    policies are in force (the admission informers see a new policy and binding within
    seconds; the wait is bounded)."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    deadline = time.monotonic() + 60
    denial = create_dry_run(core, a100_pod("9"))
    while denial is None and time.monotonic() < deadline:
        time.sleep(0.5)
        denial = create_dry_run(core, a100_pod("9"))
    return denial


def test_a_pod_over_the_platforms_gpus_is_denied_with_our_message(
    over_limit_denial: str | None,
) -> None:
    assert over_limit_denial is not None, "a pod asking an A100 node for 9 GPUs was admitted"
    assert "GPU request 9 is more than a node has (8)" in over_limit_denial, over_limit_denial
    assert "ValidatingAdmissionPolicy" in over_limit_denial, over_limit_denial
    count("ValidatingAdmissionPolicy denials checked")


def test_a_pod_within_the_platform_is_admitted(
    api_client: Any, over_limit_denial: str | None
) -> None:
    from kubernetes import client

    assert over_limit_denial is not None  # the policies are in force
    assert create_dry_run(client.CoreV1Api(api_client), a100_pod("8")) is None


def _platform_programs() -> list[Governed]:
    return [g for g in governed_components() if g.component == "PoolPlatforms"]


def _probes(
    policy: dict[str, Any], selector: dict[str, str], node_gpus: int | None
) -> list[tuple[str, dict[str, Any], str | None]]:
    """(what, pod spec, the denial expected or None) for what the platform's policy checks."""
    container = {"name": "user", "image": "registry.example/train:1"}
    messages = [v.get("message", "") for v in policy["spec"]["validations"]]
    probes: list[tuple[str, dict[str, Any], str | None]] = [
        ("a plain pod", {"containers": [container]}, None)
    ]
    if any("privileged containers" in m for m in messages):
        privileged = {**container, "securityContext": {"privileged": True}}
        probes.append(("privileged", {"containers": [privileged]}, "privileged containers"))
    if any("hostNetwork" in m for m in messages):
        probes.append(
            ("hostNetwork", {"hostNetwork": True, "containers": [container]}, "hostNetwork")
        )
    variables = {v["name"] for v in policy["spec"].get("variables", [])}
    if node_gpus is not None and "user_gpu" in variables:
        for gpus, denial in ((node_gpus, None), (node_gpus + 1, "more than a node has")):
            limits = {"nvidia.com/gpu": str(gpus)}
            asking = {**container, "resources": {"requests": limits, "limits": limits}}
            probes.append((f"{gpus} GPUs", {"containers": [asking]}, denial))
    return [(what, {**spec, "nodeSelector": selector}, denial) for what, spec, denial in probes]


@pytest.mark.parametrize("program", _platform_programs(), ids=lambda g: g.label)
def test_each_platform_programs_policies_deny_what_they_must(
    program: Governed, dynamic_client: Any, api_client: Any, installed_crds: list[str]
) -> None:
    """Every PoolPlatforms of the stacks and example programs: on each platform's namespaces,
    a pod carrying the platform's node selector is denied when it breaks a check the policy
    has (privileged, hostNetwork, GPUs over a node), and admitted when it breaks none."""
    from kubernetes import client

    objects, _ = kube_objects(run(lambda: PoolPlatforms(program.name, program.args)), program.label)
    policies = {
        o.manifest["metadata"]["name"]: o.manifest
        for o in objects
        if o.manifest["kind"] == "ValidatingAdmissionPolicy"
    }
    if program.args.get("target") == "osmo":
        # OSMO's own service enforces its platforms: no Kubernetes object is emitted.
        assert objects == [] and policies == {}
        return
    assert policies, f"{program.label}: no ValidatingAdmissionPolicy"
    apply_all(dynamic_client, objects)
    core = client.CoreV1Api(api_client)
    platforms = program.args.get("platforms", {})
    denied = 0
    for binding in (
        o.manifest for o in objects if o.manifest["kind"] == "ValidatingAdmissionPolicyBinding"
    ):
        policy = policies[binding["spec"]["policyName"]]
        platform_kube = policy["metadata"]["labels"][PLATFORM_LABEL]
        name, platform = next((n, p) for n, p in platforms.items() if kube_name(n) == platform_kube)
        (expression,) = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
        node_gpus = (platform.get("node_resources") or {}).get("gpu")
        probes = _probes(policy, platform.get("node_selector") or {}, node_gpus)
        for namespace in expression["values"]:
            with suppress(client.exceptions.ApiException):  # made by an earlier parameter
                core.create_namespaced_service_account(namespace, {"metadata": {"name": "default"}})
            for what, spec, denial in probes:
                pod = {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": "probe", "namespace": namespace},
                    "spec": spec,
                }
                answer = _in_force(core, namespace, pod, denial)
                where = f"{program.label}, platform {name!r}, {what} in {namespace}"
                if denial is None:
                    assert answer is None, f"{where}: denied: {answer}"
                else:
                    assert answer is not None and denial in answer, f"{where}: {answer}"
                    assert "ValidatingAdmissionPolicy" in answer, answer
                    denied += 1
    assert denied, f"{program.label}: no probe was denied"
    count("ValidatingAdmissionPolicy denials checked", denied)


def _in_force(core: Any, namespace: str, pod: dict[str, Any], denial: str | None) -> str | None:
    """The server's answer, once a new policy is in force (its admission informers see a new
    policy and binding within seconds; the wait is bounded)."""
    answer = _create_in(core, namespace, pod)
    deadline = time.monotonic() + 60
    while denial is not None and answer is None and time.monotonic() < deadline:
        time.sleep(0.5)
        answer = _create_in(core, namespace, pod)
    return answer


def _create_in(core: Any, namespace: str, pod: dict[str, Any]) -> str | None:
    from kubernetes.client.exceptions import ApiException

    try:
        core.create_namespaced_pod(namespace, pod, dry_run="All")
    except ApiException as error:
        return server_message(error)
    return None
