"""The ROSA dynamic provider against the fake OCM: check, the lifecycle, retries, reads."""

from __future__ import annotations

from typing import Any

import pytest
from nodepools.backends.rosa.machine_pool import (
    BODY_FROM_OCM,
    RESOURCE_TYPE,
    OcmMachinePoolConflictError,
    OcmMachinePoolProvider,
    parse_resource_id,
)
from nodepools.backends.rosa.ocm_client import OcmApiError, OcmAuthenticationError, OcmError
from pulumi.runtime import rpc

from tests.backends.ocm_testing import MULTI_AZ, OFFLINE_TOKEN, SINGLE_AZ, gpu_body, inputs
from tests.fake_ocm import FakeOcm, Fault

POOLS = rf"/api/clusters_mgmt/v1/clusters/{SINGLE_AZ}/machine_pools"
GPU = f"{SINGLE_AZ},gpu"


@pytest.fixture
def provider(client_options: dict[str, Any]) -> OcmMachinePoolProvider:
    return OcmMachinePoolProvider(client_options)


def checked(provider: OcmMachinePoolProvider, props: dict[str, Any]) -> dict[str, Any]:
    result = provider.check({}, props)
    assert result.failures == [], [(f.property, f.reason) for f in result.failures]
    return result.inputs


def failures(provider: OcmMachinePoolProvider, props: dict[str, Any]) -> dict[str, str]:
    return {f.property: f.reason for f in provider.check({}, props).failures}


# -- check ---------------------------------------------------------------------------------


def test_check_normalizes_numbers_and_orders(provider, fake_ocm: FakeOcm) -> None:
    body = gpu_body(autoscaling={"min_replicas": 0.0, "max_replicas": 3.0})
    body["taints"].reverse()
    result = checked(provider, inputs(fake_ocm, body=body))
    assert result["body"]["autoscaling"] == {"min_replicas": 0, "max_replicas": 3}
    assert isinstance(result["body"]["autoscaling"]["max_replicas"], int)
    assert checked(provider, inputs(fake_ocm)) == result  # taint order does not matter
    assert result["token"] == OFFLINE_TOKEN
    assert result["resource_type"] == RESOURCE_TYPE


def test_check_reports_every_problem_with_its_path(provider, fake_ocm: FakeOcm) -> None:
    body = gpu_body(
        id="GPU_pool",
        autoscaling={"min_replicas": 5, "max_replicas": 3},
        root_volume={"aws": {"size": 64}},
        aws={"spot_market_options": {"max_price": 0}},
        taints=[{"key": "gpu", "effect": "NoScheduled"}],
    )
    found = failures(provider, inputs(fake_ocm, body=body, api_url="http://api.example.com"))
    assert "'GPU_pool' must match" in found["body.id"]
    assert found["body.autoscaling.min_replicas"] == "5 can't be greater than `max_replicas` 3"
    assert found["body.root_volume.aws.size"] == "64 must be between 128 and 16384 GiB"
    assert found["body.aws.spot_market_options.max_price"].startswith("0 must be greater than 0")
    assert "'NoScheduled' must be one of" in found["body.taints[0].effect"]
    assert "must be an https:// URL" in found["api_url"]


def test_check_replicas_xor_autoscaling(provider, fake_ocm: FakeOcm) -> None:
    both = gpu_body(replicas=2)
    neither = gpu_body(autoscaling=None)
    assert failures(provider, inputs(fake_ocm, body=both)) == {
        "body.replicas": "only one of `replicas` or `autoscaling` can be provided"
    }
    assert failures(provider, inputs(fake_ocm, body=neither)) == {
        "body.replicas": "One of `replicas` or `autoscaling` is required."
    }


