"""A user's policy pack from the installed wheel: `nodepools policy-pack DIR` writes the
folder `pulumi preview --policy-pack DIR` takes, and its analyzer, started as the Pulumi CLI
starts it (the virtualenv PulumiPolicy.yaml names, `python -m pulumi.policy` in the folder),
judges what a program registered under the offline engine (issue 33 item 4)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

import grpc
import pytest
import yaml
from google.protobuf import empty_pb2
from nodepools import GpuSpotPool
from nodepools.offline import run
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from tests.conftest import OKE
from tests.policies.fixtures import Resource
from tests.policies.test_analyzer import (
    ENGINE_ADDRESS,
    RPC_SECONDS,
    SHUTDOWN_SECONDS,
    _default_sigint,
    _read_port,
    analyze_stack,
    configure,
)

pytestmark = pytest.mark.xdist_group("extras")


def _installed_version(env_dir: Path) -> str:
    out = subprocess.run(
        [str(env_dir / "bin" / "nodepools"), "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return out.split()[-1]


def test_the_installed_pack_judges_a_users_program(venvs, tmp_path: Path):
    env_dir = venvs["core"]  # the pack needs no cloud SDK
    pack = tmp_path / "my-policy-pack"
    made = subprocess.run(
        [str(env_dir / "bin" / "nodepools"), "policy-pack", str(pack)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    assert f"run: pulumi preview --policy-pack {pack}" in made.stdout
    assert sorted(p.name for p in pack.iterdir()) == ["PulumiPolicy.yaml", "__main__.py"]
    project = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())
    assert project["runtime"] == {"name": "python", "options": {"virtualenv": str(env_dir)}}
    # The CLI takes the pack's version from this file (the SDK's own is a placeholder).
    assert project["version"] == _installed_version(env_dir)

    # What the program registers (here: captured offline), as the engine hands it over.
    capture = run(lambda: GpuSpotPool("gpu-oke", {"cluster": OKE, "instance_type": "VM.GPU.A10.1"}))
    resources = tuple(Resource(r.type, r.name, r.inputs) for r in capture.custom_resources())

    python = Path(project["runtime"]["options"]["virtualenv"]) / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    with tempfile.NamedTemporaryFile(prefix="user-pack-", suffix=".stderr") as stderr:
        process = subprocess.Popen(
            [str(python), "-u", "-m", "pulumi.policy", ENGINE_ADDRESS, "."],
            cwd=pack,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            preexec_fn=_default_sigint,
        )
        port = _read_port(process, stderr.name)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        try:
            grpc.channel_ready_future(channel).result(timeout=RPC_SECONDS)
            stub = analyzer_pb2_grpc.AnalyzerStub(channel)
            info = stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=RPC_SECONDS)
            assert info.name == "nodepools-guardrails"
            configure(stub, {})
            diagnostics = analyze_stack(stub, resources)
        finally:
            channel.close()
            process.send_signal(signal.SIGINT)
            code = process.wait(timeout=SHUTDOWN_SECONDS)
        assert code == 0, Path(stderr.name).read_text(errors="replace")
    found = [
        (d.policyName, analyzer_pb2.EnforcementLevel.Name(d.enforcementLevel)) for d in diagnostics
    ]
    assert found == [("oke-pool-autoscaler", "ADVISORY")]
    assert "'gpu-oke' is autoscaled (0..3)" in diagnostics[0].message


def test_policy_pack_refuses_a_folder_that_holds_other_files(venvs, tmp_path: Path):
    (tmp_path / "Pulumi.yaml").write_text("name: mine\n")
    made = subprocess.run(
        [str(venvs["core"] / "bin" / "nodepools"), "policy-pack", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (made.returncode, made.stdout) == (2, "")
    assert made.stderr == f"error: {tmp_path}: holds 'Pulumi.yaml': give an empty or new folder\n"
