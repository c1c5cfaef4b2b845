"""A misspelt field is named with the field it may mean, even when a check of the model
fails first; only credentials are hidden in messages."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import nodepools.specs as specs
import pytest
from nodepools import MachinePool
from nodepools.fleet.deploy import validate_fleet
from nodepools.offline import ProgramError, run
from nodepools.pools.machine_pool import MachinePoolArgs
from nodepools.specs import SpecError
from nodepools.specs.core.base import SECRET_KEY, is_secret_key
from nodepools.specs.core.parse import parse_spec
from pydantic import BaseModel

from tests.conftest import EKS, OKE


def _issues(error: SpecError) -> dict[str, str]:
    return {issue.path: issue.message for issue in error.issues}


@pytest.mark.parametrize("key", ["instance_tpye", "instanceType"])
def test_a_misspelt_field_is_named_beside_the_required_one(key):
    with pytest.raises(SpecError) as caught:
        parse_spec(MachinePoolArgs, {"cluster": EKS, key: "m5.large", "replicas": 1}, "pool")
    found = _issues(caught.value)
    assert found[key] == "unknown field (got 'm5.large'); did you mean `instance_type`?"
    assert "is required" in found["instance_type"]
    # The same from a model built by hand and from a program's component.
    with pytest.raises(SpecError) as caught:
        MachinePoolArgs(cluster=EKS, replicas=1, **{key: "m5.large"})
    assert _issues(caught.value)[key].endswith("did you mean `instance_type`?")
    with pytest.raises(ProgramError) as failed:
        run(lambda: MachinePool("p", {"cluster": EKS, key: "m5.large", "replicas": 1}))
    assert isinstance(failed.value.cause, SpecError)
    assert _issues(failed.value.cause)[key].endswith("did you mean `instance_type`?")


POOL = {"component": "MachinePool", "cluster": "eks"}


def test_fleet_entries_and_clusters_say_what_a_misspelt_field_may_mean():
    cluster = {**EKS, "clusterName": EKS["cluster_name"]}
    del cluster["cluster_name"]
    config = {
        "clusters": {"eks": EKS, "typo": cluster, "oke": OKE},
        "pools": [
            {**POOL, "name": "a", "instanceType": "m5.large", "replicas": 1},
            {**POOL, "name": "b", "instance_type": "m5.large", "replica": 1},
        ],
    }
    with pytest.raises(SpecError) as caught:
        validate_fleet(config)
    found = _issues(caught.value)
    assert found["nodepools:clusters.typo.clusterName"].endswith("did you mean `cluster_name`?")
    assert found["nodepools:pools[0].instanceType"].endswith("did you mean `instance_type`?")
    assert found["nodepools:pools[1].replica"].endswith("did you mean `replicas`?")


def test_a_field_far_from_any_gets_no_guess():
    with pytest.raises(SpecError) as caught:
        parse_spec(MachinePoolArgs, {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, "zzz": 1}, "p")  # fmt: skip
    assert _issues(caught.value)["zzz"] == "unknown field (got 1)"


def test_http_tokens_shows_its_value_and_reason():
    data = {"cluster": EKS, "instance_type": "m5.large", "replicas": 1, "metadata_options": {"http_tokens": "maybe"}}  # fmt: skip
    with pytest.raises(SpecError) as caught:
        parse_spec(MachinePoolArgs, data, "pool")
    assert _issues(caught.value)["metadata_options.http_tokens"] == (
        "input should be 'required' or 'optional' (got 'maybe')"
    )


# Fields whose values are credentials: never quoted back.
REAL_SECRETS = {"token"}


def _spec_fields() -> set[str]:
    names: set[str] = set()
    for info in pkgutil.walk_packages(specs.__path__, "nodepools.specs."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseModel) and cls.__module__ == module.__name__:
                for name, field in cls.model_fields.items():
                    names.add(name)
                    if field.alias:
                        names.add(field.alias)
    return names


def test_only_real_secrets_are_hidden():
    """Every spec field the secret pattern matches is reviewed: a credential (hidden) or a
    name that only looks like one (shown, so its mistakes can be read)."""
    matching = {name for name in _spec_fields() if SECRET_KEY.search(name)}
    assert matching, "the walk found no fields"
    assert {name for name in matching if is_secret_key(name)} == REAL_SECRETS
    for name in ("api_key", "password", "private_key", "HF_TOKEN", "secret_access_key"):
        assert is_secret_key(name)


def test_near_misses_of_listed_values_kinds_and_components_say_which():
    data = {
        "cluster": EKS,
        "instance_type": "m5.large",
        "replicas": 1,
        "metadata_options": {"http_tokens": "Required"},
        "taints": [{"key": "a", "value": "b", "effect": "noschedule"}],
    }
    with pytest.raises(SpecError) as caught:
        parse_spec(MachinePoolArgs, data, "pool")
    found = _issues(caught.value)
    assert found["metadata_options.http_tokens"].endswith("(got 'Required'); did you mean `required`?")  # fmt: skip
    assert found["taints[0].effect"].endswith("(got 'noschedule'); did you mean `NoSchedule`?")
    config = {"clusters": {"a": {"kind": "ekss"}}, "pools": [{"component": "MachinPool", "name": "x"}]}  # fmt: skip
    with pytest.raises(SpecError) as caught:
        validate_fleet(config)
    found = _issues(caught.value)
    assert found["nodepools:clusters.a"].endswith("; did you mean `eks`?")
    assert found["nodepools:pools[0].component"].endswith("; did you mean `MachinePool`?")