def test_check_multiples_of_three_on_multi_az(provider, fake_ocm: FakeOcm) -> None:
    assert failures(provider, inputs(fake_ocm, cluster_id=MULTI_AZ)) == {}  # 0..3 is fine
    two_to_five = gpu_body(autoscaling={"min_replicas": 2, "max_replicas": 5})
    assert failures(provider, inputs(fake_ocm, cluster_id=MULTI_AZ, body=two_to_five)) == {
        "body.autoscaling.min_replicas": "2 must be a multiple of 3 on a multi-AZ cluster",
        "body.autoscaling.max_replicas": "5 must be a multiple of 3 on a multi-AZ cluster",
    }
    four = gpu_body(autoscaling=None, replicas=4)
    assert failures(provider, inputs(fake_ocm, cluster_id=MULTI_AZ, body=four)) == {
        "body.replicas": "4 must be a multiple of 3 on a multi-AZ cluster"
    }
    assert failures(provider, inputs(fake_ocm, cluster_id=SINGLE_AZ, body=four)) == {}
    pinned = gpu_body(autoscaling=None, replicas=4, availability_zones=["us-east-1b"])
    assert failures(provider, inputs(fake_ocm, cluster_id=MULTI_AZ, body=pinned)) == {}


def test_check_rejects_unknown_keys_and_a_wrong_marker(provider, fake_ocm: FakeOcm) -> None:
    props = inputs(fake_ocm, resource_type="aws:eks:NodeGroup", extra_field=1)
    props["body"]["aws"]["tags"] = {"a": "b"}
    found = failures(provider, props)
    assert set(found) == {"resource_type", "extra_field", "body.aws.tags"}


def test_check_lets_unknown_values_through_in_preview(provider, fake_ocm: FakeOcm) -> None:
    props = inputs(fake_ocm, body=gpu_body(instance_type=rpc.UNKNOWN))
    props["cluster_id"] = rpc.UNKNOWN
    result = provider.check({}, props)
    assert result.failures == []
    assert result.inputs["cluster_id"] == rpc.UNKNOWN


# -- lifecycle -----------------------------------------------------------------------------


def test_full_lifecycle(provider, fake_ocm: FakeOcm) -> None:
    news = checked(provider, inputs(fake_ocm))
    created = provider.create(news)
    assert created.id == GPU
    assert parse_resource_id(created.id) == (SINGLE_AZ, "gpu")
    assert created.outs["pool_id"] == "gpu"
    assert created.outs["href"].endswith("/clusters/cluster-1az/machine_pools/gpu")
    assert created.outs["body"] == news["body"]  # OCM's own defaults are not echoed back
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["gpu"]
    state = created.outs

    # Same pool, labels and taints in another order: nothing to do.
    reordered = gpu_body(labels={"team": "ml", "node-type": "gpu"})
    same = checked(provider, inputs(fake_ocm, body=reordered))
    assert provider.diff(created.id, state, same).changes is False

    # Labels, taints and scaling change in place: one PATCH with just those fields.
    changed_body = gpu_body(
        labels={"node-type": "gpu", "team": "research"},
        taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
        autoscaling={"min_replicas": 1, "max_replicas": 6},
    )
    changed = checked(provider, inputs(fake_ocm, body=changed_body))
    diff = provider.diff(created.id, state, changed)
    assert diff.changes is True and not diff.replaces
    updated = provider.update(created.id, state, changed)
    assert fake_ocm.bodies("PATCH") == [
        {
            "autoscaling": {"min_replicas": 1, "max_replicas": 6},
            "labels": {"node-type": "gpu", "team": "research"},
            "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule", "value": "true"}],
        }
    ]
    live = fake_ocm.pools(SINGLE_AZ)["gpu"]
    assert live["labels"] == {"node-type": "gpu", "team": "research"}
    assert live["autoscaling"] == {"min_replicas": 1, "max_replicas": 6}
    assert updated.outs["body"] == changed["body"]
    state = updated.outs

    # A new instance type replaces the pool, deleting first since the id stays.
    bigger = checked(
        provider, inputs(fake_ocm, body={**changed_body, "instance_type": "g5.xlarge"})
    )
    diff = provider.diff(created.id, state, bigger)
    assert diff.changes is True
    assert diff.replaces == ["body.instance_type"]
    assert diff.delete_before_replace is True

    provider.delete(created.id, state)
    assert fake_ocm.pools(SINGLE_AZ) == {}
    provider.delete(created.id, state)  # already gone: no error
    assert [r.status for r in fake_ocm.requests if r.method == "DELETE"] == [204, 404]


