"""Config schemas of the shipped policies, and the JSON Schema subset that checks config."""

from __future__ import annotations

import pytest
from nodepools.policies import config_schema
from nodepools.policies.configuration import PolicySettings, reconcile_policy_config
from nodepools.policies.pack import POLICIES

SCHEMAS = [p for p in POLICIES if p.config_schema is not None]


@pytest.mark.parametrize("policy", SCHEMAS, ids=lambda p: p.name)
def test_shipped_schemas_use_only_supported_keywords(policy):
    schema = {"type": "object", "properties": policy.config_schema.properties}

    assert config_schema.unsupported_keywords(schema) == set()


@pytest.mark.parametrize("policy", SCHEMAS, ids=lambda p: p.name)
def test_every_config_property_has_a_valid_default_and_a_description(policy):
    for name, prop in policy.config_schema.properties.items():
        assert "default" in prop and prop.get("description"), name
        assert config_schema.validate(prop, prop["default"]) == [], name


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_policy_names_and_descriptions(policy):
    assert policy.name.replace("-", "").isalpha() and policy.name == policy.name.lower()
    assert policy.description.endswith(".") and policy.description.count(". ") == 0


def test_defaults_come_from_the_schemas():
    settings = reconcile_policy_config(POLICIES)

    assert settings["autoscaling-max-nodes"].properties == {"maxNodes": 100}
    assert settings["karpenter-limits"] == PolicySettings(
        settings["karpenter-limits"].enforcement_level, {}
    )
    assert settings["pool-workloads-unprivileged"].properties == {
        "scope": "pool-workloads",
        "allowPrivileged": False,
        "allowHostNetwork": False,
    }


def test_all_without_a_level_changes_nothing():
    assert reconcile_policy_config(POLICIES, {"all": {"maxNodes": 1}}) == reconcile_policy_config(
        POLICIES
    )


@pytest.mark.parametrize(
    ("schema", "value", "errors"),
    [
        ({"type": "integer"}, 3.0, []),
        ({"type": "integer"}, True, ["expected integer, got boolean true"]),
        ({"type": "number"}, 3, []),
        ({"type": ["string", "null"]}, None, []),
        ({"enum": [1, "a"]}, True, ['must be one of 1, "a", got true']),
        ({"type": "string", "minLength": 2}, "a", ['must be at least 2 characters, got "a"']),
        ({"type": "array", "maxItems": 1}, [1, 2], ["must have at most 1 items, got [1, 2]"]),
        (
            {"type": "object", "required": ["a"], "additionalProperties": False},
            {"b": 1},
            ["`a` is required", "b: is not allowed"],
        ),
        (
            {"type": "object", "properties": {"n": {"maximum": 3}}},
            {"n": 4},
            ["n: must be at most 3, got 4"],
        ),
    ],
)
def test_schema_subset(schema, value, errors):
    assert config_schema.validate(schema, value) == errors


def test_an_unsupported_keyword_is_refused_rather_than_ignored():
    with pytest.raises(ValueError, match="pattern"):
        config_schema.validate({"type": "string", "pattern": "^a"}, "b")
    assert config_schema.unsupported_keywords(
        {"properties": {"a": {"items": {"format": "uri"}}}}
    ) == {"format"}
