"""The plan's note on what a node advertises once device software runs (issue 29 item
14): only for pools the AcceleratorStack changes (MIG, time slicing), never because a
Karpenter pool has no one count per node, and what it says of Karpenter is true."""

from __future__ import annotations

from typing import Any

from nodepools.fleet.deploy import deploy_fleet
from nodepools.planning.sections import scheduling_section

from tests.engines.mocks import run_on

NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}


def plan_text(nvidia: dict[str, Any] | None = None, **pool: Any) -> str:
    config: dict[str, Any] = {
        "pools": [
            {
                "component": "KarpenterNodePool",
                "name": "k-gpu",
                "node_class": NODE_CLASS,
                "limits": {"nvidia.com/gpu": 16},
                **pool,
            }
        ],
        "devices": [
            {"component": "AcceleratorStack", "name": "gpu-software", "nvidia": nvidia or {}}
        ],
    }
    capture = run_on("offline", lambda: deploy_fleet(config))
    return "\n".join(scheduling_section(capture).lines)


def test_a_pool_the_stack_does_not_change_gets_no_note():
    for requirements in ({"instance_families": ["g5", "g6"]}, {"instance_categories": ["g"]}):
        text = plan_text(**requirements)
        assert "MIG or time slicing" not in text
        assert "won't launch a node" not in text


def test_time_slicing_on_karpenter_says_what_karpenter_does():
    text = plan_text({"time_slicing": {"replicas": {"k-gpu": 4}}}, instance_families=["g5", "g6"])
    assert "one node advertises nvidia.com/gpu: 4 (MIG or time slicing)" in text
    # Same resource, more of it: Karpenter still launches for what one instance has.
    assert "a pending pod asking for more nvidia.com/gpu than one instance has" in text
    assert "asking for the advertised resource" not in text
