"""The plan says when a Karpenter pool can launch spot capacity without interruption handling."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from nodepools.planning.cli import main

ROOT = Path(__file__).resolve().parents[2]
LINE = "[advisory] karpenter-spot-interruption"


def _spot_trainium(tmp_path: Path) -> Path:
    stacks = tmp_path / "stacks"
    shutil.copytree(ROOT / "stacks", stacks)
    path = stacks / "Pulumi.eks-karpenter-llm.yaml"
    document = yaml.safe_load(path.read_text())
    for pool in document["config"]["nodepools:pools"]:
        if pool["name"] == "trainium-trn1":
            pool["capacity_types"] = ["spot", "on-demand"]
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return stacks


def test_a_spot_capable_karpenter_pool_gets_a_line_until_the_queue_is_declared(
    tmp_path: Path, capsys
):
    stacks = _spot_trainium(tmp_path)
    plan = ["plan", "--stack", "eks-karpenter-llm", "--stacks-dir", str(stacks)]

    assert main(plan) == 0  # advisory: the plan stays OK
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith(LINE)]
    assert len(lines) == 1
    assert (
        ": `spec.template.spec.requirements[0]`: NodePool 'trainium-trn1' can launch spot "
        "capacity (`karpenter.sh/capacity-type In [on-demand, spot]`)"
    ) in lines[0]
    assert "settings.interruptionQueue" in lines[0]

    config = tmp_path / "policy.json"
    config.write_text(
        json.dumps({"karpenter-spot-interruption": {"interruptionQueueConfigured": True}})
    )
    assert main([*plan, "--policy-config", str(config)]) == 0
    assert LINE not in capsys.readouterr().out


def test_the_on_demand_example_stack_has_no_such_line(capsys):
    assert main(["plan", "--stack", "eks-karpenter-llm", "--stacks-dir", str(ROOT / "stacks")]) == 0
    assert LINE not in capsys.readouterr().out
