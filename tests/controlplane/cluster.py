"""A real Kubernetes control plane on loopback for the tests: etcd + kube-apiserver.

The binaries come from `make cluster-tools` (scripts/cluster_tools.sh, pinned versions in
scripts/cluster_tools.versions). Every process runs in its own process group and is killed
(group-wide) at teardown and again at interpreter exit, so a failing test leaves nothing behind.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
REQUIRE_VARIABLE = "NODEPOOLS_REQUIRE_CLUSTER_TOOLS"
TOOLS = ("etcd", "kube-apiserver", "kube-scheduler")
# The admin identity of the test API server (token auth; system:masters bypasses RBAC).
ADMIN_TOKEN = "nodepools-test-admin-token"


def pinned_versions() -> dict[str, str]:
    """scripts/cluster_tools.versions: NAME=VALUE lines."""
    text = (REPO / "scripts" / "cluster_tools.versions").read_text()
    pairs = (line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return {name.strip(): value.strip() for name, value in pairs}


def tools_dir() -> Path:
    """Where `make cluster-tools` puts the binaries: $NODEPOOLS_CLUSTER_TOOLS/bin, by default
    ${XDG_CACHE_HOME:-~/.cache}/nodepools/cluster-tools-<kubernetes>-etcd-<etcd>/bin (as
    scripts/cluster_tools.sh computes it)."""
    base = os.environ.get("NODEPOOLS_CLUSTER_TOOLS")
    if not base:
        versions = pinned_versions()
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = f"{cache}/nodepools/cluster-tools-{versions['KUBERNETES']}-etcd-{versions['ETCD']}"
    return Path(base) / "bin"


def missing_tools() -> list[str]:
    """The names of the control-plane binaries that are not built."""
    return [name for name in TOOLS if not os.access(tools_dir() / name, os.X_OK)]


def free_port() -> int:
    """A port the kernel calls free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ControlPlane:
    """The running processes and how to reach the API server."""

    workdir: Path
    server: str = ""
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(
        self, name: str, argv: list[str], env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """Start a binary in its own process group, its output in workdir/NAME.log (ENV
        added to the environment)."""
        log = (self.workdir / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **env} if env else None,
        )
        log.close()
        self.processes.append(proc)
        return proc

    def log_tail(self, name: str, lines: int = 30) -> str:
        """The last lines a process logged (for failure messages)."""
        path = self.workdir / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Stop every process group, the last started first, each reaped before the next is
        signalled (SIGTERM, then SIGKILL after 10 s): the API server shuts down in about a second
        while etcd still answers it, but signalled together with etcd it waited out the 10 s."""
        for proc in reversed(self.processes):
            _terminate(proc)
            _reap(proc)
        self.processes.clear()

    def stop_one(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill one process group this plane started (SIGTERM, then SIGKILL after 10 s)."""
        _terminate(proc)
        _reap(proc)
        if proc in self.processes:
            self.processes.remove(proc)


