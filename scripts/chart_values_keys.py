"""Regenerate components/specs/devices/data/chart_values_keys.json: every key path of the pinned
charts' values.yaml (their subcharts' under the subchart's name or alias), so AcceleratorStack
refuses a value key the pinned chart doesn't have; the paths under which any key is allowed
(`open`: a map whose default is empty, null or string-valued, such as labels and node
selectors); what the charts' `values.schema.json` (their subcharts') requires of each path
(`schema`: JSON types, enum, minimum, maximum; derived facts, no upstream prose); and the
chart's defaults of the values that place its pods (tolerations, node selectors,
affinity, instance lists): Helm replaces a list we set and deep-merges a map, so
AcceleratorStack keeps these defaults (and proves where the pods land) from this data.

Usage:
    python scripts/chart_values_keys.py CHART=VERSION=PATH [CHART=VERSION=PATH ...]

PATH is a chart directory (its `charts/` subcharts, folders or tarballs, and every
values.schema.json are read: the copies in ../shared/charts are the pinned ones, e.g.
`gpu-operator=v26.7.0=../shared/charts/gpu-operator-v26.7.0`), a values.yaml file, a chart tarball (`helm pull <repo>/<chart> --version V`, e.g.
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

import io
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


def tar_files(data: bytes) -> dict[str, bytes]:
    """A chart tarball's files, by path below its top folder."""
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            extracted = tar.extractfile(member) if member.isfile() else None
            if extracted is not None:
                files[member.name.split("/", 1)[1]] = extracted.read()
    return files


def chart_files(path: Path) -> dict[str, bytes]:
    """A chart's files (a directory or a tarball), by path below the chart; a values.yaml
    file alone as {"values.yaml": ...}."""
    if path.is_dir():
        return {str(p.relative_to(path)): p.read_bytes() for p in path.rglob("*") if p.is_file()}
    if path.name.endswith((".tgz", ".tar.gz")):
        return tar_files(path.read_bytes())
    return {"values.yaml": path.read_bytes()}


def subcharts(files: dict[str, bytes]) -> dict[str, dict[str, bytes]]:
    """The chart's subcharts in `charts/` (folders or tarballs), by the key their values go
    under in the parent's values (the dependency's alias, else its name)."""
    chart = yaml.safe_load(files.get("Chart.yaml", b"{}")) or {}
    aliases = {d["name"]: d.get("alias") or d["name"] for d in chart.get("dependencies") or []}
    found: dict[str, dict[str, bytes]] = {}
    for name in sorted(files):
        parts = name.split("/")
        if len(parts) == 2 and parts[0] == "charts" and parts[1].endswith(".tgz"):
            sub = tar_files(files[name])
        elif len(parts) == 3 and parts[0] == "charts" and parts[2] == "Chart.yaml":
            prefix = f"charts/{parts[1]}/"
            sub = {k[len(prefix) :]: v for k, v in files.items() if k.startswith(prefix)}
        else:
            continue
        sub_name = (yaml.safe_load(sub["Chart.yaml"]) or {})["name"]
        found[aliases.get(sub_name, sub_name)] = sub
    return found


def open_paths(tree: Any, prefix: str = "") -> list[str]:
    """Paths whose value takes any key: a map whose default is empty or all strings (labels,
    annotations, node selectors), or null."""
    paths: list[str] = []
    if isinstance(tree, dict):
        for key, value in tree.items():  # pyright: ignore[reportUnknownVariableType]
            path = f"{prefix}.{key}" if prefix else str(key)  # pyright: ignore[reportUnknownArgumentType]
            if value is None or (
                isinstance(value, dict) and all(isinstance(v, str) for v in value.values())  # pyright: ignore[reportUnknownVariableType]
            ):
                paths.append(path)
            else:
                paths.extend(open_paths(value, path))
    return paths


# The JSON-schema keywords kept as facts (what a value must be), nothing else of the schema.
SCHEMA_KEYWORDS = ("type", "enum", "minimum", "maximum")


def schema_facts(schema: Any, prefix: str = "") -> dict[str, dict[str, Any]]:
    """Dotted value path -> what values.schema.json requires there (SCHEMA_KEYWORDS only; a
    `$ref` into the schema's definitions is not followed: its sibling `type` is kept)."""
    facts: dict[str, dict[str, Any]] = {}
    for key, node in sorted((schema.get("properties") or {}).items()):
        path = f"{prefix}.{key}" if prefix else key
        kept = {k: node[k] for k in SCHEMA_KEYWORDS if k in node}
        if isinstance(kept.get("type"), str):
            kept["type"] = [kept["type"]]
        if kept:
            facts[path] = kept
        facts.update(schema_facts(node, path))
    return facts


def chart_record(files: dict[str, bytes], version: str) -> dict[str, Any]:
    values = yaml.safe_load(files["values.yaml"]) or {}
    keys = set(key_paths(values))
    opened = set(open_paths(values))
    schema: dict[str, dict[str, Any]] = {}
    if "values.schema.json" in files:
        schema.update(schema_facts(json.loads(files["values.schema.json"])))
    # A dependency's `condition` paths are values too (Helm reads them), in values.yaml or not.
    chart = yaml.safe_load(files.get("Chart.yaml", b"{}")) or {}
    for dependency in chart.get("dependencies") or []:
        keys |= {c.strip() for c in str(dependency.get("condition") or "").split(",") if c.strip()}
    for key, sub in subcharts(files).items():
        sub_values = yaml.safe_load(sub.get("values.yaml", b"{}")) or {}
        keys |= {key} | {f"{key}.{path}" for path in key_paths(sub_values)}
        opened |= {f"{key}.{path}" for path in open_paths(sub_values)}
        if "values.schema.json" in sub:
            sub_schema = schema_facts(json.loads(sub["values.schema.json"]))
            schema.update({f"{key}.{path}": fact for path, fact in sub_schema.items()})
    return {
        "version": version,
        "keys": sorted(keys),
        "open": sorted(opened),
        "schema": dict(sorted(schema.items())),
        "values": values,
    }


def main(argv: list[str]) -> None:
    facts: dict[str, Any] = json.loads(OUT.read_text()) if OUT.exists() else {}
    for arg in argv:
        chart, version, path = arg.split("=", 2)
        record = chart_record(chart_files(Path(path)), version)
        values = record.pop("values")
        facts[chart] = {
            **record,
            "defaults": {key: value_at(values, key) for key in PLACEMENT.get(chart, ())},
        }
    OUT.write_text(json.dumps(dict(sorted(facts.items())), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
