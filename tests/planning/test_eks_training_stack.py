"""The eks-training stack (issue 14): a Capacity Block pool with EFA and a placement group,
and an inference mix with a custom pod density, planned offline."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from nodepools.planning import plan_stack
from nodepools.planning.cli import main

ROOT = Path(__file__).resolve().parents[2]
STACKS = ROOT / "stacks"

H100_SCHEDULING = """\
h100-block (GpuSpotPool):
  nodeSelector:
    nodepools.dev/pool: h100-block
  tolerations:
  - key: nvidia.com/gpu
    operator: Equal
    value: 'true'
    effect: NoSchedule
  resources:
    limits:
      nvidia.com/gpu: 8
      vpc.amazonaws.com/efa: 32
"""


def test_the_cli_plan_shows_the_launch_templates_and_the_efa_limit(
    capsys: pytest.CaptureFixture[str],
):
    status = main(["plan", "--stack", "eks-training", "--stacks-dir", str(STACKS)])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert H100_SCHEDULING in printed
    assert (
        "aws:ec2/launchTemplate:LaunchTemplate  h100-block-launch-template  "
        "instanceType=p5.48xlarge marketType=capacity-block "
        'capacityReservationTarget={"capacityReservationId":"cr-02168da1478b509e0"} '
        "groupName=h100-block-placement-group-"
    ) in printed
    assert "aws:ec2/launchTemplate:LaunchTemplate  inference-mix-launch-template" in printed
    assert "capacityType=CAPACITY_BLOCK" in printed
    assert "no violations" in printed and printed.rstrip().endswith("Plan OK")


def test_the_pools_are_built_as_the_stack_says():
    result = plan_stack("eks-training", stacks_dir=STACKS)
    assert result.error is None and result.ok
    capture = result.capture
    block = capture.get("aws:ec2/launchTemplate:LaunchTemplate", "h100-block-launch-template")
    assert len(block.inputs["networkInterfaces"]) == 32
    group = capture.get("aws:eks/nodeGroup:NodeGroup", "h100-block-node-group").inputs
    assert group["subnetIds"] == ["subnet-0a1b2c3d4e5f60011"]
    assert "instanceTypes" not in group
    mix = capture.get("aws:ec2/launchTemplate:LaunchTemplate", "inference-mix-launch-template")
    assert "maxPods: 110" in base64.b64decode(mix.inputs["userData"]).decode()
    inference = capture.get("aws:eks/nodeGroup:NodeGroup", "inference-mix-node-group").inputs
    assert inference["instanceTypes"] == ["g6e.12xlarge", "g6.12xlarge"]


def test_the_json_plan_calls_the_block_reserved_capacity(capsys: pytest.CaptureFixture[str]):
    status = main(
        ["plan", "--stack", "eks-training", "--stacks-dir", str(STACKS), "--format", "json"]
    )
    pools = {p["name"]: p for p in json.loads(capsys.readouterr().out)["pools"]}
    assert status == 0
    assert pools["h100-block"]["capacity_types"] == ["reserved"]
    assert pools["inference-mix"]["capacity_types"] == ["spot"]


def test_the_capacity_table_names_every_type_of_a_mix():
    result = plan_stack("eks-training", stacks_dir=STACKS)
    capacity = {section.title: section for section in result.sections}["Capacity"].lines
    (row,) = [line for line in capacity if line.startswith("inference-mix ")]
    # The mix's counts are what both types have; the table must not name only one of them.
    assert row.split()[:3] == ["inference-mix", "eks", "g6e.12xlarge,g6.12xlarge"]
