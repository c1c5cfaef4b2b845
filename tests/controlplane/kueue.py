"""Kueue's controller manager for the control-plane tests: where `make kueue-controller` puts
it, its CRDs (from the same Go module), and how it is started against the test API server
(`running_kueue`: one start per test module that needs it).

Without the binary the tests that need it skip with a message; NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1
or NODEPOOLS_REQUIRE_CONTROLLERS=1 (both set by .ci/run) turn that into a failure."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.controlplane.cluster import (
    REQUIRE_VARIABLE,
    ControlPlane,
    _wait_ready,
    free_port,
    kubeconfig,
    pinned_versions,
    wait_established,
)

KUEUE_NAMESPACE = "kueue-system"


def kueue_version() -> str:
    return pinned_versions()["KUEUE"]


def kueue_binary() -> Path | None:
    """The built `kueue` manager of the pinned version (where scripts/cluster_tools.sh kueue
    puts it), or None: `make kueue-controller` builds it."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(cache) / "nodepools" / f"kueue-{kueue_version()}" / "bin" / "kueue"
    return path if path.is_file() and os.access(path, os.X_OK) else None


REQUIRE_CONTROLLERS = "NODEPOOLS_REQUIRE_CONTROLLERS"


def require_kueue() -> Path:
    """The binary; else skip, or fail when CI requires the controllers."""
    binary = kueue_binary()
    if binary is not None:
        return binary
    message = f"kueue controller {kueue_version()} not built (run `make kueue-controller`)"
    required = [v for v in (REQUIRE_VARIABLE, REQUIRE_CONTROLLERS) if os.environ.get(v) == "1"]
    if required:
        pytest.fail(f"{message}; {'='.join(required[:1])}=1 requires it", pytrace=False)
    pytest.skip(message)


def kueue_crd_dir() -> Path:
    """Kueue's own CRDs, in the Go module cache the build filled."""
    modcache = subprocess.run(
        ["go", "env", "GOMODCACHE"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return Path(modcache) / f"sigs.k8s.io/kueue@{kueue_version()}/config/components/crd/bases"


# CRDs Kueue serves conversion for: its install points them at its webhook service, and its
# certificate rotator injects the CA there (it refuses to start when it can't).
CONVERTED = (
    "localqueues.kueue.x-k8s.io",
    "clusterqueues.kueue.x-k8s.io",
    "workloads.kueue.x-k8s.io",
    "cohorts.kueue.x-k8s.io",
    "multikueueclusters.kueue.x-k8s.io",
)


def with_conversion(crd: dict[str, Any], webhook_port: int) -> dict[str, Any]:
    """`crd` as Kueue's install patches it, conversion by Kueue's webhook, but serving only the
    storage version (v1beta2): the API server then never needs the webhook, whose certificate
    names Kueue's in-cluster Service, which loopback can't be."""
    if crd["metadata"]["name"] not in CONVERTED:
        return crd
    return {
        **crd,
        "spec": {
            **crd["spec"],
            "versions": [v for v in crd["spec"]["versions"] if v["storage"]],
            "conversion": {
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": {"url": f"https://127.0.0.1:{webhook_port}/convert"},
                    "conversionReviewVersions": ["v1"],
                },
            },
        },
    }


def start_kueue(plane: ControlPlane, webhook: int, api_client: Any) -> subprocess.Popen[bytes]:
    """The manager with the Job integration and no leader election; returns once its health
    probe answers. Its internal certificate management runs as in a real install (it makes
    the serving certificates, keeps them in a Secret and injects its CA into Kueue's webhook
    configurations, created here empty: the API server does not call Kueue's webhooks, whose
    checks the vendored-CRD and KueueQueues tests cover)."""
    binary = require_kueue()
    certs = plane.workdir / "kueue-certs"
    certs.mkdir(exist_ok=True)
    # Every listener on its own free loopback port: two workers (or a module's Kueue not yet
    # gone) must never meet on a default port (the visibility server's 8082 did, in CI).
    health, metrics, visibility = free_port(), free_port(), free_port()
    config = plane.workdir / "kueue-config.yaml"
    config.write_text(
        "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
        "kind: Configuration\n"
        f"namespace: {KUEUE_NAMESPACE}\n"
        f"health:\n  healthProbeBindAddress: 127.0.0.1:{health}\n"
        f"metrics:\n  bindAddress: 127.0.0.1:{metrics}\n"
        f"webhook:\n  port: {webhook}\n  host: 127.0.0.1\n  certDir: {certs}\n"
        f"visibilityServer:\n  bindAddress: 127.0.0.1\n  bindPort: {visibility}\n"
        "leaderElection:\n  leaderElect: false\n"
        "integrations:\n  frameworks:\n  - batch/job\n"
    )
    proc = plane.start(
        "kueue",
        [
            str(binary),
            f"--config={config}",
            f"--kubeconfig={kubeconfig(plane)}",
            "--zap-log-level=2",
        ],
    )
    # A pod gets the Secret the rotator fills as a mounted volume, and the rotator waits to
    # see its certificates there; the kubelet's part is played here.
    _mount_secret(plane, proc, api_client, certs)
    _wait_ready(plane, f"http://127.0.0.1:{health}/healthz", "kueue", proc, timeout=180)
    return proc


def _mount_secret(
    plane: ControlPlane, proc: Any, api_client: Any, certs: Path, timeout: float = 120
) -> None:
    import base64
    import time

    from kubernetes import client

    core = client.CoreV1Api(api_client)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"kueue exited with {proc.returncode}:\n{plane.log_tail('kueue')}")
        data = core.read_namespaced_secret(SECRET, KUEUE_NAMESPACE).data or {}
        if all(key in data for key in ("tls.crt", "tls.key", "ca.crt")):
            for key, value in data.items():
                (certs / key).write_bytes(base64.b64decode(value))
            return
        time.sleep(0.5)
    raise RuntimeError(f"kueue never filled Secret {SECRET}:\n{plane.log_tail('kueue')}")


