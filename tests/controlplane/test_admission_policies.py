"""The ValidatingAdmissionPolicies PoolPlatforms emits, enforced by the real API server.

The platform objects of seed 002's pool (tests/governance/kubernetes_platforms.yaml) are applied;
then a pod asking an A100 node for more GPUs than it has is denied with our message, and one
within the platform's limits is admitted. Pods are created with dryRun=All: admission runs in
full, nothing is stored, so no kubelet or controller is needed.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from nodepools import PoolPlatforms
from nodepools.offline import run

from tests.controlplane.objects import kube_objects, server_message
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
    from tests.controlplane.report import count

    count("ValidatingAdmissionPolicy denials checked")


def test_a_pod_within_the_platform_is_admitted(
    api_client: Any, over_limit_denial: str | None
) -> None:
    from kubernetes import client

    assert over_limit_denial is not None  # the policies are in force
    assert create_dry_run(client.CoreV1Api(api_client), a100_pod("8")) is None
