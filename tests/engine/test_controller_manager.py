"""kube-controller-manager does for the engine what the Kubernetes provider's deletes rely on: a
foreground delete (the provider's propagation policy) finishes, and a Namespace with objects in
it is emptied and removed. Without it both hang: `destroy` would wait out its timeout."""

from __future__ import annotations

import time
from typing import Any

import pytest

pytestmark = pytest.mark.xdist_group("engine")


def _gone(read: Any, timeout: float = 60) -> bool:
    from kubernetes.client.exceptions import ApiException

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            read()
        except ApiException as error:
            if error.status == 404:
                return True
            raise
        time.sleep(0.5)
    return False


def test_foreground_and_namespace_deletes_finish(controller_manager: Any, api_client: Any) -> None:
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    namespace = "engine-gc-check"
    core.create_namespace({"metadata": {"name": namespace}})
    core.create_namespaced_config_map(
        namespace, {"metadata": {"name": "owned"}, "data": {"a": "b"}}
    )
    core.delete_namespaced_config_map(
        "owned", namespace, body=client.V1DeleteOptions(propagation_policy="Foreground")
    )
    assert _gone(lambda: core.read_namespaced_config_map("owned", namespace))
    core.create_namespaced_config_map(namespace, {"metadata": {"name": "left"}})
    core.delete_namespace(namespace, body=client.V1DeleteOptions(propagation_policy="Foreground"))
    assert _gone(lambda: core.read_namespace(namespace))
