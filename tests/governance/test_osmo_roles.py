"""OSMO roles as OSMO's current `Role` takes them, and every rule OSMO's models apply to the
documents we send, enforced from the facts `scripts/extract_osmo_facts.py` derives.

`test_every_extracted_rule_refuses_what_osmo_refuses` is parametrized over the facts'
`rules`: a rule OSMO adds gets a case as soon as the facts are regenerated, and a rule on a
model this file has no place for fails until one is written.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from nodepools import SpecError
from nodepools.governance.pool_platforms import parse_platforms
from nodepools.planning import plan_stack
from nodepools.specs.governance.osmo_checks import document_issues, rule_problem
from nodepools.specs.governance.osmo_models import (
    OsmoPool,
    OsmoResourceRule,
    OsmoTopologyKey,
    osmo_facts,
)
from nodepools.specs.governance.osmo_roles import OsmoRole, OsmoRoleAction, OsmoRolePolicy
from pydantic import ValidationError

from tests.governance.osmo_seed import ROLE_FILE, SENT_ROLE, seed_kwargs
from tests.governance.stacks import STACKS

BAD = " bad:value! "  # fails every pattern OSMO applies (names, actions, legacy fields)
NOT_IN_ENUM = "NotAValue"
POLICY_ROLE = {
    "name": "osmo-shared",
    "description": "d",
    "policies": [{"actions": ["workflow:*"], "resources": ["pool/shared*"]}],
}
TOLERATION = {"key": "k", "operator": "Exists", "effect": "NoSchedule"}
RULE = {"operator": "LE", "left_operand": "1", "right_operand": "2", "assert_message": "m"}


def _args() -> dict[str, Any]:
    kwargs = seed_kwargs()
    kwargs["pool"]["topology_keys"] = [{"key": "rack", "label": "topology.kubernetes.io/rack"}]
    kwargs["pool"]["status"] = "ONLINE"
    kwargs["pool"]["download_type"] = "download"
    kwargs["pod_templates"]["a100"]["spec"]["tolerations"].append(dict(TOLERATION))
    kwargs["resource_validations"] = {"check": [dict(RULE)]}
    kwargs["pool"]["platforms"]["a100_platform"]["resource_validations"] = ["check"]
    kwargs["roles"].append({**POLICY_ROLE, "name": "osmo-policies"})
    return copy.deepcopy({**kwargs, "target": "osmo"})


# Where each model of the facts sits in PoolPlatforms' OSMO args: (path to the object,
# our input model and the path of the same object in what is sent, or None when not sent).
PLACES: dict[str, tuple[list[Any], type | None]] = {
    "Role": (["roles", 1], OsmoRole),
    "RolePolicy": (["roles", 1, "policies", 0], OsmoRolePolicy),
    "RoleAction": (["roles", 0, "actions", 0], OsmoRoleAction),
    "PoolBase": (["pool"], OsmoPool),
    "PoolEditable": (["pool"], OsmoPool),
    "ResourceAssertion": (["resource_validations", "check", 0], OsmoResourceRule),
    "TopologyKey": (["pool", "topology_keys", 0], OsmoTopologyKey),
    "Toleration": (["pod_templates", "a100", "spec", "tolerations", 1], None),
    "PodTemplate": (["pod_templates"], None),  # the rule is on the name: a key
    "ResourceValidation": (["resource_validations"], None),
}


def _at(value: Any, path: list[Any]) -> Any:
    for part in path:
        value = value[part]
    return value


def _dotted(path: list[Any]) -> str:
    from nodepools.specs.core.base import format_path

    return format_path(path)


def _break(args: dict[str, Any], rule: dict[str, Any]) -> list[Any]:
    """Break `rule` in `args`; returns the path of what was broken."""
    where, _ = PLACES[rule["model"]]
    field = rule["field"].rstrip("[]{}")
    if rule["model"] in ("PodTemplate", "ResourceValidation"):
        container = _at(args, where)
        old = next(iter(sorted(container)))
        container[BAD] = container.pop(old)
        refs = args["pool"]["platforms"]["a100_platform"]
        key = "override_pod_template" if rule["model"] == "PodTemplate" else "resource_validations"
        refs[key] = [BAD if r == old else r for r in refs[key]]
        return [*where, BAD]
    target = _at(args, where)
    if rule["rule"] == "required":
        del target[field]
        return [*where, field]
    if rule["rule"] == "enum":
        target[field] = NOT_IN_ENUM
        return [*where, field]
    if rule["field"].endswith("[]"):
        target[field] = [BAD]
        return [*where, field, 0]
    if rule["field"].endswith("{}"):
        target[field][BAD] = target[field].pop(next(iter(target[field])))
        return [*where, field, BAD]
    target[field] = BAD
    return [*where, field]


def _ids(rule: dict[str, Any]) -> str:
    return f"{rule['model']}.{rule['field']}-{rule['rule']}"


def test_the_places_are_right():
    spec = parse_platforms("t", _args())
    assert spec.roles[0].actions and spec.roles[1].policies
    for model, (where, _) in PLACES.items():
        assert _at(_args(), where) is not None, model


@pytest.mark.parametrize("rule", osmo_facts()["rules"], ids=_ids)
def test_every_extracted_rule_refuses_what_osmo_refuses(rule: dict[str, Any]):
    assert rule["model"] in PLACES, f"no place for OSMO's {rule['model']}: add one to PLACES"
    # What OSMO's model refuses: the bad value breaks the rule as OSMO states it.
    if rule["rule"] == "pattern":
        assert not re.fullmatch(rule["pattern"], BAD)
        assert rule_problem(rule, BAD)
    elif rule["rule"] == "enum":
        assert NOT_IN_ENUM.lower() not in [v.lower() for v in rule["values"]]
        assert rule_problem(rule, NOT_IN_ENUM)
    args = _args()
    broken = _break(args, rule)
    with pytest.raises(SpecError) as caught:
        parse_platforms("t", args)
    paths = caught.value.paths()
    where = _dotted(broken)
    parent = _dotted(PLACES[rule["model"]][0])
    assert any(p == where or (p == parent and rule["field"] in str(caught.value)) for p in paths), (
        rule,
        paths,
        str(caught.value),
    )


@pytest.mark.parametrize(
    "rule", [r for r in osmo_facts()["rules"] if r["rule"] == "enum"], ids=_ids
)
def test_every_value_osmo_allows_is_allowed(rule: dict[str, Any]):
    where, model = PLACES[rule["model"]]
    assert model is not None
    for value in rule["values"]:
        data = copy.deepcopy(_at(_args(), where))
        data[rule["field"]] = value
        model.model_validate(data)


def test_sent_documents_are_checked_against_the_rules_themselves():
    """The checker of what is sent, without our input models: each config type."""
    role = {**SENT_ROLE, "sync_mode": "sometimes", "policies": [{"actions": ["Workflow:x"]}]}
    assert [i.path for i in document_issues("ROLE", "r", role, ["roles", 0])] == [
        "roles[0].sync_mode",
        "roles[0].policies[0].actions[0]",
    ]
    del role["policies"]
    assert [i.path for i in document_issues("ROLE", "r", role, [])] == ["policies", "sync_mode"]
    pool = {"platforms": {"p": {"allowed_mounts": [1]}}, "resources": {"gpu": {"weight": "2"}}}
    assert [i.path for i in document_issues("POOL", "-x", pool, ["pool"])] == [
        "pool.backend",
        "pool.name",
        "pool.resources.gpu.weight",
        "pool.platforms.p.allowed_mounts",
    ]
    template = {"t": {"spec": {"tolerations": [{"operator": "Exists"}]}}}
    assert [i.path for i in document_issues("POD_TEMPLATE", "t", template, ["t"])] == [
        "t.spec.tolerations[0].key"
    ]
    rules = {"v": [{**RULE, "operator": "NE", "extra": 1}]}
    assert [i.path for i in document_issues("RESOURCE_VALIDATION", "v", rules, ["v"])] == [
        "v[0].operator",
        "v[0].extra",
    ]


def test_the_seed_role_is_sent_as_osmos_cli_writes_a_pool_role():
    role = OsmoRole.model_validate(ROLE_FILE)
    assert role.osmo_document() == SENT_ROLE
    # `osmo config set ROLE osmo-<pool> pool` today, for the seed's pool glob.
    cli = osmo_facts()["cli_pool_role"]["policies"]
    glob = "shared_simulation_training_pool"
    assert [
        {k: [v.replace("{pool_name}", glob) for v in vs] for k, vs in p.items()} for p in cli
    ] == SENT_ROLE["policies"]
    # The legacy CLI wrote the seed's two actions; the profile one is every user's now.
    assert osmo_facts()["legacy_cli_pool_role"]["policies"][0]["actions"] == [
        "http:/api/pool/{pool_name}*:post",
        "http:/api/profile/*:*",
    ]
    assert "profile:*" in osmo_facts()["default_role"]["policies"][0]["actions"]
    lines = role.translation()
    assert "workflow:* on 'pool/shared_simulation_training_pool*'" in lines[0]
    assert "(read as '/api/profile/*')" in lines[1] and "'osmo-default'" in lines[1]
    policy_role = OsmoRole.model_validate(POLICY_ROLE)
    assert policy_role.osmo_document() == POLICY_ROLE and policy_role.translation() == []


def test_the_plan_shows_the_translation_and_writes_osmos_form(tmp_path):
    result = plan_stack("osmo-platforms", stacks_dir=STACKS, out_dir=tmp_path)
    assert result.ok, result.render()
    text = result.render()
    assert (
        "legacy action `actions[0]` 'http:/api/pool/shared_simulation_training_pool*:post'" in text
    )
    assert "-> workflow:* on 'pool/shared_simulation_training_pool*'" in text
    import json

    sent = json.loads((tmp_path / "osmo" / "ROLE" / "osmo-shared.json").read_text())
    assert sent == SENT_ROLE and "actions" not in sent


@pytest.mark.parametrize(
    ("action", "field", "expected"),
    [
        ({"path": "api/pool/shared*"}, "path", "did you mean '/api/pool/shared*'?"),
        ({"path": "/api/pool:shared*"}, "path", "^(?P<path>(\\*|(!?)/([^:]+)))$"),
        ({"path": "https:/api/pool/shared*"}, "path", "did you mean '/api/pool/shared*'?"),
        ({"method": "p-o-s-t"}, "method", "^(?P<method>(\\*|([a-zA-Z]+)))$"),
        ({"method": "fetch"}, "method", "did you mean 'patch'?"),
        ({"method": "postt"}, "method", "did you mean 'post'?"),
        ({"base": "https"}, "base", "use 'http'"),
    ],
)
def test_legacy_actions_osmo_refuses_are_refused_with_the_pattern_and_a_fix(
    action: dict[str, str], field: str, expected: str
):
    args = _args()
    args["roles"][0]["actions"][0].update(action)
    with pytest.raises(SpecError) as caught:
        parse_platforms("t", args)
    found = {issue.path: issue.message for issue in caught.value.issues}
    assert f"roles[0].actions[0].{field}" in found, found
    message = found[f"roles[0].actions[0].{field}"]
    assert expected in message and repr(next(iter(action.values()))) in message


@pytest.mark.parametrize(
    "action",
    [
        {"base": "http", "path": "/api/pool/shared*", "method": "get"},
        {"base": "http", "path": "!/api/pool/shared*", "method": "*"},
        {"base": "http", "path": "/api/workflow/*", "method": "*"},
    ],
)
def test_legacy_actions_without_a_translation_are_refused_with_a_suggestion(action):
    args = _args()
    args["roles"][0]["actions"].append(action)
    with pytest.raises(SpecError) as caught:
        parse_platforms("t", args)
    [issue] = caught.value.issues
    assert issue.path == "roles[0].actions[2]"
    assert "no counterpart in OSMO's current roles" in issue.message
    assert "policies: [{actions: ['workflow:*']" in issue.message


def test_pool_resources_and_tolerations_follow_osmos_models():
    """Siblings: a pool's `resources` is OSMO's `PoolResources` (integers), a pod template
    toleration needs the `key` OSMO's `Toleration` requires when a pool uses it."""
    args = _args()
    args["pool"]["resources"] = {"gpu": {"guarantee": "4", "maximum": 8}}
    args["pod_templates"]["l40s"]["spec"]["tolerations"] = [{"operator": "Exists"}]
    with pytest.raises(SpecError) as caught:
        parse_platforms("t", args)
    assert caught.value.paths() == ["pool.resources.gpu.guarantee"]
    args["pool"]["resources"] = {"gpu": {"guarantee": 4, "maximum": 8}}
    with pytest.raises(SpecError) as caught:
        parse_platforms("t", args)
    assert caught.value.paths() == ["pod_templates.l40s.spec.tolerations[0].key"]
    assert "OSMO's `Toleration`" in str(caught.value)


