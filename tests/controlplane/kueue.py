"""Kueue's controller manager for the control-plane tests: where the optional build puts it,
its CRDs (from the same Go module), and how it is started against the test API server."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.controlplane.cluster import (
    ControlPlane,
    _wait_ready,
    free_port,
    kubeconfig,
    pinned_versions,
)

KUEUE_NAMESPACE = "kueue-system"


def kueue_version() -> str:
    return pinned_versions()["KUEUE"]


def kueue_binary() -> Path | None:
    """The built `kueue` manager of the pinned version (where scripts/optional_controller.sh
    puts it), or None: `make kueue-controller` builds it."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(cache) / "nodepools" / f"kueue-{kueue_version()}" / "bin" / "kueue"
    return path if path.is_file() and os.access(path, os.X_OK) else None


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
    binary = kueue_binary()
    assert binary is not None
    certs = plane.workdir / "kueue-certs"
    certs.mkdir(exist_ok=True)
    health, metrics = free_port(), free_port()
    config = plane.workdir / "kueue-config.yaml"
    config.write_text(
        "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
        "kind: Configuration\n"
        f"namespace: {KUEUE_NAMESPACE}\n"
        f"health:\n  healthProbeBindAddress: 127.0.0.1:{health}\n"
        f"metrics:\n  bindAddress: 127.0.0.1:{metrics}\n"
        f"webhook:\n  port: {webhook}\n  host: 127.0.0.1\n  certDir: {certs}\n"
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
