"""The pinned charts (../shared/charts, reference data beside the clone) rendered by the pinned
helm (`make helm`, scripts/cluster_tools.sh helm) with exactly the values a program registers.

Without helm or ../shared/charts the tests that need them skip with a message;
NODEPOOLS_REQUIRE_HELM=1 (set by .ci/run) makes that a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.controlplane.cluster import pinned_versions
from tests.controlplane.objects import integral

REPO = Path(__file__).resolve().parents[2]
SHARED_CHARTS = REPO.parent / "shared" / "charts"
REQUIRE_VARIABLE = "NODEPOOLS_REQUIRE_HELM"
RELEASE = "kubernetes:helm.sh/v3:Release"
# The API server the rendered objects go to (scripts/cluster_tools.versions): `.Capabilities`.
KUBE_VERSION = pinned_versions()["KUBERNETES"]
# Hooks a release install never creates: `helm test` pods, delete and rollback hooks.
NOT_INSTALLED_HOOKS = {
    "test",
    "test-success",
    "pre-delete",
    "post-delete",
    "pre-rollback",
    "post-rollback",
}


def unavailable(message: str) -> None:
    """Skip with `message`, or fail under NODEPOOLS_REQUIRE_HELM=1."""
    if os.environ.get(REQUIRE_VARIABLE) == "1":
        pytest.fail(f"{message}; {REQUIRE_VARIABLE}=1 requires it", pytrace=False)
    pytest.skip(message)


def helm_binary() -> Path:
    """The pinned helm, as scripts/cluster_tools.sh helm puts it (NODEPOOLS_HELM_DIR overrides the folder)."""
    version = pinned_versions()["HELM"]
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folder = os.environ.get("NODEPOOLS_HELM_DIR") or f"{cache}/nodepools/helm-{version}/bin"
    return Path(folder) / "helm"


def require_helm() -> Path:
    binary = helm_binary()
    if not os.access(binary, os.X_OK):
        unavailable(f"helm tests skipped: helm not built in {binary.parent} (run `make helm`)")
    return binary


def require_charts() -> Path:
    if not (SHARED_CHARTS / "SOURCES.md").is_file():
        unavailable(f"helm tests skipped: the pinned charts are not in {SHARED_CHARTS}")
    return SHARED_CHARTS


@dataclass(frozen=True)
class Release:
    """A registered Release as the provider gets it: its inputs, numbers made integral."""

    name: str
    inputs: dict[str, Any]

    @property
    def chart_name(self) -> str:
        return str(self.inputs["chart"]).rstrip("/").rsplit("/", 1)[-1]

    @property
    def namespace(self) -> str:
        return str(self.inputs.get("namespace") or "default")

    @property
    def values(self) -> dict[str, Any]:
        return self.inputs.get("values") or {}

    def chart_folder(self, charts: Path) -> Path:
        """A chart on disk (`chart_path`) as given, else the pinned copy of chart and version."""
        chart = str(self.inputs["chart"])
        if "://" not in chart and Path(chart).is_dir():
            return Path(chart)
        folder = charts / f"{self.chart_name}-{self.inputs['version']}"
        assert folder.is_dir(), f"Release {self.name}: no pinned copy {folder}"
        return folder


def releases_of(capture: Any) -> list[Release]:
    return [Release(r.name, integral(r.inputs)) for r in capture.by_type(RELEASE)]


def render(helm: Path, release: Release, charts: Path) -> list[dict[str, Any]]:
    """`helm template` of the release with its registered values (nulls included: a null
    removes the chart's default), CRDs included; the objects a release install creates."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as values:
        json.dump(release.values, values)
        values.flush()
        argv = [
            str(helm),
            "template",
            str(release.inputs["name"]),
            str(release.chart_folder(charts)),
            "--namespace",
            release.namespace,
            "--values",
            values.name,
            "--include-crds",
            "--kube-version",
            KUBE_VERSION,
        ]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"helm template {release.name}: {done.stderr.strip()}"
    objects = [d for d in yaml.safe_load_all(done.stdout) if d]
    return [o for o in objects if not (hooks(o) and hooks(o) <= NOT_INSTALLED_HOOKS)]


def hooks(obj: dict[str, Any]) -> set[str]:
    annotations = obj.get("metadata", {}).get("annotations") or {}
    return {h.strip() for h in str(annotations.get("helm.sh/hook", "")).split(",") if h.strip()}


def _chart_tools() -> Any:
    """scripts/chart_values_keys.py (how it reads a chart and its subcharts, tarballs too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "chart_values_keys", REPO / "scripts" / "chart_values_keys.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def schema_errors(release: Release, charts: Path) -> list[str]:
    """The registered values checked against values.schema.json of the chart and of each
    subchart (the chart's defaults with our values over them, under the subchart's alias or
    name), as Helm checks them; the errors."""
    from jsonschema import Draft202012Validator
    from nodepools.specs.devices.placement import helm_merge

    tools = _chart_tools()
    files = tools.chart_files(release.chart_folder(charts))
    parts = [("", files, release.values)]
    parts += [
        (f"{key}.", sub, release.values.get(key) or {})
        for key, sub in tools.subcharts(files).items()
    ]
    found: list[str] = []
    for prefix, chart_files, ours in parts:
        if "values.schema.json" not in chart_files:
            continue
        defaults = yaml.safe_load(chart_files.get("values.yaml", b"{}")) or {}
        schema = json.loads(chart_files["values.schema.json"])
        for error in Draft202012Validator(schema).iter_errors(helm_merge(defaults, ours)):
            where = prefix + ".".join(str(p) for p in error.absolute_path)
            found.append(f"{release.name} ({release.chart_name}) {where}: {error.message}")
    return found


def schemas_checked(release: Release, charts: Path) -> int:
    """How many values.schema.json files (chart and subcharts) the release's values meet."""
    tools = _chart_tools()
    files = tools.chart_files(release.chart_folder(charts))
    parts = [files, *tools.subcharts(files).values()]
    return sum("values.schema.json" in part for part in parts)
