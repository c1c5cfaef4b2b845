"""Helm values set to null (to remove a chart default) reach the release and `plan --out`
(issue 29 item 5): the AMD chart's default `node_selector` keys are removed with null, which
pulumi-kubernetes sends to Helm only from 4.30 on (its changelog: "Stop stripping null values
when unmarshaling, fixing Helm chart default deletion", issue #2034/#2997)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml
from nodepools import AcceleratorStack
from nodepools.offline import run
from nodepools.planning.artifacts import write_artifacts
from nodepools.specs.catalog.accelerators import lookup_accelerator

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "kubernetes:helm.sh/v3:Release"
NULLED = {
    "feature.node.kubernetes.io/pci-0300_1002.present": None,
    "kubernetes.io/arch": None,
    "nodepools.dev/device-software": "amd-gpu",
}


def _amd_capture():
    pools = [{"name": "mi300x", "accelerator": lookup_accelerator("BM.GPU.MI300X.8")}]
    return run(lambda: AcceleratorStack("devices", {"platform": "generic", "pools": pools}))


def test_the_release_is_registered_with_the_nulls_it_sends():
    [release] = _amd_capture().by_type(RELEASE)
    assert release.inputs["values"]["node_selector"] == NULLED


def test_plan_out_shows_the_nulls(tmp_path: Path):
    written = write_artifacts(_amd_capture(), tmp_path)
    [path] = [p for p in written if p.name == "devices-amd.yaml"]
    document = yaml.safe_load(path.read_text())
    assert document["inputs"]["values"]["node_selector"] == NULLED
    assert "kubernetes.io/arch: null" in path.read_text()


def _floor(requirement: str) -> tuple[int, ...]:
    found = re.search(r">=\s*([\d.]+)", requirement)
    assert found, requirement
    return tuple(int(part) for part in found.group(1).split("."))


def test_pulumi_kubernetes_floor_sends_nulls_to_helm():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [requirement] = [
        d for d in project["project"]["dependencies"] if d.startswith("pulumi-kubernetes")
    ]
    assert _floor(requirement) >= (4, 30)
    pinned = re.search(
        r"^pulumi-kubernetes==([\d.]+)$", (ROOT / "constraints.txt").read_text(), re.M
    )
    assert pinned and tuple(int(p) for p in pinned.group(1).split(".")) >= _floor(requirement)
