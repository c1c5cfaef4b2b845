"""Session fixtures: the loopback control plane with kube-controller-manager (the control-plane
tests' fixtures, reused), the engine's environment, and the fake OCM and OSMO.

Skipped with a plain message when the engine binaries are not built (`make engine-tools`), unless
NODEPOOLS_REQUIRE_ENGINE_TOOLS=1 (set by .ci/run), which turns the absence into a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.controlplane.cluster import ControlPlane, kubeconfig
from tests.controlplane.conftest import (  # noqa: F401 - the control-plane fixtures, reused
    api_client,
    control_plane,
    controller_manager,
    dynamic_client,
    installed_crds,
)
from tests.engine.programs import OCM_URL_VARIABLE
from tests.engine.tools import EngineEnv, make_engine_env, require_tools
from tests.engines.components import ROSA
from tests.fake_ocm import FakeOcm, running_fake_ocm
from tests.fake_osmo import FakeOsmo, running_fake_osmo

OCM_TOKEN = "offline-engine-tests-token"
OSMO_TOKEN = "osmo-engine-tests-token"


@pytest.fixture(scope="session")
def fake_ocm() -> Iterator[FakeOcm]:
    """The fake OCM, with the single-AZ ROSA cluster the programs and rosa-gpu stack name."""
    with running_fake_ocm(OCM_TOKEN, **{ROSA["cluster_id"]: False}) as fake:
        yield fake


@pytest.fixture(scope="session")
def fake_osmo() -> Iterator[FakeOsmo]:
    with running_fake_osmo(OSMO_TOKEN) as fake:
        yield fake


@pytest.fixture(scope="session")
def engine(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    fake_ocm: FakeOcm,
    fake_osmo: FakeOsmo,
) -> Iterator[EngineEnv]:
    """The engine's environment against the loopback control plane (with the garbage collector
    the provider's foreground deletes need) and the fakes; the CRDs installed."""
    require_tools()
    plane: ControlPlane = request.getfixturevalue("controller_manager")
    request.getfixturevalue("installed_crds")
    engine = make_engine_env(tmp_path_factory.mktemp("engine"), kubeconfig(plane))
    fakes = {
        OCM_URL_VARIABLE: fake_ocm.api_url,
        "RHCS_TOKEN": OCM_TOKEN,
        "OSMO_URL": fake_osmo.url,
        "OSMO_TOKEN": OSMO_TOKEN,
    }
    engine.env.update(fakes)
    # The offline runs these tests compare with see the same URLs (this worker only).
    saved = {name: os.environ.get(name) for name in fakes}
    os.environ.update(fakes)
    yield engine
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def pytest_configure(config: pytest.Config) -> None:
    # tests/engine is one xdist group (its session cluster starts once); the mark is xdist's,
    # unknown when pytest runs without it (`make engine-check`).
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist's group of a test")
