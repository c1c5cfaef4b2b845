"""Every Helm release of every AcceleratorStack (tests/charts/programs.py) rendered by the pinned
helm from the pinned chart (../shared/charts) with exactly the values the program registers,
those values meeting the chart's values.schema.json (and its subcharts'). The rendered objects
reach the API server in tests/controlplane/test_helm_charts.py."""

from __future__ import annotations

import pytest

from tests.charts.helm import (
    releases_of,
    render,
    require_charts,
    require_helm,
    schema_errors,
    schemas_checked,
)
from tests.charts.programs import LOCAL_CHART, PROGRAMS, capture_of


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_every_release_renders_with_the_values_we_register(
    program: str, record_property: object
) -> None:
    helm, charts = require_helm(), require_charts()
    capture = capture_of(program)
    releases = releases_of(capture)
    if not releases:
        pytest.skip(f"{program}: no Helm release (OKE add-ons or no accelerator pool)")
    for release in releases:
        assert schema_errors(release, charts) == []
        objects = render(helm, release, charts)
        kinds = {o["kind"] for o in objects}
        # The GPU Operator's operands come from its ClusterPolicy (on rosa it runs no NFD).
        assert kinds & {"DaemonSet", "ClusterPolicy"}, f"{release.name}: {sorted(kinds)}"


def test_the_chart_on_disk_is_what_the_release_installs() -> None:
    helm, charts = require_helm(), require_charts()
    [release] = releases_of(capture_of("chart on disk"))
    assert release.inputs["chart"] == str(LOCAL_CHART) and "repositoryOpts" not in release.inputs
    assert release.chart_folder(charts) == LOCAL_CHART
    kinds = {o["kind"] for o in render(helm, release, charts)}
    assert {"ClusterPolicy", "CustomResourceDefinition", "DaemonSet"} <= kinds


def test_the_gpu_operator_values_meet_its_subcharts_schema() -> None:
    require_helm()
    charts = require_charts()
    [release] = [
        r
        for r in releases_of(capture_of("component AcceleratorStack/eks"))
        if r.chart_name == "gpu-operator"
    ]
    assert schemas_checked(release, charts) == 1  # node-feature-discovery's
    broken = type(release)(
        release.name,
        {
            **release.inputs,
            "values": {**release.values, "node-feature-discovery": {"worker": {"port": 0}}},
        },
    )
    assert schema_errors(broken, charts), "the schema check accepts a port of 0"