def test_a_role_must_give_one_form():
    with pytest.raises(ValidationError, match="exactly one of `actions` and `policies`"):
        OsmoRole.model_validate({"name": "osmo-x", "description": "d"})


def _extractor() -> Any:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "extract_osmo_facts.py"
    spec = importlib.util.spec_from_file_location("extract_osmo_facts", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rules_are_derived_from_the_facts_they_sit_in():
    """`rules` is what the extractor derives from the models, enums and patterns beside it:
    regenerated together, never edited by hand."""
    facts = osmo_facts()
    assert _extractor()._rules(facts) == facts["rules"]
    required = {(r["model"], r["field"]) for r in facts["rules"] if r["rule"] == "required"}
    assert ("Role", "policies") in required and ("RolePolicy", "actions") in required


def test_the_extractor_reads_how_the_cli_writes_a_pool_role():
    source = """
def create_role(role_type, role_name, field_name=None):
    if role_type == SetRoleType.POOL:
        if not role_name.startswith('osmo-'):
            raise Error('x')
        pool_name = role_name[len('osmo-'):]
        return role.Role(name=role_name, description='d', policies=[
            role.RolePolicy(actions=['workflow:*'], resources=[f'pool/{pool_name}*'])])
    elif role_type == SetRoleType.BACKEND:
        return role.Role(name=role_name, description='d', policies=[
            role.RolePolicy(actions=['pool:List'], resources=[f'backend/{field_name}'])])
"""
    assert _extractor()._pool_role(source) == {
        "name_prefix": "osmo-",
        "policies": [{"actions": ["workflow:*"], "resources": ["pool/{pool_name}*"]}],
    }
