"""Karpenter's instance families and categories checked against the catalog as instance
types are (issue 29 item 3): a malformed name is an error, a well-formed one the catalog
lacks a plan warning, and never an accelerator pool by guess."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools import KarpenterNodePool
from nodepools.offline import run
from nodepools.specs.core.base import SpecError
from nodepools.specs.core.parse import parse_spec
from nodepools.specs.karpenter.args import KarpenterNodePoolArgs
from nodepools.specs.karpenter.resolve import resolve_karpenter_pool

FAMILY = "karpenter.k8s.aws/instance-family"


def resolved(**args: Any):
    spec = parse_spec(KarpenterNodePoolArgs, {"node_class_name": "default", **args}, "pool")
    return resolve_karpenter_pool(spec, "pool")


def issues(**args: Any) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        resolved(**args)
    return {issue.path: issue.message for issue in raised.value.issues}


@pytest.mark.parametrize(
    ("args", "warned"),
    [
        ({"instance_families": ["m99"]}, "instance family 'm99' is not in the nodepools catalog"),
        ({"instance_families": ["g55"]}, "instance family 'g55' is not in the nodepools catalog"),
        ({"instance_categories": ["gpu"]}, "instance category 'gpu' is not one of the nodepools"),
        ({"instance_types": ["g55.xlarge"]}, "instance type 'g55.xlarge' is not in the nodepools"),
        (
            {"requirements": [{"key": FAMILY, "operator": "In", "values": ["g55"]}]},
            "instance family 'g55' is not in the nodepools catalog",
        ),
    ],
)
def test_names_the_catalog_lacks_are_warned_about_and_make_no_accelerator_pool(
    args: dict[str, Any], warned: str
):
    pool = resolved(**args)
    assert [w for w in pool.warnings if w.startswith(warned)]
    # A typo'd `g55` is not an NVIDIA pool: no taint, no accelerator request.
    assert pool.accelerator is None
    assert pool.taints == ()


def test_known_names_give_no_warning():
    pool = resolved(instance_families=["g5", "g6"], instance_categories=["g"])
    assert pool.warnings == ()
    assert pool.accelerator is not None and pool.accelerator.resource == "nvidia.com/gpu"


@pytest.mark.parametrize(
    ("args", "path", "message"),
    [
        ({"instance_families": ["g5", "G6"]}, "instance_families[1]", "'G6' is not an EC2 instance family"),
        ({"instance_families": ["g5.xlarge"]}, "instance_families[0]", "'g5.xlarge' is an instance type, not a family; give its family 'g5'"),
        ({"instance_categories": ["g5"]}, "instance_categories[0]", "'g5' is not an EC2 instance category"),
        (
            {"requirements": [{"key": FAMILY, "operator": "In", "values": ["g5", "p5.48xlarge"]}]},
            "requirements[0].values[1]",
            "'p5.48xlarge' is an instance type, not a family",
        ),
        (
            {"requirements": [{"key": "karpenter.k8s.aws/instance-category", "operator": "NotIn", "values": ["t3"]}]},
            "requirements[0].values[0]",
            "'t3' is not an EC2 instance category",
        ),
        (
            {"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["x9.bogus"]}]},
            "requirements[0].values[0]",
            "'x9.bogus' is not an EC2 instance type",
        ),
    ],
)  # fmt: skip
def test_malformed_names_are_errors(args: dict[str, Any], path: str, message: str):
    assert message in issues(**args)[path]


def test_the_plan_shows_the_warning():
    capture = run(
        lambda: KarpenterNodePool(
            "pool", {"node_class_name": "default", "instance_families": ["m99"]}
        )
    )
    warnings = [message for severity, message in capture.logs if severity == "warning"]
    assert any("instance family 'm99' is not in the nodepools catalog" in m for m in warnings)


def test_an_unknown_family_of_a_one_maker_category_keeps_its_accelerator():
    # As the policy pack reads the rendered NodePool: `p` families are NVIDIA's.
    pool = resolved(instance_families=["p7"], limits={"nvidia.com/gpu": 8})
    assert pool.accelerator is not None and pool.accelerator.resource == "nvidia.com/gpu"
    assert [str(t) for t in pool.taints] == ["nvidia.com/gpu=true:NoSchedule"]
    assert pool.warnings and "instance family 'p7'" in pool.warnings[0]


def test_a_count_no_type_of_the_families_carries_is_refused():
    found = issues(instance_families=["g5"], gpu_count=2)
    assert found == {
        "gpu_count": "2 matches none of `instance_families` ['g5'] (their types carry "
        "[1, 4, 8]); no instance type can satisfy both"
    }
    assert "neuron_count" in issues(instance_families=["trn1"], neuron_count=3)
    assert resolved(instance_families=["g5"], gpu_count=4).accelerator.count == 4