def test_switching_between_replicas_and_autoscaling(provider, fake_ocm: FakeOcm) -> None:
    fixed = checked(provider, inputs(fake_ocm, body=gpu_body(autoscaling=None, replicas=2)))
    state = provider.create(fixed).outs
    scaled = checked(provider, inputs(fake_ocm))
    state = provider.update(GPU, state, scaled).outs
    assert fake_ocm.bodies("PATCH")[-1] == {"autoscaling": {"min_replicas": 0, "max_replicas": 3}}
    live = fake_ocm.pools(SINGLE_AZ)["gpu"]
    assert "replicas" not in live and live["autoscaling"] == {"min_replicas": 0, "max_replicas": 3}
    state = provider.update(GPU, state, fixed).outs
    assert fake_ocm.bodies("PATCH")[-1] == {"replicas": 2}
    assert state["body"]["replicas"] == 2 and "autoscaling" not in state["body"]


def test_clearing_labels_and_taints_sends_empty_sets(provider, fake_ocm: FakeOcm) -> None:
    state = provider.create(checked(provider, inputs(fake_ocm))).outs
    bare = checked(provider, inputs(fake_ocm, body=gpu_body(labels=None, taints=None)))
    assert provider.diff(GPU, state, bare).changes is True
    provider.update(GPU, state, bare)
    assert fake_ocm.bodies("PATCH") == [{"labels": {}, "taints": []}]


@pytest.mark.parametrize(
    ("field", "value", "replaces"),
    [
        ("instance_type", "p3.2xlarge", ["body.instance_type"]),
        ("aws", None, ["body.aws.spot_market_options"]),
        ("aws", {"spot_market_options": {}}, ["body.aws.spot_market_options"]),
        ("root_volume", {"aws": {"size": 500}}, ["body.root_volume"]),
        ("subnets", ["subnet-1"], ["body.subnets"]),
    ],
)
def test_immutable_fields_replace(provider, fake_ocm, field, value, replaces) -> None:
    state = provider.create(checked(provider, inputs(fake_ocm))).outs
    news = checked(provider, inputs(fake_ocm, body=gpu_body(**{field: value})))
    diff = provider.diff(GPU, state, news)
    assert diff.replaces == replaces
    assert diff.delete_before_replace is True


def test_a_new_id_or_cluster_replaces_without_deleting_first(provider, fake_ocm) -> None:
    state = provider.create(checked(provider, inputs(fake_ocm))).outs
    renamed = checked(provider, inputs(fake_ocm, body=gpu_body(id="gpu-2")))
    diff = provider.diff(GPU, state, renamed)
    assert diff.replaces == ["body.id"] and diff.delete_before_replace is False
    moved = checked(provider, inputs(fake_ocm, cluster_id=MULTI_AZ))
    diff = provider.diff(GPU, state, moved)
    assert diff.replaces == ["cluster_id"] and diff.delete_before_replace is False


def test_leaving_out_an_ocm_default_is_not_a_change(provider, fake_ocm: FakeOcm) -> None:
    state = provider.create(checked(provider, inputs(fake_ocm))).outs
    defaulted = checked(provider, inputs(fake_ocm, body=gpu_body(root_volume=None)))
    assert provider.diff(GPU, state, defaulted).changes is False


def test_dropping_a_zone_pin_on_a_multi_az_cluster_replaces_the_pool(
    provider, fake_ocm: FakeOcm
) -> None:
    """Unpinned, a pool of a multi-AZ cluster spans its three zones: OCM can't move a pool
    there, so the one pinned to us-east-1a is replaced (deleted first: the same id)."""
    pinned = checked(
        provider,
        inputs(
            fake_ocm,
            cluster_id=MULTI_AZ,
            body=gpu_body(
                autoscaling={"min_replicas": 0, "max_replicas": 1},
                availability_zones=["us-east-1a"],
            ),
        ),
    )
    state = provider.create(pinned).outs
    assert fake_ocm.pools(MULTI_AZ)["gpu"]["availability_zones"] == ["us-east-1a"]
    unpinned = checked(
        provider,
        inputs(
            fake_ocm,
            cluster_id=MULTI_AZ,
            body=gpu_body(autoscaling={"min_replicas": 0, "max_replicas": 3}),
        ),
    )
    diff = provider.diff(f"{MULTI_AZ},gpu", state, unpinned)
    assert diff.replaces == ["body.availability_zones"]
    assert diff.delete_before_replace is True

    # The replacement as the engine runs it: delete, then create the unpinned pool.
    provider.delete(f"{MULTI_AZ},gpu", state)
    state = provider.create(unpinned).outs
    zones = fake_ocm.pools(MULTI_AZ)["gpu"]["availability_zones"]
    assert len(zones) == 3 and "availability_zones" not in state["body"]
    assert provider.diff(f"{MULTI_AZ},gpu", state, unpinned).changes is False


