"""The pack run in-process by `nodepools.policies.runner`, as `python -m nodepools plan` runs it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest
from nodepools.policies.configuration import PolicyConfigError
from nodepools.policies.runner import (
    PolicyResourceInput,
    PolicyViolation,
    load_policy_config,
    run_policies,
)
from pulumi_policy import (
    EnforcementLevel,
    ResourceValidationPolicy,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from tests.policies.cases import RESOURCE_CASES, STACK_CASES
from tests.policies.fixtures import (
    Case,
    Resource,
    eks_node_group,
    karpenter_node_pool,
    rosa_machine_pool,
    well_formed_fleet,
)


def inputs(resources: tuple[Resource, ...]) -> list[PolicyResourceInput]:
    return [PolicyResourceInput(r.urn, r.type, r.name, r.props) for r in resources]


def of(policy: str, violations: list[PolicyViolation]) -> list[PolicyViolation]:
    return [v for v in violations if v.policy_name == policy]


@pytest.mark.parametrize("case", RESOURCE_CASES + STACK_CASES, ids=lambda c: c.id)
def test_policy_case(case: Case):
    violations = of(case.policy, run_policies(inputs(case.resources), config=case.config))

    assert len(violations) == case.violations, [v.message for v in violations]
    urns = {r.urn for r in case.resources}
    for violation in violations:
        assert case.mentions in violation.message
        assert violation.urn in urns
        # The path of what to change first, then the reason, lowercase, no full stop.
        assert re.match(r"`[^`]+`: \S", violation.message), violation.message
        assert not violation.message.endswith("."), violation.message


def test_well_formed_fleet_passes_every_policy():
    assert run_policies(inputs(well_formed_fleet())) == []


def test_resource_violation_carries_policy_level_and_resource_urn():
    pool = eks_node_group(taints=[])

    violations = run_policies(inputs((pool,)))

    assert [(v.policy_name, v.enforcement_level, v.urn) for v in violations] == [
        ("accelerator-pool-tainted", EnforcementLevel.MANDATORY, pool.urn)
    ]
    assert "nvidia.com/gpu=true:NoSchedule" in violations[0].message


def test_all_sets_every_level_and_a_policy_entry_overrides_it():
    broken = (eks_node_group(taints=[], max_size=500.0),)

    violations = run_policies(
        inputs(broken), config={"all": "advisory", "autoscaling-max-nodes": "mandatory"}
    )

    assert sorted((v.policy_name, v.enforcement_level.value) for v in violations) == [
        ("accelerator-pool-tainted", "advisory"),
        ("autoscaling-max-nodes", "mandatory"),
    ]


def test_disabled_policies_do_not_run():
    broken = (eks_node_group(taints=[], max_size=500.0),)

    violations = run_policies(inputs(broken), config={"accelerator-pool-tainted": "disabled"})

    assert [v.policy_name for v in violations] == ["autoscaling-max-nodes"]


def test_object_entry_sets_level_and_config_together():
    pool = (eks_node_group(max_size=30.0),)
    config = {"autoscaling-max-nodes": {"enforcementLevel": "advisory", "maxNodes": 20}}

    violations = run_policies(inputs(pool), config=config)

    assert [(v.policy_name, v.enforcement_level.value) for v in violations] == [
        ("autoscaling-max-nodes", "advisory")
    ]
    assert "ceiling of 20" in violations[0].message


def test_remediate_level_reports_as_mandatory():
    violations = run_policies(
        inputs((eks_node_group(taints=[]),)), config={"accelerator-pool-tainted": "remediate"}
    )

    assert [v.enforcement_level for v in violations] == [EnforcementLevel.MANDATORY]


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        (
            {"autoscaling-max-nodes": {"maxNodes": "lots"}},
            'autoscaling-max-nodes: maxNodes: expected integer, got string "lots"',
        ),
        (
            {"autoscaling-max-nodes": {"maxNodes": 2.5}},
            "autoscaling-max-nodes: maxNodes: expected integer, got number 2.5",
        ),
        (
            {"spot-max-price": {"maxPricePerHour": -1}},
            "spot-max-price: maxPricePerHour: must be at least 0, got -1",
        ),
        (
            {"pool-workloads-unprivileged": {"scope": "everything"}},
            'pool-workloads-unprivileged: scope: must be one of "pool-workloads", '
            '"all-workloads", got "everything"',
        ),
        (
            {"restricted-label-domains": {"allowedKeys": ["a/b", 3]}},
            "restricted-label-domains: allowedKeys[1]: expected string, got integer 3",
        ),
        (
            {"karpenter-limits": "strict"},
            'karpenter-limits: "strict" is not a valid enforcement level',
        ),
        (
            {"karpenter-limits": {"enforcementLevel": 1}},
            "karpenter-limits: 1 is not a valid enforcement level",
        ),
        (
            {"karpenter-limits": 3},
            "karpenter-limits: 3 is not a valid value; must be an enforcement level or an object",
        ),
    ],
)
def test_invalid_config_is_refused_with_the_reason(config: dict[str, Any], problem: str):
    with pytest.raises(PolicyConfigError) as raised:
        run_policies(inputs((eks_node_group(),)), config=config)

    assert any(p.startswith(problem) for p in raised.value.problems), raised.value.problems


def test_every_config_problem_is_reported_at_once():
    config = {
        "autoscaling-max-nodes": {"maxNodes": -1},
        "spot-max-price": {"maxPricePerHour": "cheap"},
    }

    with pytest.raises(PolicyConfigError) as raised:
        run_policies([], config=config)

    assert [p.split(":")[0] for p in raised.value.problems] == [
        "autoscaling-max-nodes",
        "spot-max-price",
    ]


def test_config_for_an_unknown_policy_is_ignored_like_the_cli_does():
    assert run_policies(inputs(well_formed_fleet()), config={"no-such-policy": "mandatory"}) == []


def test_load_policy_config_reads_the_cli_file_format(tmp_path):
    path = tmp_path / "policy-config.json"
    path.write_text('{"all": "advisory", "autoscaling-max-nodes": {"maxNodes": 2}}')

    config = load_policy_config(path)
    violations = run_policies(inputs((eks_node_group(max_size=3.0),)), config=config)

    assert config == {"all": "advisory", "autoscaling-max-nodes": {"maxNodes": 2}}
    assert [(v.policy_name, v.enforcement_level.value) for v in violations] == [
        ("autoscaling-max-nodes", "advisory")
    ]


def test_load_policy_config_treats_an_empty_file_as_no_config(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("  \n")

    assert load_policy_config(path) == {}


@pytest.mark.parametrize(
    ("text", "problem"),
    [("{not json", "not valid JSON"), ('{"all": "loud"}', "not a valid enforcement level")],
)
def test_load_policy_config_refuses_a_broken_file(tmp_path, text: str, problem: str):
    path = tmp_path / "broken.json"
    path.write_text(text)

    with pytest.raises(PolicyConfigError, match=problem):
        load_policy_config(path)


def _recording_policies(seen: dict[str, Any]) -> list[Any]:
    def record_resource(args, report):
        seen.setdefault("props", []).append(args.props)
        seen["config"] = dict(args.get_config())

    def record_stack(args, report):
        seen["stack"] = args.resources
        report("blamed", args.resources[-1].urn)
        report("stack-wide")

    return [
        ResourceValidationPolicy(
            name="record-resource",
            description="Records what a resource policy receives.",
            validate=record_resource,
            enforcement_level=EnforcementLevel.ADVISORY,
        ),
        StackValidationPolicy(
            name="record-stack",
            description="Records what a stack policy receives.",
            validate=record_stack,
            enforcement_level=EnforcementLevel.ADVISORY,
        ),
    ]


def test_policies_see_properties_as_the_engine_sends_them():
    seen: dict[str, Any] = {}
    raw = {
        "body": {"replicas": 3, "labels": {"a": "b"}},
        "sizes": (1, 2),
        "__provider": "pickled provider with a token",
    }

    run_policies(
        [PolicyResourceInput("urn:a", "t:m:R", "a", raw)],
        config={"record-resource": {"limit": 4}},
        policies=_recording_policies(seen),
    )

    props = seen["props"][0]
    assert isinstance(props, Mapping) and "__provider" not in props
    assert isinstance(props["body"]["replicas"], float)
    assert [type(s) for s in props["sizes"]] == [float, float]
    assert seen["config"] == {"limit": 4.0} and isinstance(seen["config"]["limit"], float)


def test_stack_policies_see_parents_and_blame_resources():
    seen: dict[str, Any] = {}
    parent = PolicyResourceInput("urn:parent", "nodepools:index:MachinePool", "p", {})
    child = PolicyResourceInput(
        "urn:child",
        "aws:eks/nodeGroup:NodeGroup",
        "c",
        {},
        parent="urn:parent",
        dependencies=("urn:parent",),
    )

    violations = run_policies([parent, child], policies=_recording_policies(seen))

    stack = seen["stack"]
    assert stack[1].parent is stack[0] and stack[1].dependencies == [stack[0]]
    assert [(v.policy_name, v.urn, v.message) for v in violations] == [
        ("record-stack", "urn:child", "blamed"),
        ("record-stack", None, "stack-wide"),
    ]


def test_unknown_values_make_a_policy_advisory_as_during_preview():
    pool = rosa_machine_pool(spot_max_price=1.0)
    pool.props["body"]["aws"]["spot_market_options"]["max_price"] = UNKNOWN_STRING_VALUE

    violations = of("spot-max-price", run_policies(inputs((pool,))))

    assert [(v.enforcement_level, v.urn) for v in violations] == [
        (EnforcementLevel.ADVISORY, pool.urn)
    ]
    assert "can't be known during preview" in violations[0].message


def test_karpenter_pool_without_accelerators_needs_only_some_limit():
    pool = karpenter_node_pool(
        requirements=[{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}],
        taints=[],
        limits={"cpu": "64"},
    )

    assert of("karpenter-limits", run_policies(inputs((pool,)))) == []
