"""Session fixtures: a real etcd + kube-apiserver, an API client, the vendored CRDs installed,
and (for what deletes in the foreground) kube-controller-manager's garbage collector.

Skipped with a plain message when the binaries are not built (`make cluster-tools`), unless
NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1 (set by .ci/run), which turns the absence into a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import (
    ADMIN_TOKEN,
    REQUIRE_VARIABLE,
    ControlPlane,
    _wait_ready,  # pyright: ignore[reportPrivateUsage]
    free_port,
    kubeconfig,
    missing_tools,
    start_control_plane,
    start_scheduler,
    tools_dir,
    wait_established,
)
from tests.controlplane.crds import crd_manifests


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    missing = missing_tools()
    if missing:
        message = (
            f"real control-plane tests skipped: {', '.join(missing)} not built in {tools_dir()} "
            "(run `make cluster-tools`)"
        )
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{message}; {REQUIRE_VARIABLE}=1 requires them", pytrace=False)
        pytest.skip(message)
    workdir: Path = tmp_path_factory.mktemp("controlplane")
    plane = start_control_plane(workdir)
    try:
        yield plane
    finally:
        plane.stop()


@pytest.fixture(scope="session")
def api_client(control_plane: ControlPlane) -> Any:
    import urllib3
    from kubernetes import client

    # The test server's serving certificate is self-signed, made at its start.
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    configuration = client.Configuration()
    configuration.host = control_plane.server
    configuration.verify_ssl = False
    configuration.api_key = {"authorization": ADMIN_TOKEN}
    configuration.api_key_prefix = {"authorization": "Bearer"}
    return client.ApiClient(configuration)


@pytest.fixture(scope="session")
def installed_crds(api_client: Any) -> list[str]:
    """The vendored Karpenter and Kueue CRDs, created and Established; returns their names."""
    from kubernetes import client

    api = client.ApiextensionsV1Api(api_client)
    names = []
    for manifest in crd_manifests():
        api.create_custom_resource_definition(manifest)
        names.append(manifest["metadata"]["name"])
    wait_established(api, names)
    return names


@pytest.fixture(scope="session")
def dynamic_client(api_client: Any) -> Any:
    from kubernetes.dynamic import DynamicClient

    return DynamicClient(api_client)


@pytest.fixture(scope="session")
def scheduler(control_plane: ControlPlane) -> ControlPlane:
    """The real kube-scheduler, running against the session's API server."""
    start_scheduler(control_plane)
    return control_plane


# The controllers a `pulumi destroy` needs: the Kubernetes provider deletes with
# propagationPolicy=Foreground, whose `foregroundDeletion` finalizer only the garbage collector
# removes, and a Namespace is gone only once the namespace controller has emptied it.
CONTROLLERS = ("garbagecollector", "namespace")


def start_controller_manager(plane: ControlPlane) -> None:
    """kube-controller-manager with CONTROLLERS only (no leader election); returns once
    /healthz is ok. Skips (fails under NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1) when not built."""
    binary = tools_dir() / "kube-controller-manager"
    if not os.access(binary, os.X_OK):
        message = f"kube-controller-manager not built in {tools_dir()} (run `make cluster-tools`)"
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{message}; {REQUIRE_VARIABLE}=1 requires it", pytrace=False)
        pytest.skip(message)
    config = kubeconfig(plane)
    port = free_port()
    manager = plane.start(
        "kube-controller-manager",
        [
            str(binary),
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={plane.workdir / 'controller-manager-certs'}",
            f"--controllers={','.join(CONTROLLERS)}",
            "--leader-elect=false",
            "--profiling=false",
            "--v=1",
        ],
    )
    _wait_ready(
        plane,
        f"https://127.0.0.1:{port}/healthz",
        "kube-controller-manager",
        manager,
        timeout=120,
    )


@pytest.fixture(scope="session")
def controller_manager(control_plane: ControlPlane) -> ControlPlane:
    """kube-controller-manager's garbage-collector and namespace controllers, running against
    the session's API server."""
    start_controller_manager(control_plane)
    return control_plane
