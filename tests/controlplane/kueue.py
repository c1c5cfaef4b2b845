"""Kueue's controller manager for the control-plane tests: where the optional build puts it,
its CRDs (from the same Go module), and how it is started against the test API server."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

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
    """The built `kueue` manager of the pinned version (where scripts/kueue_controller.sh
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


def start_kueue(plane: ControlPlane) -> None:
    """The manager with the Job integration, no leader election, its webhook server on a
    self-signed certificate (the API server is not told about the webhooks); returns once
    its health probe answers."""
    binary = kueue_binary()
    assert binary is not None
    certs = plane.workdir / "kueue-certs"
    certs.mkdir(exist_ok=True)
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=kueue-webhook",
            "-keyout",
            str(certs / "tls.key"),
            "-out",
            str(certs / "tls.crt"),
        ],
        check=True,
        capture_output=True,
    )
    health, metrics, webhook = free_port(), free_port(), free_port()
    config = plane.workdir / "kueue-config.yaml"
    config.write_text(
        "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
        "kind: Configuration\n"
        f"namespace: {KUEUE_NAMESPACE}\n"
        f"health:\n  healthProbeBindAddress: 127.0.0.1:{health}\n"
        f"metrics:\n  bindAddress: 127.0.0.1:{metrics}\n"
        f"webhook:\n  port: {webhook}\n  host: 127.0.0.1\n  certDir: {certs}\n"
        "leaderElection:\n  leaderElect: false\n"
        "internalCertManagement:\n  enable: false\n"
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
    _wait_ready(plane, f"http://127.0.0.1:{health}/healthz", "kueue", proc, timeout=120)
