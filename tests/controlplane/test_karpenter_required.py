"""Karpenter (KWOK provider) is a required tool in CI: without its binary the tests that run
it skip, and fail instead under NODEPOOLS_REQUIRE_CLUSTER_TOOLS=1 (set by .ci/run). No
server is started here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.controlplane.cluster import REQUIRE_VARIABLE
from tests.controlplane.karpenter_run import require_karpenter


def test_a_missing_karpenter_skips_or_fails_when_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # where no binary was built
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="not built"):
        require_karpenter()
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{REQUIRE_VARIABLE}=1 requires it"):
        require_karpenter()
