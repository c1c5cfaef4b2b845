"""Without Kueue's controller binary its tests skip, unless CI requires the controllers
(NODEPOOLS_REQUIRE_CONTROLLERS=1, or NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1, set by .ci/run):
then they fail, naming how to build it."""

from __future__ import annotations

import pytest

from tests.controlplane import kueue
from tests.controlplane.cluster import REQUIRE_VARIABLE


@pytest.fixture
def no_binary(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(kueue, "kueue_binary", lambda: None)
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    monkeypatch.delenv(kueue.REQUIRE_CONTROLLERS, raising=False)
    return monkeypatch


def test_a_missing_binary_skips_by_default(no_binary: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.skip.Exception, match="make kueue-controller"):
        kueue.require_kueue()


@pytest.mark.parametrize("variable", ["NODEPOOLS_REQUIRE_CONTROLLERS", REQUIRE_VARIABLE])
def test_a_missing_binary_fails_when_ci_requires_it(
    no_binary: pytest.MonkeyPatch, variable: str
) -> None:
    no_binary.setenv(variable, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{variable}=1 requires it"):
        kueue.require_kueue()


def test_ci_requires_the_controllers() -> None:
    from tests.controlplane.cluster import REPO

    assert "export NODEPOOLS_REQUIRE_CONTROLLERS=1" in (REPO / ".ci" / "run").read_text()
    makefile = (REPO / "Makefile").read_text()
    assert "kueue-controller-if-go" in makefile.split("\ntest:", 1)[1].splitlines()[0]