def test_dropping_a_subnet_pin_replaces_the_pool(provider, fake_ocm: FakeOcm) -> None:
    pinned = checked(provider, inputs(fake_ocm, body=gpu_body(subnets=["subnet-1"])))
    state = provider.create(pinned).outs
    diff = provider.diff(GPU, state, checked(provider, inputs(fake_ocm)))
    assert diff.replaces == ["body.subnets"] and diff.delete_before_replace is True


def test_a_rotated_token_updates_without_touching_the_pool(provider, fake_ocm) -> None:
    state = provider.create(checked(provider, inputs(fake_ocm))).outs
    fake_ocm.offline_token = "offline-rotated"
    news = checked(provider, inputs(fake_ocm, token="offline-rotated"))
    assert provider.diff(GPU, state, news).changes is True
    outs = provider.update(GPU, state, news).outs
    assert outs["token"] == "offline-rotated"
    assert fake_ocm.bodies("PATCH") == []


def test_an_unknown_instance_type_in_preview_means_replace(provider, fake_ocm) -> None:
    state = provider.create(checked(provider, inputs(fake_ocm))).outs
    news = inputs(fake_ocm, body=gpu_body(instance_type=rpc.UNKNOWN))
    assert provider.diff(GPU, state, news).replaces == ["body.instance_type"]


# -- read ----------------------------------------------------------------------------------


def test_read_refreshes_drift_and_reports_deletion(provider, fake_ocm: FakeOcm) -> None:
    news = checked(provider, inputs(fake_ocm))
    state = provider.create(news).outs
    fake_ocm.put_pool(SINGLE_AZ, {**fake_ocm.pools(SINGLE_AZ)["gpu"], "labels": {"x": "y"}})
    refreshed = provider.read(GPU, state)
    assert refreshed.id == GPU
    assert refreshed.outs["body"]["labels"] == {"x": "y"}
    assert refreshed.outs["token"] == OFFLINE_TOKEN  # delete will still authenticate
    assert provider.diff(GPU, refreshed.outs, news).changes is True  # the drift shows

    provider.delete(GPU, refreshed.outs)
    gone = provider.read(GPU, refreshed.outs)
    assert gone.id == "" and gone.outs == {}


def test_a_get_reads_the_pool_by_cluster_and_pool_id(provider, fake_ocm: FakeOcm) -> None:
    """A read resource (`ResourceOptions(id=...)`): the engine's Read carries the program's
    inputs. (`pulumi import` carries none and never reaches the provider: see
    test_ocm_dynamic_provider_protocol.py.)"""
    fake_ocm.put_pool(SINGLE_AZ, checked(provider, inputs(fake_ocm))["body"])
    program = inputs(fake_ocm)
    imported = provider.read(GPU, program)
    assert imported.id == GPU
    assert imported.outs["pool_id"] == "gpu"
    assert imported.inputs is not None and set(imported.inputs) == {
        "resource_type",
        "cluster_id",
        "api_url",
        "sso_url",
        "multi_az",
        "body",
        "token",
    }
    assert provider.diff(GPU, imported.outs, checked(provider, program)).changes is False
    assert BODY_FROM_OCM not in imported.outs


def test_a_read_without_a_body_keeps_every_managed_field(provider, fake_ocm) -> None:
    fake_ocm.put_pool(SINGLE_AZ, gpu_body(root_volume=None))
    bare = {k: v for k, v in inputs(fake_ocm).items() if k != "body"}
    imported = provider.read(GPU, bare)
    body = imported.outs["body"]
    assert body["root_volume"] == {"aws": {"size": 300}}  # OCM's default, now on record
    assert body["availability_zones"] == ["us-east-1a"]
    assert imported.outs[BODY_FROM_OCM] is True
    # What OCM filled in is no reason to replace: a program leaving it out keeps it, and a
    # refresh keeps the mark.
    program = checked(provider, inputs(fake_ocm, body=gpu_body(root_volume=None)))
    assert provider.diff(GPU, imported.outs, program).changes is False
    refreshed = provider.read(GPU, imported.outs)
    assert refreshed.outs[BODY_FROM_OCM] is True
    assert provider.diff(GPU, refreshed.outs, program).changes is False