def _terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process's group, if it still runs."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Wait for the process (10 s), then SIGKILL its group and wait again."""
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _wait_ready(
    plane: ControlPlane, url: str, name: str, proc: subprocess.Popen[bytes], timeout: float
) -> None:
    """Poll URL until it answers 200 ok; fail with the process's log if it exits or never does."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{plane.log_tail(name)}")
        try:
            with urllib.request.urlopen(request, timeout=5, context=context) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError) as error:
            last = str(error)
        time.sleep(0.5)
    raise RuntimeError(
        f"{name} not ready at {url} after {timeout:.0f} s ({last}):\n{plane.log_tail(name)}"
    )


def start_control_plane(workdir: Path) -> ControlPlane:
    """etcd + kube-apiserver on 127.0.0.1 ephemeral ports; returns once /readyz answers ok."""
    bin_dir = tools_dir()
    plane = ControlPlane(workdir=workdir)
    atexit.register(plane.stop)
    try:
        client_port, peer_port, secure_port = free_port(), free_port(), free_port()
        etcd_url = f"http://127.0.0.1:{client_port}"
        peer_url = f"http://127.0.0.1:{peer_port}"
        etcd = plane.start(
            "etcd",
            [
                str(bin_dir / "etcd"),
                "--name=test",
                f"--data-dir={workdir / 'etcd'}",
                f"--listen-client-urls={etcd_url}",
                f"--advertise-client-urls={etcd_url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=test={peer_url}",
                "--listen-metrics-urls=",
                "--log-level=warn",
            ],
        )
        _wait_ready(plane, f"{etcd_url}/health", "etcd", etcd, timeout=60)

        key = workdir / "service-account.key"
        subprocess.run(
            ["openssl", "genrsa", "-out", str(key), "2048"],
            check=True,
            capture_output=True,
        )
        tokens = workdir / "tokens.csv"
        tokens.write_text(f'{ADMIN_TOKEN},admin,admin-uid,"system:masters"\n')
        apiserver = plane.start(
            "kube-apiserver",
            [
                str(bin_dir / "kube-apiserver"),
                f"--etcd-servers={etcd_url}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                # no `kubernetes` Service endpoints: a loopback address may not be one
                "--endpoint-reconciler-type=none",
                f"--secure-port={secure_port}",
                f"--cert-dir={workdir / 'certs'}",
                f"--token-auth-file={tokens}",
                "--authorization-mode=RBAC",
                f"--service-account-key-file={key}",
                f"--service-account-signing-key-file={key}",
                "--service-account-issuer=https://kubernetes.default.svc",
                "--service-cluster-ip-range=10.96.0.0/16",
                # ValidatingAdmissionPolicy is GA (admissionregistration.k8s.io/v1); named so
                # the test server never depends on a default.
                "--runtime-config=admissionregistration.k8s.io/v1=true",
                "--enable-admission-plugins=ValidatingAdmissionPolicy",
                # As kubeadm and managed clusters run it (the flag's default is false): device
                # plugins run privileged, and a privileged pod is refused by a platform's
                # admission policy, not by the server's own default.
                "--allow-privileged=true",
                "--profiling=false",
                "--v=1",
            ],
        )
        plane.server = f"https://127.0.0.1:{secure_port}"
        _wait_ready(plane, f"{plane.server}/readyz", "kube-apiserver", apiserver, timeout=180)
    except BaseException:
        plane.stop()
        raise
    return plane


def kubeconfig(plane: ControlPlane) -> Path:
    """A kubeconfig for the admin token (for kube-scheduler)."""
    path = plane.workdir / "admin.kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: test\n  cluster:\n    server: {plane.server}\n    insecure-skip-tls-verify: true\n"
        f"users:\n- name: admin\n  user:\n    token: {ADMIN_TOKEN}\n"
        "contexts:\n- name: test\n  context:\n    cluster: test\n    user: admin\n"
        "current-context: test\n"
    )
    return path


def start_scheduler(plane: ControlPlane) -> None:
    """kube-scheduler against the plane (no leader election); returns once /healthz is ok."""
    config = kubeconfig(plane)
    port = free_port()
    scheduler = plane.start(
        "kube-scheduler",
        [
            str(tools_dir() / "kube-scheduler"),
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={plane.workdir / 'scheduler-certs'}",
            "--leader-elect=false",
            "--profiling=false",
            "--v=1",
        ],
    )
    _wait_ready(
        plane, f"https://127.0.0.1:{port}/healthz", "kube-scheduler", scheduler, timeout=120
    )


def wait_established(extensions: Any, names: list[str], what: str = "CRDs") -> None:
    """Poll until every CRD of NAMES reports Established (60 s), else fail naming the rest."""
    deadline = time.monotonic() + 60
    pending = set(names)
    while pending and time.monotonic() < deadline:
        for name in sorted(pending):
            status = extensions.read_custom_resource_definition(name).status
            conditions = {c.type: c.status for c in (status.conditions or [])} if status else {}
            if conditions.get("Established") == "True":
                pending.discard(name)
        time.sleep(0.2)
    assert not pending, f"{what} not Established after 60 s: {sorted(pending)}"


def wait_for(
    what: str, check: Callable[[], Any], plane: ControlPlane, log: str, timeout: float
) -> Any:
    """CHECK's first truthy answer, polled every 0.5 s; after TIMEOUT fail quoting the end of
    the LOG process's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    pytest.fail(f"{what} not seen after {timeout:.0f} s; {log} log:\n{plane.log_tail(log, 40)}")
