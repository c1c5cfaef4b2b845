"""The rosa-gpu stack (the ROSA machine-pools scenario) plans offline, with no token and no network."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import yaml
from nodepools.backends.rosa.ocm_client import OcmClient
from nodepools.offline import run
from nodepools.planning import plan_stack
from nodepools.planning.cli import main
from nodepools.planning.policy_section import policy_inputs
from nodepools.planning.sections import pool_components, scheduling_section
from nodepools.policies.resources import pool_view
from nodepools.policies.runner import run_policies

from tests.capture_testing import leaks
from tests.golden import assert_golden

ROOT = Path(__file__).resolve().parents[2]
STACKS = ROOT / "stacks"
STACK_FILE = STACKS / "Pulumi.rosa-gpu.yaml"

BATCH_WORKERS_SCHEDULING = """\
batch-workers (MachinePool):
  nodeSelector:
    nodepools.dev/pool: batch-workers
  tolerations:
  - key: workload-type
    operator: Equal
    value: batch
    effect: NoSchedule
"""
ML_TRAINING_SCHEDULING = """\
ml-training (GpuSpotPool):
  nodeSelector:
    nodepools.dev/pool: ml-training
  tolerations:
  - key: nvidia.com/gpu
    operator: Equal
    value: 'true'
    effect: NoSchedule
  - key: spot
    operator: Equal
    value: 'true'
    effect: PreferNoSchedule
  resources:
    limits:
      nvidia.com/gpu: 1
"""


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """No token in the environment, and any attempt to reach OCM or the network recorded."""
    for name in ("RHCS_TOKEN", "OCM_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    attempts: list[str] = []

    def refuse_connect(self, address):
        attempts.append(f"socket.connect {address!r}")
        raise OSError("network access in an offline plan")

    def refuse_client(self, *args, **kwargs):
        attempts.append("OcmClient()")
        raise RuntimeError("an OCM client in an offline plan")

    monkeypatch.setattr(socket.socket, "connect", refuse_connect)
    monkeypatch.setattr(OcmClient, "__init__", refuse_client)
    return attempts


def keys_of(value: object) -> set[str]:
    if isinstance(value, dict):
        return {str(k) for k in value} | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def test_the_stack_file_declares_the_scenario_and_no_token():
    config = yaml.safe_load(STACK_FILE.read_text())["config"]

    [cluster] = config["nodepools:clusters"].values()
    assert cluster["kind"] == "rosa"
    assert "token" not in keys_of(config)
    pools = {pool["name"]: pool for pool in config["nodepools:pools"]}
    assert pools["batch-workers"]["component"] == "MachinePool"
    assert pools["ml-training"]["component"] == "GpuSpotPool"


def test_rosa_gpu_plans_offline_without_a_token_or_the_network(offline: list[str]):
    result = plan_stack("rosa-gpu", stacks_dir=STACKS)

    assert result.error is None and result.ok
    assert offline == []
    text = result.render()
    assert BATCH_WORKERS_SCHEDULING in text
    assert ML_TRAINING_SCHEDULING in text


def test_the_plan_shows_the_machine_pools_and_the_capacity(offline: list[str]):
    result = plan_stack("rosa-gpu", stacks_dir=STACKS)

    sections = {section.title: section for section in result.sections}
    assert_golden("rosa/plan-rosa-gpu-resources.txt", sections["Resources"].render())
    assert_golden("rosa/plan-rosa-gpu-capacity.txt", sections["Capacity"].render())


def test_the_cli_prints_the_plan(offline: list[str], capsys: pytest.CaptureFixture[str]):
    status = main(["plan", "--stack", "rosa-gpu", "--stacks-dir", str(STACKS)])

    printed = capsys.readouterr().out
    assert status == 0
    assert ML_TRAINING_SCHEDULING in printed and BATCH_WORKERS_SCHEDULING in printed
    assert printed.rstrip().endswith("Plan OK")


def test_the_policy_pack_finds_nothing_mandatory_in_the_stack(offline: list[str]):
    result = plan_stack("rosa-gpu", stacks_dir=STACKS)

    violations = run_policies(policy_inputs(result.capture))

    assert [v for v in violations if v.enforcement_level.value == "mandatory"] == []
    # The pack did look at both machine pools (its ROSA view recognised them).
    pools = [pool_view(r.type, r.inputs, r.name) for r in result.capture.custom_resources()]
    assert sorted(p.name for p in pools if p is not None) == ["batch-workers", "ml-training"]


def test_a_multi_az_variant_with_a_bad_count_fails_the_plan_before_registering(
    tmp_path: Path, offline: list[str]
):
    document = yaml.safe_load(STACK_FILE.read_text())
    config = document["config"]
    [cluster] = config["nodepools:clusters"].values()
    cluster["multi_az"] = True
    (tmp_path / "Pulumi.rosa-gpu.yaml").write_text(yaml.safe_dump(document))
    (tmp_path / "__main__.py").write_text((STACKS / "__main__.py").read_text())

    result = plan_stack("rosa-gpu", stacks_dir=tmp_path)

    assert result.capture is not None and result.capture.resources == []
    assert "`nodepools:pools[0].autoscaling.min_replicas`: 2 must be a multiple of 3" in (
        result.error
    )
    assert "`nodepools:pools[0].autoscaling.max_replicas`: 10 must be a multiple of 3" in (
        result.error
    )
    assert "`nodepools:pools[1].autoscaling.max_replicas`: 5 must be a multiple of 3" in (
        result.error
    )


def test_a_token_in_the_fleet_config_is_registered_only_as_a_secret(offline: list[str]):
    # What the engine hands the program for `pulumi config set --secret --path
    # 'nodepools:clusters.ml-rosa.token'`: the decrypted value inside the clusters object.
    token = "offline-eyJhbGciOi-FLEET-CONFIG-9c2d"
    config = yaml.safe_load(STACK_FILE.read_text())["config"]
    config["nodepools:clusters"]["ml-rosa"]["token"] = token

    capture = run(STACKS / "__main__.py", stack="rosa-gpu", config=config)

    pools = [r for r in capture.custom_resources() if r.inputs.get("token") == token]
    assert len(pools) == 2 and all("token" in r.secret_paths for r in pools)
    assert leaks(capture, token) == []
    assert offline == []


def test_pools_are_reported_by_name_whatever_order_they_registered_in(offline: list[str]):
    # Registrations race on the engine's threads, so capture order is not program order.
    result = plan_stack("rosa-gpu", stacks_dir=STACKS)
    capture = result.capture
    capture.resources.reverse()

    assert [p.name for p in pool_components(capture)] == ["batch-workers", "ml-training"]
    text = scheduling_section(capture).render()
    assert text.index("batch-workers (MachinePool)") < text.index("ml-training (GpuSpotPool)")
