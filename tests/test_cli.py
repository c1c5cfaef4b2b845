"""`python -m nodepools plan`: every stack plans; exit codes; --out; --policy-config."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from nodepools.planning import plan_stack
from nodepools.planning.cli import main
from nodepools.planning.project import stack_names

ROOT = Path(__file__).resolve().parent.parent
STACKS = stack_names(ROOT / "stacks")


@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_plans_offline(stack):
    result = plan_stack(stack, stacks_dir=ROOT / "stacks")
    assert result.error is None, result.error
    assert result.ok, result.render()
    assert "Plan OK" in result.render()


def test_dev_plan_prints_tree_scheduling_and_capacity(capsys):
    assert main(["plan", "--stack", "dev", "--stacks-dir", str(ROOT / "stacks")]) == 0
    out = capsys.readouterr().out
    assert "aws:eks/nodeGroup:NodeGroup  gpu-spot-node-group" in out
    assert "oci:ContainerEngine/nodePool:NodePool  oke-a10-node-pool" in out
    assert "nodepools.dev/pool: gpu-spot" in out
    # Time-sliced 4 ways by the stack: capacity in what a node advertises.
    assert "gpu-spot     eks      g5.2xlarge     0..4   nvidia.com/gpu (A10G)  4         16" in out
    assert "no violations" in out


def test_out_writes_artifacts(tmp_path):
    code = main(
        ["plan", "--stack", "dev", "--stacks-dir", str(ROOT / "stacks"), "--out", str(tmp_path)]
    )
    assert code == 0
    group = yaml.safe_load(
        (tmp_path / "resources/aws_eks_nodeGroup_NodeGroup/gpu-spot-node-group.yaml").read_text()
    )
    assert group["inputs"]["capacityType"] == "SPOT"
    assert group["inputs"]["scalingConfig"]["maxSize"] == 4  # integers, not floats


def test_a_stack_without_a_stack_file_is_planned_and_says_so(capsys):
    # Pulumi needs no Pulumi.<stack>.yaml: the stack runs on the project's defaults.
    assert main(["plan", "--stack", "nope", "--stacks-dir", str(ROOT / "stacks")]) == 0
    out = capsys.readouterr().out
    assert (
        f"Note: {ROOT / 'stacks' / 'Pulumi.nope.yaml'} does not exist: the stack is planned" in out
    )
    assert "(stacks with a file: dev, " in out


def _stack_dir(tmp_path: Path, pools: list[dict]) -> Path:
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "__main__.py")
    clusters = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"][
        "nodepools:clusters"
    ]
    config = {"config": {"nodepools:clusters": clusters, "nodepools:pools": pools}}
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def test_invalid_stack_exits_2_and_names_the_config_path(tmp_path, capsys):
    stacks = _stack_dir(
        tmp_path,
        [
            {
                "component": "MachinePool",
                "name": "x",
                "cluster": "ml-eks",
                "instance_type": "m5.large",
                "replicas": 1,
                "taints": ["a:Nope"],
            }
        ],
    )
    assert main(["plan", "--stack", "t", "--stacks-dir", str(stacks)]) == 2
    out = capsys.readouterr().out
    assert "nodepools:pools[0].taints[0].effect" in out and "'Nope'" in out
    assert f"{stacks}: the program failed; nothing would be created\n" in out


def test_mandatory_policy_violation_fails_and_config_can_disable_it(tmp_path, capsys):
    # An accelerator pool without the GPU taint: `accelerator-pool-tainted` is mandatory.
    stacks = _stack_dir(
        tmp_path,
        [
            {
                "component": "MachinePool",
                "name": "gpu",
                "cluster": "ml-eks",
                "instance_type": "g5.xlarge",
                "replicas": 1,
            }
        ],
    )
    assert main(["plan", "--stack", "t", "--stacks-dir", str(stacks)]) == 1
    out = capsys.readouterr().out
    assert "[mandatory] accelerator-pool-tainted" in out and "Plan FAILED" in out
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"accelerator-pool-tainted": "disabled"}))
    assert (
        main(["plan", "--stack", "t", "--stacks-dir", str(stacks), "--policy-config", str(config)])
        == 0
    )


def test_module_entry_point_runs(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "nodepools", "plan", "--stack", "dev"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Plan OK" in result.stdout


FREEZE_COUNT_AT_EXIT = """
import atexit, gc, runpy, sys
atexit.register(lambda: print("FROZEN", gc.get_freeze_count()))
sys.argv = ["nodepools", *sys.argv[1:]]
runpy.run_module("nodepools", run_name="__main__")
"""


def test_only_the_module_entry_point_freezes_the_heap_it_imported():
    """`python -m nodepools plan` freezes what its imports built (the cyclic GC then skips
    it); `main()` called from someone else's process leaves their GC as it was."""
    import gc

    before = gc.get_freeze_count()
    assert main(["plan", "--stack", "dev", "--stacks-dir", str(ROOT / "stacks")]) == 0
    assert gc.get_freeze_count() == before
    result = subprocess.run(
        [sys.executable, "-c", FREEZE_COUNT_AT_EXIT, "plan", "--stack", "dev"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    frozen = int(result.stdout.split("FROZEN")[-1])
    assert frozen > 10_000  # the SDK and the engine (~50,000 objects), not a handful
