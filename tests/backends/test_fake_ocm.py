"""The fake OCM itself: it must hold the documented rules, or the provider tests prove nothing."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from tests.backends.ocm_testing import MULTI_AZ, OFFLINE_TOKEN, SINGLE_AZ
from tests.fake_ocm import SSO_PATH, FakeOcm, Fault

POOLS = f"/api/clusters_mgmt/v1/clusters/{SINGLE_AZ}/machine_pools"


@pytest.fixture
def http(fake_ocm: FakeOcm) -> httpx.Client:
    token = httpx.post(
        fake_ocm.sso_url,
        data={
            "grant_type": "refresh_token",
            "client_id": "cloud-services",
            "refresh_token": OFFLINE_TOKEN,
        },
        trust_env=False,
    ).json()["access_token"]
    with httpx.Client(
        base_url=fake_ocm.api_url, headers={"Authorization": f"Bearer {token}"}, trust_env=False
    ) as client:
        yield client


def pool(**changes: Any) -> dict[str, Any]:
    return {"id": "workers", "instance_type": "m5.xlarge", "replicas": 3, **changes}


def rejected(response: httpx.Response, status: int, reason_part: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["kind"] == "Error" and body["id"] == str(status)
    assert body["code"] == f"CLUSTERS-MGMT-{status}"
    assert reason_part in body["reason"]
    assert body["operation_id"] == response.headers["X-Operation-Id"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (pool(id="Workers"), "is invalid"),
        (pool(autoscaling={"min_replicas": 0, "max_replicas": 3}), "Exactly one"),
        ({"id": "workers", "instance_type": "m5.xlarge"}, "Exactly one"),
        (pool(root_volume={"aws": {"size": 127}}), "between 128 and 16384"),
        (pool(root_volume={"aws": {"size": 16385}}), "between 128 and 16384"),
        (pool(aws={"spot_market_options": {"max_price": 0}}), "greater than 0"),
        (pool(taints=[{"key": "k", "effect": "NoSchedul"}]), "Invalid taint effect"),
        (pool(replicas=1.5), "non-negative integer"),
    ],
)
def test_post_enforces_the_rules(http: httpx.Client, body: dict, reason: str) -> None:
    rejected(http.post(POOLS, json=body), 400, reason)


def test_multi_az_wants_multiples_of_three_unless_pinned(http: httpx.Client) -> None:
    multi = f"/api/clusters_mgmt/v1/clusters/{MULTI_AZ}/machine_pools"
    rejected(http.post(multi, json=pool(replicas=2)), 400, "multiple of 3")
    assert (
        http.post(multi, json=pool(replicas=2, availability_zones=["us-east-1b"])).status_code
        == 201
    )
    assert http.post(POOLS, json=pool(replicas=2)).status_code == 201  # single AZ


def test_duplicate_is_409_and_unknown_cluster_404(http: httpx.Client) -> None:
    assert http.post(POOLS, json=pool()).status_code == 201
    rejected(http.post(POOLS, json=pool()), 409, "already exists")
    rejected(http.get("/api/clusters_mgmt/v1/clusters/nope/machine_pools"), 404, "Cluster 'nope'")
    rejected(http.get(POOLS + "/missing"), 404, "Machine pool with id 'missing'")


@pytest.mark.parametrize(
    "patch",
    [
        {"instance_type": "m5.2xlarge"},
        {"id": "other"},
        {"root_volume": {"aws": {"size": 500}}},
        {"subnets": ["subnet-1"]},
        {"aws": {"spot_market_options": {}}},
        {"replicas": 3, "autoscaling": {"min_replicas": 0, "max_replicas": 3}},
    ],
)
def test_patch_rejects_immutable_changes(http: httpx.Client, patch: dict) -> None:
    assert http.post(POOLS, json=pool()).status_code == 201
    response = http.patch(POOLS + "/workers", json=patch)
    assert response.status_code == 400, response.text
    assert http.get(POOLS + "/workers").json()["instance_type"] == "m5.xlarge"


def test_patch_switches_scaling_mode(http: httpx.Client) -> None:
    assert http.post(POOLS, json=pool()).status_code == 201
    autoscaling = {"min_replicas": 0, "max_replicas": 3}
    updated = http.patch(POOLS + "/workers", json={"autoscaling": autoscaling}).json()
    assert updated["autoscaling"] == autoscaling and "replicas" not in updated


def test_api_and_sso_demand_credentials(fake_ocm: FakeOcm) -> None:
    with httpx.Client(base_url=fake_ocm.api_url, trust_env=False) as anonymous:
        rejected(anonymous.get(POOLS), 401, "not authenticated")
        wrong = anonymous.post(
            SSO_PATH,
            data={
                "grant_type": "refresh_token",
                "client_id": "cloud-services",
                "refresh_token": "x",
            },
        )
        assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"


def test_faults_apply_in_order_then_stop(http: httpx.Client, fake_ocm: FakeOcm) -> None:
    fake_ocm.inject("GET", POOLS, Fault.throttle(retry_after=7), Fault.unavailable(502))
    first, second, third = (http.get(POOLS) for _ in range(3))
    assert (first.status_code, first.headers["Retry-After"]) == (429, "7")
    assert second.status_code == 502
    assert third.status_code == 200


def test_a_slow_answer_is_applied_and_stopping_cuts_the_wait() -> None:
    fake = FakeOcm(offline_token=OFFLINE_TOKEN).start()
    fake.add_cluster(SINGLE_AZ)
    fake.inject("POST", SSO_PATH, Fault.slow(30.0))
    outcome: list[Any] = []

    def exchange() -> None:
        try:
            outcome.append(
                httpx.post(
                    fake.sso_url,
                    data={
                        "grant_type": "refresh_token",
                        "client_id": "cloud-services",
                        "refresh_token": OFFLINE_TOKEN,
                    },
                    timeout=60,
                    trust_env=False,
                ).status_code
            )
        except httpx.HTTPError as error:
            outcome.append(error)

    waiter = threading.Thread(target=exchange)
    waiter.start()
    deadline = time.monotonic() + 5
    while fake.token_exchanges == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fake.token_exchanges == 1  # applied before the answer is held back
    started = time.monotonic()
    fake.stop()
    waiter.join(timeout=10)
    assert not waiter.is_alive()
    assert time.monotonic() - started < 5  # not the 30 s of the fault
    assert outcome == [200]
