"""Regenerate components/specs/devices/data/chart_values_keys.json: every key path of the pinned
charts' values.yaml, so a test can prove each value AcceleratorStack sets exists there, and
the chart's defaults of the values that place its pods (tolerations, node selectors,
affinity, instance lists): Helm replaces a list we set and deep-merges a map, so
AcceleratorStack keeps these defaults (and proves where the pods land) from this data.

Usage:
    python scripts/chart_values_keys.py CHART=VERSION=PATH [CHART=VERSION=PATH ...]

PATH is a values.yaml file, a chart tarball (`helm pull <repo>/<chart> --version V`, e.g.
`helm pull oci://public.ecr.aws/neuron/neuron-helm-chart --version 1.0.0`), or a chart
directory. The pinned file was made from the upstream repositories at the pinned tags:
    gpu-operator          github:NVIDIA/gpu-operator        v26.7.0  deployments/gpu-operator/values.yaml
    nvidia-device-plugin  github:NVIDIA/k8s-device-plugin   v0.20.0  deployments/helm/nvidia-device-plugin/values.yaml
    amd-gpu               github:ROCm/k8s-device-plugin     (Chart.yaml 0.21.0)  helm/amd-gpu/values.yaml
    neuron-helm-chart     github:aws-neuron/neuron-helm-charts (Chart.yaml 1.0.0) charts/neuron-helm-chart/values.yaml
    aws-efa-k8s-device-plugin  github:aws/eks-charts  (Chart.yaml v0.5.30)  stable/aws-efa-k8s-device-plugin/values.yaml
e.g. `git -C gpu-operator show v26.7.0:deployments/gpu-operator/values.yaml > /tmp/v.yaml`.
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path
from typing import Any

import yaml

OUT = (
    Path(__file__).resolve().parent.parent / "components/specs/devices/data/chart_values_keys.json"
)


# chart -> the dotted value paths whose defaults decide where the chart's pods run.
PLACEMENT: dict[str, tuple[str, ...]] = {
    "gpu-operator": (
        "daemonsets.tolerations",
        "node-feature-discovery.worker.tolerations",
        "mig.strategy",
    ),
    "nvidia-device-plugin": ("tolerations", "affinity", "nodeSelector"),
    "amd-gpu": ("tolerations", "node_selector_enabled", "node_selector"),
    "neuron-helm-chart": (
        "neuronInstances",
        "devicePlugin.tolerations",
        "devicePlugin.nodeSelector",
        "devicePlugin.namespaceOverride",
    ),
    # Its template adds the node affinity (instance types) and CriticalAddonsOnly itself.
    "aws-efa-k8s-device-plugin": (
        "tolerations",
        "nodeSelector",
        "supportedInstanceLabels.keys",
        "supportedInstanceLabels.values",
        "securityContext",
    ),
}


def value_at(tree: Any, path: str) -> Any:
    """The value at a dotted path (keys may hold dots: the longest matching key wins)."""
    if path == "":
        return tree
    if not isinstance(tree, dict):
        raise KeyError(path)
    for key in sorted(tree, key=lambda k: -len(str(k))):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        if path == key or path.startswith(f"{key}."):
            return value_at(tree[key], path[len(key) + 1 :])
    raise KeyError(path)


def key_paths(tree: Any, prefix: str = "") -> list[str]:
    """Every mapping key path, dotted; a list or scalar value is a leaf."""
    paths: list[str] = []
    if isinstance(tree, dict):
        for key, value in tree.items():  # pyright: ignore[reportUnknownVariableType]
            path = f"{prefix}.{key}" if prefix else str(key)  # pyright: ignore[reportUnknownArgumentType]
            paths.append(path)
            paths.extend(key_paths(value, path))
    return paths


def read_values(path: Path) -> Any:
    if path.is_dir():
        return yaml.safe_load((path / "values.yaml").read_text())
    if path.name.endswith((".tgz", ".tar.gz")):
        with tarfile.open(path) as tar:
            member = next(
                m
                for m in tar.getmembers()
                if m.name.count("/") == 1 and m.name.endswith("/values.yaml")
            )
            data = tar.extractfile(member)
            assert data is not None
            return yaml.safe_load(data.read())
    return yaml.safe_load(path.read_text())


def main(argv: list[str]) -> None:
    facts: dict[str, Any] = json.loads(OUT.read_text()) if OUT.exists() else {}
    for arg in argv:
        chart, version, path = arg.split("=", 2)
        values = read_values(Path(path))
        facts[chart] = {
            "version": version,
            "keys": sorted(set(key_paths(values))),
            "defaults": {key: value_at(values, key) for key in PLACEMENT.get(chart, ())},
        }
    OUT.write_text(json.dumps(dict(sorted(facts.items())), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
