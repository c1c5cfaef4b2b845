"""One source of truth for the text plan, the JSON plan, its Markdown and the diff: a
Karpenter pool's GPU bound, pools of unknown sizes or models, and cost totals rounded once."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import yaml
from nodepools.planning import plan_stack
from nodepools.planning.markdown_plan import plan_markdown
from nodepools.planning.plan_diff import diff_plans
from nodepools.planning.plan_document import plan_document
from nodepools.planning.pool_data import total_cost

ROOT = Path(__file__).resolve().parent.parent.parent
NODE_CLASS = {
    "role": "KarpenterNodeRole",
    "ami_alias": "al2023@latest",
    "subnet_selector_tags": [{"karpenter.sh/discovery": "ml"}],
    "security_group_selector_tags": [{"karpenter.sh/discovery": "ml"}],
}
EKS = {
    "kind": "eks",
    "cluster_name": "ml",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-a"],
}


def _plan(tmp_path: Path, pools: list[dict]):
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "__main__.py")
    config = {"config": {"nodepools:clusters": {"eks": EKS}, "nodepools:pools": pools}}
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump(config))
    result = plan_stack("t", stacks_dir=tmp_path)
    assert result.error is None, result.error
    return result


def _karpenter(name: str, **args) -> dict:
    return {"component": "KarpenterNodePool", "name": name, "node_class": NODE_CLASS, **args}


def test_a_karpenter_pool_of_families_is_bounded_by_its_limit_everywhere(tmp_path):
    result = _plan(
        tmp_path,
        [_karpenter("gpu-fam", instance_families=["g5", "g6"], limits={"nvidia.com/gpu": 8})],
    )
    capacity = {s.title: s for s in result.sections}["Capacity"].lines
    (row,) = [line.split() for line in capacity if line.startswith("gpu-fam ")]
    assert row[-3:] == ["nvidia.com/gpu", "?", "8"]
    document = plan_document(result)
    (pool,) = document["pools"]
    assert pool["accelerators"] == {"min": 0, "max": 8}
    assert document["capacity"][0]["max"] == 8
    markdown = plan_markdown([document])
    assert "| - | nvidia.com/gpu | 0 | 8 | 0 | gpu-fam |" in markdown
    assert "0..8 nvidia.com/gpu" in markdown
    assert "nvidia.com/gpu, per node by instance type" in markdown
    assert "None" not in markdown
    # The diff counts the pool: its limit raised to 16 is 8 more GPUs.
    head = copy.deepcopy(document)
    head["pools"][0]["accelerators"]["max"] = 16
    (row,) = diff_plans(document, head)["accelerators"]
    assert row["before"] == {"min": 0, "max": 8} and row["after"] == {"min": 0, "max": 16}


def test_pools_of_unknown_size_or_model_read_as_such(tmp_path):
    result = _plan(
        tmp_path,
        [
            _karpenter("gpu-static", instance_families=["g5"], replicas=2),
            {
                "component": "MachinePool",
                "name": "custom",
                "cluster": "eks",
                "instance_type": "x9.large",
                "replicas": 1,
                "accelerator": {"resource": "nvidia.com/gpu", "count": 1},
            },
        ],
    )
    capacity = {s.title: s for s in result.sections}["Capacity"].lines
    rows = {line.split()[0]: line.split() for line in capacity[1:]}
    # Two nodes of sizes not known: "?", neither unbounded nor a guess.
    assert rows["gpu-static"][1:] == ["karpenter", "families", "g5", "2", "nvidia.com/gpu", "?", "?"]  # fmt: skip
    assert rows["custom"][1:] == ["eks", "x9.large", "1", "nvidia.com/gpu", "1", "1"]
    markdown = plan_markdown([plan_document(result)])
    assert "| `custom` | eks | x9.large | on-demand | 1 | 1 x nvidia.com/gpu |" in markdown
    assert "| `gpu-static` | karpenter | families g5 | on-demand | 2 | nvidia.com/gpu, per node by instance type |" in markdown  # fmt: skip
    assert "None" not in markdown and "x  (" not in markdown and "..unbounded" not in markdown
    assert "| - | nvidia.com/gpu | 1 | ? | 0 | custom, gpu-static |" in markdown


def test_cost_totals_sum_exact_figures_and_round_once():
    # m5.2xlarge at $0.384 an hour: one node is $280.32 a month, not 730 x $0.38.
    pool = {
        "name": "cpu",
        "nodes": {"min": 1, "max": 3},
        "cost": {
            "known": True,
            "per_node_hour": {"min": 0.384, "max": 0.384},
            "hourly": {"min": 0.38, "max": 1.15},
        },
    }
    totals = total_cost([pool])
    assert totals["monthly"] == {"min": 280.32, "max": 840.96}
    assert totals["hourly"] == {"min": 0.38, "max": 1.15}
    assert json.dumps(totals)  # plain data
