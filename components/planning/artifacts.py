"""`plan --out DIR`: every rendered artifact as YAML, for review in a pull request."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ..offline import Capture


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def write_artifacts(capture: Capture, out_dir: Path) -> list[Path]:
    """Kubernetes objects as manifests under `manifests/`, other resources' inputs under
    `resources/<type>/`. Returns the files written (sorted)."""
    written: list[Path] = []
    for resource in capture.custom_resources():
        if resource.type.startswith("kubernetes:"):
            target = out_dir / "manifests" / f"{_slug(resource.name)}.yaml"
            document = resource.inputs
        else:
            target = out_dir / "resources" / _slug(resource.type) / f"{_slug(resource.name)}.yaml"
            document = {"type": resource.type, "name": resource.name, "inputs": resource.inputs}
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump(_ints(document), sort_keys=True))
        written.append(target)
    return sorted(written)


def _ints(value):
    # The engine sends numbers as floats; manifests read better with integers.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints(v) for v in value]
    return value
