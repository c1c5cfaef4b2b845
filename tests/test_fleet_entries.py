"""Each step of a fleet entry's validation reports its own problem, word for word, at the
entry's config path; an entry stops at its first failing step."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.fleet.deploy import validate_fleet
from nodepools.specs import SpecError

from tests.conftest import EKS, OKE

NODE_CLASS = {
    "role": "KarpenterNodeRole-ml",
    "subnet_selector_tags": {"karpenter.sh/discovery": "ml"},
    "security_group_selector_tags": {"karpenter.sh/discovery": "ml"},
}
BROKEN = {"kind": "eks", "cluster_name": "x"}  # no subnet_ids


def cpu(name: str, **args: Any) -> dict[str, Any]:
    return {
        "component": "MachinePool",
        "name": name,
        "cluster": "eks",
        "instance_type": "m5.large",
        "replicas": 1,
        **args,
    }


def karpenter(name: str, **args: Any) -> dict[str, Any]:
    return {"component": "KarpenterNodePool", "name": name, "instance_families": ["m5"], **args}


def problems(pools: list[Any], clusters: dict[str, Any] | None = None) -> dict[str, str]:
    config = {"clusters": {"eks": EKS, "oke": OKE} if clusters is None else clusters}
    with pytest.raises(SpecError) as caught:
        validate_fleet({**config, "pools": pools})
    return {issue.path: issue.message for issue in caught.value.issues}


def test_the_entry_itself():
    found = problems(["cpu", {"component": "NodeThing", "name": "a"}, {"component": "MachinePool"}])
    assert found == {
        "nodepools:pools[0]": "must be a mapping (got a str)",
        "nodepools:pools[1].component": "'NodeThing' is not one of "
        "['GpuSpotPool', 'KarpenterNodePool', 'MachinePool', 'SharedNodePool']",
        "nodepools:pools[2].name": "a non-empty name is required (got None)",
    }


def test_entry_names_are_unique_even_when_the_first_entry_is_invalid():
    found = problems([cpu("a", replicas=-1), cpu("a")])
    assert found["nodepools:pools[1].name"] == "'a' is already used by nodepools:pools[0]"
    assert list(found) == ["nodepools:pools[0].replicas", "nodepools:pools[1].name"]


def test_cluster_references():
    found = problems(
        [
            {**cpu("a"), "cluster": "nope"},
            {**cpu("b"), "cluster": "broken"},
        ],
        clusters={"eks": EKS, "broken": BROKEN},
    )
    assert found["nodepools:pools[0].cluster"] == "unknown cluster 'nope' (known: eks)"
    assert found["nodepools:pools[1].cluster"] == (
        "cluster 'broken' is invalid (see nodepools:clusters.broken)"
    )


def test_the_args_model_and_the_preflight_report_at_the_entry():
    found = problems([cpu("bad_name"), cpu("a", pool_name="bad_name"), cpu("b", replicas=-1)])
    assert set(found) == {
        "nodepools:pools[0].name",  # named after the entry: its `name` is the pool name
        "nodepools:pools[1].pool_name",
        "nodepools:pools[2].replicas",
    }
    assert "'bad_name' is not a valid pool name" in found["nodepools:pools[0].name"]


def test_a_pool_name_is_claimed_per_real_cluster():
    # Entry c names pool `a`, which no entry has taken (entry a's pool is `cpu`).
    found = problems([cpu("a", pool_name="cpu"), cpu("cpu"), cpu("c", pool_name="a")])
    assert found == {
        "nodepools:pools[1].name": "pool name 'cpu' is already used on the same cluster "
        "(eks ml-platform) by nodepools:pools[0]",
    }


def test_karpenter_pools_share_the_kubernetes_cluster():
    found = problems(
        [
            karpenter("a", node_class_name="default"),
            karpenter("a2", pool_name="a", node_class_name="default"),
        ]
    )
    assert found == {
        "nodepools:pools[1].pool_name": "pool name 'a' is already used on the same cluster "
        "(kubernetes) by nodepools:pools[0]"
    }


def test_a_node_class_named_after_its_pool_is_reported_at_the_name():
    found = problems(
        [
            karpenter("a", node_class={**NODE_CLASS, "name": "b"}),
            karpenter("b", node_class=NODE_CLASS),
            # Used by name, not created: any number of pools may name it.
            karpenter("c", node_class_name="b"),
        ]
    )
    assert found == {
        "nodepools:pools[1].name": "EC2NodeClass 'b' (named after its pool) is already created "
        "on the same cluster (kubernetes) by nodepools:pools[0] (entry 'a', its "
        "`node_class.name`): an EC2NodeClass is cluster-scoped, so creating it twice fails "
        "with AlreadyExists (or one overwrites the other); give one of them another "
        "`node_class.name`, or have this pool use the other's class with "
        "`node_class_name: b` instead of `node_class`"
    }


def test_a_refused_node_class_leaves_the_pool_name_free():
    # Entry b is refused for its class; its pool name `b` was never claimed, so c may take it.
    found = problems(
        [
            karpenter("a", node_class={**NODE_CLASS, "name": "b"}),
            karpenter("b", node_class=NODE_CLASS),
            karpenter("c", pool_name="b", node_class_name="default"),
        ]
    )
    assert list(found) == ["nodepools:pools[1].name"]