def test_read_rejects_a_malformed_id_or_another_cluster(provider, fake_ocm) -> None:
    with pytest.raises(ValueError, match="must be '<cluster_id>,<pool_id>'"):
        provider.read("gpu", inputs(fake_ocm))
    with pytest.raises(ValueError, match="does not match the cluster 'cluster-1az'"):
        provider.read(GPU, inputs(fake_ocm, cluster_id=MULTI_AZ))


# -- idempotent create ---------------------------------------------------------------------


def test_create_after_429_makes_one_pool(provider, fake_ocm, sleeps) -> None:
    fake_ocm.inject("POST", POOLS, Fault.throttle(retry_after=1))
    provider.create(checked(provider, inputs(fake_ocm)))
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["gpu"]
    assert sleeps == [1.0]


def test_create_after_two_503_makes_one_pool(provider, fake_ocm, sleeps) -> None:
    fake_ocm.inject("POST", POOLS, Fault.unavailable(), Fault.unavailable())
    provider.create(checked(provider, inputs(fake_ocm)))
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["gpu"]
    assert fake_ocm.count("POST", POOLS) == 3


def test_create_adopts_its_own_pool_after_a_timed_out_post(provider, fake_ocm) -> None:
    fake_ocm.inject("POST", POOLS, Fault.slow(2.0))
    news = checked(provider, inputs(fake_ocm))
    created = provider.create(news)
    assert created.id == GPU
    assert created.outs["body"] == news["body"]
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["gpu"]
    assert [r.status for r in fake_ocm.requests if r.path == POOLS] == [201, 409]


def test_create_adopts_after_a_dropped_connection_that_was_applied(provider, fake_ocm) -> None:
    fake_ocm.inject("POST", POOLS, Fault.drop(apply=True))
    provider.create(checked(provider, inputs(fake_ocm)))
    assert list(fake_ocm.pools(SINGLE_AZ)) == ["gpu"]


def test_create_retries_a_dropped_connection_that_was_not_applied(provider, fake_ocm) -> None:
    fake_ocm.inject("POST", POOLS, Fault.drop())
    provider.create(checked(provider, inputs(fake_ocm)))
    assert [r.status for r in fake_ocm.requests if r.path == POOLS] == [None, 201]


def test_create_adopts_an_identical_existing_pool(provider, fake_ocm) -> None:
    news = checked(provider, inputs(fake_ocm))
    fake_ocm.put_pool(SINGLE_AZ, news["body"])
    assert provider.create(news).id == GPU
    assert len(fake_ocm.pools(SINGLE_AZ)) == 1


def test_create_refuses_someone_elses_pool(provider, fake_ocm) -> None:
    theirs = gpu_body(instance_type="m5.xlarge", labels={"owner": "them"})
    fake_ocm.put_pool(SINGLE_AZ, theirs)
    with pytest.raises(OcmMachinePoolConflictError) as caught:
        provider.create(checked(provider, inputs(fake_ocm)))
    message = str(caught.value)
    assert "'gpu' already exists on cluster 'cluster-1az'" in message
    assert "instance_type: has 'm5.xlarge', wanted 'g4dn.xlarge'" in message
    assert "labels: has {'owner': 'them'}" in message
    # Only what works: no import (a dynamic resource can't be imported, pulumi/pulumi#16175).
    assert "Import it" not in message
    assert "`rosa delete machinepool --cluster=cluster-1az gpu`" in message
    assert "`pool_name`" in message and "declare it exactly as it is, which adopts it" in message
    assert fake_ocm.pools(SINGLE_AZ)["gpu"]["instance_type"] == "m5.xlarge"  # untouched


def test_create_on_an_unknown_cluster_quotes_ocm(provider, fake_ocm) -> None:
    with pytest.raises(OcmApiError, match=r"HTTP 404 CLUSTERS-MGMT-404: Cluster 'nope' not found"):
        provider.create(checked(provider, inputs(fake_ocm, cluster_id="nope")))


