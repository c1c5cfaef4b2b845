"""Rules, canonical form and comparison of OCM machine-pool bodies."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nodepools.backends.rosa.body_diff import (
    body_changes,
    describe_differences,
    live_view,
    normalize_body,
    patch_for,
)
from nodepools.backends.rosa.ocm_client import OcmApiError, OcmClient
from nodepools.backends.rosa.request_body import Problem, body_problems

from tests.backends.ocm_testing import MULTI_AZ, OFFLINE_TOKEN, SINGLE_AZ, gpu_body
from tests.fake_ocm import running_fake_ocm


def test_order_of_labels_and_taints_is_not_a_change() -> None:
    body = gpu_body()
    shuffled = gpu_body(
        labels=dict(reversed(list(body["labels"].items()))),
        taints=list(reversed(body["taints"])),
    )
    assert not body_changes(body, shuffled)
    assert normalize_body(body) == normalize_body(shuffled)


def test_an_empty_taint_value_equals_a_missing_one() -> None:
    with_empty = gpu_body(taints=[{"key": "gpu", "value": "", "effect": "NoSchedule"}])
    without = gpu_body(taints=[{"key": "gpu", "effect": "NoSchedule"}])
    assert not body_changes(with_empty, without)


def test_integral_floats_equal_ints() -> None:
    assert not body_changes(
        gpu_body(autoscaling={"min_replicas": 0, "max_replicas": 3}),
        gpu_body(autoscaling={"min_replicas": 0.0, "max_replicas": 3.0}),
    )


def test_changes_are_split_into_replace_and_update() -> None:
    old = gpu_body()
    new = gpu_body(instance_type="g5.xlarge", labels={"x": "y"}, replicas=3, autoscaling=None)
    changes = body_changes(old, new)
    assert changes.replace == ("instance_type",)
    assert changes.update == ("scaling", "labels")


def test_spot_max_price_and_spot_itself_are_immutable() -> None:
    on_demand = gpu_body(aws=None)
    spot_any_price = gpu_body(aws={"spot_market_options": {}})
    assert body_changes(gpu_body(), on_demand).replace == ("aws.spot_market_options",)
    assert body_changes(gpu_body(), spot_any_price).replace == ("aws.spot_market_options",)
    assert body_changes(on_demand, spot_any_price).replace == ("aws.spot_market_options",)


def test_a_root_volume_left_out_is_not_a_change_but_new_values_are() -> None:
    old = gpu_body(subnets=["subnet-a", "subnet-b"])
    assert not body_changes(old, gpu_body(subnets=["subnet-a", "subnet-b"], root_volume=None))
    assert not body_changes(old, gpu_body(subnets=["subnet-b", "subnet-a"]))
    assert body_changes(old, gpu_body(subnets=["subnet-c"])).replace == ("subnets",)


@pytest.mark.parametrize(
    ("field", "pin"), [("subnets", ["subnet-a"]), ("availability_zones", ["us-east-1a"])]
)
def test_a_dropped_zone_or_subnet_pin_replaces_the_pool(field: str, pin: list[str]) -> None:
    """Unpinned, a pool goes where OCM puts it (all three zones of a multi-AZ cluster, the
    cluster's subnets): not the pinned pool, and OCM can't move a pool."""
    pinned, unpinned = gpu_body(**{field: pin}), gpu_body()
    assert body_changes(pinned, unpinned).replace == (field,)
    assert body_changes(unpinned, pinned).replace == (field,)
    assert describe_differences(pinned, unpinned) == [f"{field}: has {tuple(pin)!r}, wanted none"]
    # A body read from OCM without the program's records what OCM filled in for every pool:
    # there, leaving it out means keep it.
    assert not body_changes(pinned, unpinned, imported=True)
    assert body_changes(pinned, gpu_body(**{field: ["other"]}), imported=True).replace == (field,)


def test_patch_holds_only_changed_mutable_fields() -> None:
    old = gpu_body()
    assert patch_for(old, gpu_body(labels={"a": "b"})) == {"labels": {"a": "b"}}
    assert patch_for(old, gpu_body(taints=None)) == {"taints": []}
    assert patch_for(old, gpu_body(autoscaling=None, replicas=2.0)) == {"replicas": 2}
    assert patch_for(old, gpu_body()) == {}


def test_live_view_keeps_the_shape_of_the_desired_body() -> None:
    live = {
        **gpu_body(labels=None, taints=None, root_volume=None),
        "kind": "MachinePool",
        "href": "/api/...",
        "root_volume": {"aws": {"size": 300}},
        "availability_zones": ["us-east-1a"],
    }
    desired = gpu_body(labels=None, taints=None, root_volume=None)
    assert live_view(live, desired) == normalize_body(desired)
    imported = live_view(live, None)
    assert imported["root_volume"] == {"aws": {"size": 300}}
    assert imported["labels"] == {} and imported["taints"] == []


def test_differences_read_like_the_fields() -> None:
    lines = describe_differences(
        gpu_body(instance_type="m5.xlarge", aws=None, autoscaling=None, replicas=2),
        gpu_body(),
    )
    assert lines == [
        "instance_type: has 'm5.xlarge', wanted 'g4dn.xlarge'",
        "aws.spot_market_options: has none, wanted spot (max_price 0.5)",
        "scaling: has replicas 2, wanted autoscaling 0..3",
    ]


def test_problems_quote_values_and_paths() -> None:
    problems = body_problems(
        gpu_body(labels={"a": 1}, subnets=["s"], availability_zones=["z"], extra=True),
        multi_az=False,
    )
    assert [str(p) for p in problems] == [
        "`body.extra`: is not a machine-pool field this provider manages (allowed: "
        "['autoscaling', 'availability_zones', 'aws', 'id', 'instance_type', 'labels', "
        "'replicas', 'root_volume', 'subnets', 'taints'])",
        "`body.labels.a`: must be a string, got 1",
        "`body.availability_zones`: can't be given together with `subnets` (pick one)",
        "`body.availability_zones`: ['z'] can only be chosen on a multi-AZ cluster",
    ]


# -- properties ----------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 20000)
    | st.floats(allow_nan=True)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
optional_fields = {
    "id": st.sampled_from(["gpu", "GPU", "-x", "a-1", ""]) | json_values,
    "instance_type": st.sampled_from(["g4dn.xlarge", ""]) | json_values,
    "replicas": st.integers(-1, 7) | json_values,
    "autoscaling": st.fixed_dictionaries(
        {"min_replicas": st.integers(-1, 7), "max_replicas": st.integers(-1, 7)}
    )
    | json_values,
    "labels": st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from(["x", ""])),
    "taints": st.lists(
        st.fixed_dictionaries(
            {
                "key": st.sampled_from(["gpu", "spot", ""]),
                "effect": st.sampled_from(["NoSchedule", "NoExecute", "Nope"]),
            },
            optional={"value": st.sampled_from(["true", ""])},
        ),
        max_size=3,
    ),
    "aws": st.fixed_dictionaries(
        {"spot_market_options": st.fixed_dictionaries({}, optional={"max_price": st.floats(-1, 2)})}
    ),
    "root_volume": st.fixed_dictionaries(
        {"aws": st.fixed_dictionaries({"size": st.integers(0, 20000)})}
    ),
    "subnets": st.lists(st.sampled_from(["subnet-a", "subnet-b"]), min_size=1, max_size=2),
    "availability_zones": st.lists(
        st.sampled_from(["us-east-1a", "us-east-1b"]), min_size=1, max_size=2
    ),
}
body_fields = ("id", "instance_type", "replicas", "autoscaling")
field_values = st.fixed_dictionaries({}, optional=optional_fields)

scaling = st.one_of(
    st.builds(lambda n: {"replicas": n}, st.integers(-1, 7)),
    st.builds(
        lambda low, high: {"autoscaling": {"min_replicas": low, "max_replicas": high}},
        st.integers(-1, 7),
        st.integers(0, 7),
    ),
    st.just({}),
)
# Mostly valid bodies, each field sometimes wrong: the interesting side of the rules.
near_valid_bodies = st.builds(
    lambda required, scale, optional: {**required, **scale, **optional},
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["gpu", "a-1", "gpu-pool-2", "GPU"]),
            "instance_type": st.sampled_from(["g4dn.xlarge", "p3.2xlarge"]),
        }
    ),
    scaling,
    st.fixed_dictionaries(
        {},
        optional={k: v for k, v in optional_fields.items() if k not in body_fields},
    ),
)


@given(body=json_values | field_values | near_valid_bodies, multi_az=st.booleans())
def test_any_input_gives_problems_never_another_exception(body: Any, multi_az: bool) -> None:
    problems = body_problems(body, multi_az=multi_az)
    assert all(isinstance(p, Problem) and p.path.startswith("body") for p in problems)
    if not problems:
        normalized = normalize_body(body)
        assert normalize_body(normalized) == normalized
        assert not body_changes(body, normalized)


_ids = itertools.count()


@pytest.fixture(scope="module")
def shared_client() -> Iterator[OcmClient]:
    """One fake for every example (each pool gets a fresh id), so examples stay cheap."""
    with (
        running_fake_ocm(OFFLINE_TOKEN, **{SINGLE_AZ: False, MULTI_AZ: True}) as fake,
        OcmClient(fake.api_url, fake.sso_url, lambda: OFFLINE_TOKEN, trust_env=False) as client,
    ):
        yield client


@settings(max_examples=80, deadline=None)
@given(body=near_valid_bodies, multi_az=st.booleans())
def test_a_body_without_problems_is_accepted_by_the_fake_ocm(
    shared_client: OcmClient, body: dict, multi_az: bool
) -> None:
    """Two independent readings of the OCM rules agree: what check passes, OCM takes."""
    if body_problems(body, multi_az=multi_az):
        return
    pool = {**normalize_body(body), "id": f"p{next(_ids)}"}
    try:
        shared_client.create_machine_pool(MULTI_AZ if multi_az else SINGLE_AZ, pool)
    except OcmApiError as error:
        raise AssertionError(f"check passed {pool} but OCM said: {error}") from None