SECRET = "kueue-webhook-server-cert"


# The webhook configurations Kueue's certificate rotator injects its CA into, by the names
# it derives from its default webhook service name.
WEBHOOK_CONFIGURATIONS = (
    ("ValidatingWebhookConfiguration", "kueue-validating-webhook-configuration"),
    ("MutatingWebhookConfiguration", "kueue-mutating-webhook-configuration"),
)


def _snake(kind: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in kind).lstrip("_")


@contextmanager
def running_kueue(
    plane: ControlPlane, api_client: Any, dynamic_client: Any
) -> Iterator[ControlPlane]:
    """Kueue's full CRD set from its module (replacing the vendored subset: same release),
    its namespace, and the manager running until the block ends (a running Kueue would put
    finalizers on the queues and flavors later modules apply and delete). Safe to enter again
    in a later module of the same session."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    from tests.controlplane.objects import KubeObject, apply

    require_kueue()
    extensions = client.ApiextensionsV1Api(api_client)
    webhook_port = free_port()
    names = []
    for path in sorted(kueue_crd_dir().glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        names.append(crd["metadata"]["name"])
        crd = with_conversion(crd, webhook_port)
        apply(dynamic_client, KubeObject(f"kueue CRD {path.name}", crd), dry_run=False)
    wait_established(extensions, names, "Kueue CRDs")
    core = client.CoreV1Api(api_client)
    admission = client.AdmissionregistrationV1Api(api_client)
    # Made once per session (a later module finds them): 409 is "already there".
    creations: list[Any] = [
        lambda: core.create_namespace({"metadata": {"name": KUEUE_NAMESPACE}}),
        # As Kueue's install manifests do: the rotator fills the Secret, it does not create it.
        lambda: core.create_namespaced_secret(KUEUE_NAMESPACE, {"metadata": {"name": SECRET}}),
    ]
    for kind, name in WEBHOOK_CONFIGURATIONS:
        create = getattr(admission, f"create_{_snake(kind)}")
        creations.append(lambda c=create, n=name: c({"metadata": {"name": n}, "webhooks": []}))
    for create in creations:
        try:
            create()
        except ApiException as error:
            if error.status != 409:
                raise
    proc = start_kueue(plane, webhook_port, api_client)
    try:
        yield plane
    finally:
        with suppress(Exception):
            plane.stop_one(proc)