def test_create_rejects_inputs_that_check_would_have(provider, fake_ocm) -> None:
    with pytest.raises(ValueError, match=r"`body.replicas`: One of `replicas` or `autoscaling`"):
        provider.create(inputs(fake_ocm, body=gpu_body(autoscaling=None)))
    assert fake_ocm.requests == []


# -- where the token comes from ------------------------------------------------------------


def test_token_from_the_environment(provider, fake_ocm, monkeypatch) -> None:
    monkeypatch.delenv("RHCS_TOKEN", raising=False)
    monkeypatch.setenv("OCM_TOKEN", OFFLINE_TOKEN)
    created = provider.create(checked(provider, inputs(fake_ocm, token=None)))
    assert "token" not in created.outs  # nothing to keep: delete reads the environment too
    monkeypatch.setenv("RHCS_TOKEN", OFFLINE_TOKEN)  # RHCS_TOKEN wins over OCM_TOKEN
    monkeypatch.setenv("OCM_TOKEN", "offline-wrong")
    provider.delete(created.id, created.outs)
    assert fake_ocm.pools(SINGLE_AZ) == {}


def test_an_empty_token_falls_back_to_the_environment(provider, fake_ocm, monkeypatch) -> None:
    monkeypatch.setenv("RHCS_TOKEN", OFFLINE_TOKEN)
    created = provider.create(checked(provider, inputs(fake_ocm, token="")))
    assert "token" not in created.outs


def test_no_token_anywhere(provider, fake_ocm, monkeypatch) -> None:
    monkeypatch.delenv("RHCS_TOKEN", raising=False)
    monkeypatch.delenv("OCM_TOKEN", raising=False)
    with pytest.raises(OcmAuthenticationError, match=r"RHCS_TOKEN or OCM_TOKEN"):
        provider.create(checked(provider, inputs(fake_ocm, token=None)))
    assert fake_ocm.requests == []


def test_a_bad_token_is_an_authentication_error(provider, fake_ocm) -> None:
    with pytest.raises(OcmAuthenticationError, match="refused the offline token"):
        provider.create(checked(provider, inputs(fake_ocm, token="offline-revoked")))


def test_a_wrapped_secret_token_is_unwrapped(provider, fake_ocm) -> None:
    props = inputs(fake_ocm, token=rpc.wrap_rpc_secret(OFFLINE_TOKEN))
    created = provider.create(checked(provider, props))
    assert created.outs["token"] == OFFLINE_TOKEN


# -- the declared topology is checked against OCM's cluster at `up` ------------------------


def test_create_fails_before_posting_when_multi_az_is_declared_wrong(provider, fake_ocm) -> None:
    # The cluster spans three zones; the stack says it does not.
    props = checked(provider, inputs(fake_ocm, cluster_id=MULTI_AZ, multi_az=False))
    with pytest.raises(OcmError) as caught:
        provider.create(props)
    assert str(caught.value) == (
        f"ROSA cluster '{MULTI_AZ}' is multi-AZ (3 zones) in OCM (multi_az: true) but the stack "
        "declares `cluster.multi_az: false`; set `multi_az: true` on the cluster (replicas and "
        "autoscaling bounds then go in multiples of 3). Nothing was changed."
    )
    assert fake_ocm.count("GET", rf".*/clusters/{MULTI_AZ}") == 1
    assert fake_ocm.count("POST", ".*/machine_pools") == 0
    assert fake_ocm.pools(MULTI_AZ) == {}


def test_update_fails_before_patching_when_multi_az_is_declared_wrong(provider, fake_ocm) -> None:
    state = provider.create(checked(provider, inputs(fake_ocm))).outs
    wrong = checked(
        provider, inputs(fake_ocm, multi_az=True, body=gpu_body(autoscaling=None, replicas=3))
    )
    with pytest.raises(OcmError, match=r"is single-AZ in OCM \(multi_az: false\) but the stack"):
        provider.update(GPU, state, wrong)
    assert fake_ocm.count("PATCH") == 0


def test_a_right_declaration_reads_the_cluster_once_and_goes_ahead(provider, fake_ocm) -> None:
    provider.create(checked(provider, inputs(fake_ocm, cluster_id=MULTI_AZ)))
    assert fake_ocm.count("GET", rf".*/clusters/{MULTI_AZ}") == 1
    assert "gpu" in fake_ocm.pools(MULTI_AZ)
