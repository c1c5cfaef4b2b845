"""The control-plane tests run in one xdist group, so on one worker with one session cluster.

Two ways this broke silently, both caught here: tests/conftest.py's mark came after xdist had
read the marks (its hook now runs first), and pytest 9.2 ignores the group suffix pytest-xdist
3.8 writes into a test's id (pytest is pinned to 9.1.1 until they agree). Either way the tests
spread over both workers, each starting its own cluster, Karpenter and Kueue."""

from __future__ import annotations

import pytest


def test_this_module_runs_in_the_controlplane_group(request: pytest.FixtureRequest) -> None:
    if not hasattr(request.config, "workerinput") or not request.config.getvalue("loadgroup"):
        pytest.skip("not an xdist worker with --dist loadgroup")
    assert request.node.nodeid.endswith("@controlplane"), request.node.nodeid
