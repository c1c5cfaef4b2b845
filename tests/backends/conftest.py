"""Fixtures for the OCM client and the ROSA dynamic provider: a fake OCM on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from nodepools.backends.rosa.ocm_client import OcmClient

from tests.backends.ocm_testing import JITTER, MULTI_AZ, OFFLINE_TOKEN, SINGLE_AZ
from tests.fake_ocm import FakeOcm, running_fake_ocm


@pytest.fixture
def fake_ocm() -> Iterator[FakeOcm]:
    with running_fake_ocm(OFFLINE_TOKEN, **{SINGLE_AZ: False, MULTI_AZ: True}) as fake:
        yield fake


@pytest.fixture
def sleeps() -> list[float]:
    """Every delay the code under test asked to sleep; nothing actually waits."""
    return []


@pytest.fixture
def client_options(sleeps: list[float]) -> dict[str, Any]:
    return {
        "sleep": sleeps.append,
        "random": lambda: JITTER,
        "timeout": 0.5,
        "connect_timeout": 0.5,
        "trust_env": False,
    }


@pytest.fixture
def client(fake_ocm: FakeOcm, client_options: dict[str, Any]) -> Iterator[OcmClient]:
    with OcmClient(
        fake_ocm.api_url, fake_ocm.sso_url, lambda: OFFLINE_TOKEN, **client_options
    ) as ocm:
        yield ocm
