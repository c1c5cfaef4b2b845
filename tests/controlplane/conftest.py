"""Session fixtures: a real etcd + kube-apiserver, an API client, the vendored CRDs installed.

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
