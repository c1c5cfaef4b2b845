"""Without the engine binaries tests/engine skips, unless CI requires them
(NODEPOOLS_REQUIRE_ENGINE_TOOLS=1, set by .ci/run): then it fails, naming how to build them. And
`make test` builds them, after fetching in the background what every tool build needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine import tools


@pytest.fixture
def no_binaries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    monkeypatch.setenv("NODEPOOLS_ENGINE_TOOLS", str(tmp_path / "nothing-built"))
    monkeypatch.delenv(tools.REQUIRE_VARIABLE, raising=False)
    return monkeypatch


def test_missing_binaries_skip_by_default(no_binaries: pytest.MonkeyPatch) -> None:
    assert tools.missing_tools() == list(tools.TOOLS)
    with pytest.raises(pytest.skip.Exception, match="make engine-tools"):
        tools.require_tools()


def test_missing_binaries_fail_when_ci_requires_them(no_binaries: pytest.MonkeyPatch) -> None:
    no_binaries.setenv(tools.REQUIRE_VARIABLE, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{tools.REQUIRE_VARIABLE}=1 requires them"):
        tools.require_tools()


def _test_target_prerequisites() -> list[str]:
    makefile = (tools.REPO / "Makefile").read_text()
    return makefile.split("\ntest:", 1)[1].splitlines()[0].split()


def test_ci_requires_them_and_make_test_builds_them() -> None:
    assert f"export {tools.REQUIRE_VARIABLE}=1" in (tools.REPO / ".ci" / "run").read_text()
    prerequisites = _test_target_prerequisites()
    assert "engine-tools-if-go" in prerequisites
    # the downloads start first, so they overlap the virtualenv, lint and type check
    assert prerequisites[0] == "downloads-in-background"
    assert prerequisites.index("engine-tools-if-go") < prerequisites.index("unit")


def test_every_tool_script_has_the_download_only_mode_make_test_runs() -> None:
    makefile = (tools.REPO / "Makefile").read_text()
    recipe = makefile.split("\ndownloads-in-background:", 1)[1].split("\n\n", 1)[0]
    assert "scripts/cluster_tools.sh control-plane --download-only" in recipe
    assert "scripts/cluster_tools.sh kueue --download-only" in recipe
    assert "scripts/engine_tools.sh --download-only" in recipe
    # it runs in the background, its output in a log, so `make test` doesn't wait for it
    assert '> "$$log" 2>&1 &' in recipe
