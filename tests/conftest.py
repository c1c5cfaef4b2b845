"""Shared fixtures: cluster targets as stack YAML would give them."""

from __future__ import annotations

import gc
from typing import Any

import pytest

EKS = {
    "kind": "eks",
    "cluster_name": "ml-platform",
    "node_role_arn": "arn:aws:iam::123456789012:role/ml-nodes",
    "subnet_ids": ["subnet-a", "subnet-b"],
}
OKE = {
    "kind": "oke",
    "cluster_id": "ocid1.cluster.oc1..example",
    "compartment_id": "ocid1.compartment.oc1..example",
    "image_id": "ocid1.image.oc1..example",
    "placements": [{"availability_domain": "Uocm:PHX-AD-1", "subnet_id": "ocid1.subnet.oc1..a"}],
}


@pytest.fixture
def eks_cluster() -> dict:
    return dict(EKS)


@pytest.fixture
def oke_cluster() -> dict:
    return dict(OKE)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything alive once the tests are collected (modules, hypothesis, the collected items)
    moves to the collector's permanent generation: the offline engine's full collection after
    a failed program (components/offline/engine.py) then walks only what the tests made since,
    where it walked the whole test process, 0.1 s each, 11 of 21 s in one test module."""
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep the real control-plane tests on one xdist worker: they share one session cluster
    (etcd + kube-apiserver + kube-scheduler), which every other worker would start again.
    First among the hooks: xdist's own (a plugin, called before a conftest's) turns the mark
    into the group suffix of each test's id, and without `tryfirst` ran before the mark was
    there; the tests were then spread over both workers, each starting its own cluster,
    Karpenter and Kueue (two Kueues met on one port) and setting modules up again."""
    for item in items:
        if "controlplane" in item.path.parts:
            item.add_marker(pytest.mark.xdist_group("controlplane"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist the control-plane counts live in the worker that ran those tests (one
    xdist group): hand them to the controller, which prints the summary. (These hooks live
    here, not in tests/controlplane/conftest.py: an xdist controller collects nothing, so it
    never loads a sub-folder's conftest.)"""
    from tests.controlplane.report import COUNTS

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and COUNTS:
        workeroutput["controlplane_counts"] = dict(COUNTS)


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown when pytest runs without xdist
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: add a finished worker's control-plane counts to this process's."""
    from tests.controlplane.report import COUNTS

    COUNTS.update(getattr(node, "workeroutput", {}).get("controlplane_counts", {}))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """What reached the real API server and scheduler in this run (nothing when skipped)."""
    from tests.controlplane.report import summary_lines

    lines = summary_lines()
    if lines:
        terminalreporter.section("real control plane: what the servers checked")
        for line in lines:
            terminalreporter.write_line(line)
