"""Raising an autoscaled EKS pool's minimum above the live desired size: EKS accepts the update.

EKS refuses an UpdateNodegroupConfig whose minSize is above its desiredSize ("Minimum
capacity X can't be greater than desired size Y"). With desiredSize ignored, the update
carried the old desired size. These tests play a group that already exists in EKS (the
provider's reads answered by the mocks) and check the request EKS would get:
min <= desired <= max, always, and the autoscaler keeps its size whenever the bounds allow.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from nodepools.backends.eks.node_group import node_group_name_prefix
from nodepools.offline import run
from nodepools.pools.machine_pool import MachinePool
from nodepools.specs.core.labels import POOL_LABEL

from tests.conftest import EKS

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
SUFFIX = "20261124211500123400000001"


class ExistingGroups(pulumi.runtime.Mocks):
    """EKS as the provider's invokes see it: node groups by name, each with its tags and
    live scaling config; outputs of new resources are their inputs."""

    def __init__(self, groups: dict[str, dict[str, Any]], fail: bool = False):
        self.groups = groups
        self.fail = fail
        self.calls: list[str] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        return f"{args.name}_id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> Any:
        self.calls.append(args.token)
        if self.fail:  # what a provider answers when the read is refused
            return {}, [("clusterName", "AccessDeniedException: eks:ListNodegroups")]
        if args.token == "aws:eks/getNodeGroups:getNodeGroups":
            return {"clusterName": args.args["clusterName"], "names": sorted(self.groups)}
        if args.token == "aws:eks/getNodeGroup:getNodeGroup":
            return self.groups[args.args["nodeGroupName"]]
        return {}


def group(pool: str, desired: int, low: int = 0, high: int = 4) -> dict[str, Any]:
    return {
        "tags": {POOL_LABEL: pool},
        "scalingConfigs": [{"desiredSize": desired, "minSize": low, "maxSize": high}],
    }


def plan(mocks: pulumi.runtime.Mocks, low: int, high: int, pool: str = "gpu") -> Any:
    args = {"cluster": EKS, "instance_type": "m5.large"}
    args["autoscaling"] = {"min_replicas": low, "max_replicas": high}
    capture = run(lambda: MachinePool(pool, args), mocks=mocks)
    (node_group,) = capture.by_type(NODE_GROUP)
    return node_group


def name_of(pool: str) -> str:
    return node_group_name_prefix(pool) + SUFFIX


@pytest.mark.parametrize(
    ("live", "low", "high", "sent", "follows"),
    [
        (1, 3, 6, 3, False),  # min raised above the live size: sent, clamped up
        (5, 0, 2, 2, False),  # max lowered below it: clamped down
        (4, 3, 6, 4, True),  # still within: the autoscaler's size, ignored on update
        (0, 0, 4, 0, True),
    ],
)
def test_the_update_eks_gets_keeps_min_desired_max_in_order(live, low, high, sent, follows):
    mocks = ExistingGroups({name_of("gpu"): group("gpu", live)})
    node_group = plan(mocks, low, high)
    scaling = node_group.inputs["scalingConfig"]
    assert scaling["minSize"] <= scaling["desiredSize"] <= scaling["maxSize"]
    assert scaling["desiredSize"] == sent
    ignored = "scalingConfig.desiredSize" in node_group.options["ignoreChanges"]
    assert ignored is follows


def test_a_new_group_starts_at_its_minimum_and_follows_the_autoscaler():
    node_group = plan(ExistingGroups({}), 2, 5)
    assert node_group.inputs["scalingConfig"]["desiredSize"] == 2
    assert node_group.options["ignoreChanges"] == ["scalingConfig.desiredSize"]


def test_only_the_pools_own_group_is_read():
    # "gpu-a" shares the prefix text "gpu-" of pool "gpu"; its groups are not ours.
    mocks = ExistingGroups(
        {
            name_of("gpu-a"): group("gpu-a", 0),
            "gpu-manual": group("gpu", 0),  # not a generated name
            name_of("gpu"): group("gpu", 5),
        }
    )
    node_group = plan(mocks, 3, 6)
    assert node_group.inputs["scalingConfig"]["desiredSize"] == 5
    assert mocks.calls.count("aws:eks/getNodeGroup:getNodeGroup") == 1


@pytest.mark.parametrize(
    "suffix",
    [
        "2026112421150012340000000a",  # the provider's tenth name of a run: a hex counter
        "202611242115001234deadbeef",
    ],
)
def test_a_group_whose_counter_has_hex_digits_is_read(suffix):
    # terraform-plugin-sdk `id.PrefixedUniqueId`: an 18-digit timestamp, then `%08x`.
    mocks = ExistingGroups({node_group_name_prefix("gpu") + suffix: group("gpu", 1)})
    node_group = plan(mocks, 3, 6)
    # The live size 1 is read: min 3 excludes it, so 3 is sent rather than ignored.
    assert node_group.inputs["scalingConfig"]["desiredSize"] == 3
    assert node_group.options["ignoreChanges"] == []
    assert mocks.calls.count("aws:eks/getNodeGroup:getNodeGroup") == 1


@pytest.mark.parametrize(
    "suffix",
    [
        "2026112421150012340000000A",  # the provider writes lowercase hex
        "20261124211500123a00000001",  # a hex digit inside the timestamp
        "202611242115001234000000001",  # 27 characters
    ],
)
def test_a_name_the_provider_could_not_have_generated_is_not_read(suffix):
    mocks = ExistingGroups({node_group_name_prefix("gpu") + suffix: group("gpu", 1)})
    node_group = plan(mocks, 3, 6)
    assert node_group.options["ignoreChanges"] == ["scalingConfig.desiredSize"]
    assert "aws:eks/getNodeGroup:getNodeGroup" not in mocks.calls


def test_a_failed_read_falls_back_to_the_autoscaler_with_a_warning(caplog):
    node_group = plan(ExistingGroups({}, fail=True), 3, 6)
    assert node_group.options["ignoreChanges"] == ["scalingConfig.desiredSize"]
    assert "could not read the live size" in caplog.text


def test_a_cluster_known_only_at_deploy_time_is_not_read():
    mocks = ExistingGroups({name_of("gpu"): group("gpu", 1)})

    def program():
        cluster = {**EKS, "cluster_name": pulumi.Output.from_input("ml-platform")}
        MachinePool("gpu", {"cluster": cluster, "instance_type": "m5.large", "autoscaling": {"min_replicas": 3, "max_replicas": 6}})  # fmt: skip

    run(program, mocks=mocks)
    assert mocks.calls == []


def test_a_cluster_is_listed_once_per_run_and_again_in_the_next_run():
    mocks = ExistingGroups({name_of("a"): group("a", 1), name_of("b"): group("b", 1)})

    def program():
        for pool in ("a", "b"):
            MachinePool(pool, {"cluster": EKS, "instance_type": "m5.large", "autoscaling": {"min_replicas": 2, "max_replicas": 4}})  # fmt: skip

    run(program, mocks=mocks)
    assert mocks.calls.count("aws:eks/getNodeGroups:getNodeGroups") == 1
    assert mocks.calls.count("aws:eks/getNodeGroup:getNodeGroup") == 2
    run(program, mocks=mocks)  # a new run lists again: nothing is kept between runs
    assert mocks.calls.count("aws:eks/getNodeGroups:getNodeGroups") == 2


def test_an_adopted_group_is_found_by_its_exact_name_without_identity_tag():
    adopted = {"scalingConfigs": [{"desiredSize": 1, "minSize": 0, "maxSize": 4}], "tags": {}}
    mocks = ExistingGroups({"gpu_inference": adopted, name_of("gpu"): group("gpu", 3)})
    args = {
        "cluster": EKS,
        "instance_type": "m5.large",
        "autoscaling": {"min_replicas": 2, "max_replicas": 4},
        "labels": {"team": "ml"},
        "identity_label": False,
        "node_group_name": "gpu_inference",
    }
    capture = run(lambda: MachinePool("gpu", args), mocks=mocks)
    (node_group,) = capture.by_type(NODE_GROUP)
    # Its live size 1 is below the new minimum: sent clamped (the other group's 3 is not it).
    assert node_group.inputs["scalingConfig"]["desiredSize"] == 2
