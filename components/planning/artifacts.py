"""`plan --out DIR`: every rendered artifact as YAML, for review in a pull request."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ..offline import Capture
from .report import whole_numbers


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
        target.write_text(yaml.safe_dump(whole_numbers(document), sort_keys=True))
        written.append(target)
    return sorted(written)
