"""`plan --out DIR`: every rendered artifact as YAML, for review in a pull request."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import yaml
from nodepools.json_values import is_dict, is_list
from nodepools.offline import Capture
from nodepools.planning.report import whole_numbers


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


REDACTED = "[secret]"
# libyaml's emitter when PyYAML has it (its wheels do): PyYAML's own emitter, in Python, is
# most of what `--out` would cost otherwise.
_FAST_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
# A string both emitters write alike: printable ASCII on one line.
_ALIKE_TEXT = re.compile(r"[\x20-\x7e]*")
_ALIKE_KEY_LIMIT = 100  # PyYAML writes a key of 128 characters or more as "? key"
# One part of a path as `format_path` writes it: `name`, `[3]` or `["any key"]`.
_PATH_PART = re.compile(r'\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]|([^.\[\]]+)')


def redacted_inputs(inputs: dict[str, Any], secret_paths: tuple[str, ...]) -> dict[str, Any]:
    """`inputs` with every secret replaced by `[secret]` and engine-internal `__` keys
    (a dynamic provider's pickled code) dropped: artifacts are meant for review in the open.

    Fails closed: when a path can't be followed to its end, the deepest value reached on
    it is redacted whole."""
    document = copy.deepcopy({k: v for k, v in inputs.items() if not k.startswith("__")})
    for path in secret_paths:
        parts = [
            quoted if quoted or not (index or name) else int(index) if index else name
            for quoted, index, name in _PATH_PART.findall(path)
        ]
        parent: Any = None
        key: Any = None
        holder: Any = document
        for part in parts:
            if not _has(holder, part):
                break
            parent, key, holder = holder, part, holder[part]
        if parent is not None:
            parent[key] = REDACTED
    return document


def _has(container: Any, key: Any) -> bool:
    if is_dict(container):
        return key in container
    return is_list(container) and isinstance(key, int) and 0 <= key < len(container)


OSMO_CONFIG = "osmo:configs:Config"  # the `resource_type` input of `OsmoConfig`


def _osmo_file(inputs: dict[str, Any]) -> tuple[str, str] | None:
    """(path, text) of an OSMO config document: `osmo/<TYPE>/<name>.json`, the document as
    `osmo config update --file` takes it (canonical JSON, byte-stable)."""
    if inputs.get("resource_type") != OSMO_CONFIG:
        return None
    path = f"osmo/{_slug(str(inputs['config_type']))}/{_slug(str(inputs['config_name']))}.json"
    document = whole_numbers(inputs.get("document"))
    return path, json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def written_alike(value: Any) -> bool:
    """Whether libyaml's emitter writes `value` exactly as PyYAML's own emitter does: every
    string printable ASCII on one line, every key also non-empty and short. The two fold a
    long double-quoted string (PyYAML's choice for a line break, tab or non-ASCII character)
    at different places and write an empty key differently; the text of an artifact must not
    depend on how PyYAML was installed."""
    if isinstance(value, str):
        return _ALIKE_TEXT.fullmatch(value) is not None
    if is_dict(value):
        return all(
            isinstance(key, str)
            and 0 < len(key) < _ALIKE_KEY_LIMIT
            and _ALIKE_TEXT.fullmatch(key) is not None
            and written_alike(item)
            for key, item in value.items()
        )
    if is_list(value):
        return all(written_alike(item) for item in value)
    return value is None or isinstance(value, (bool, int, float))


def artifact_yaml(document: Any) -> str:
    """`yaml.safe_dump(document, sort_keys=True)`, the same text, with libyaml's emitter
    where it writes that text (`written_alike`)."""
    dumper = _FAST_DUMPER if written_alike(document) else yaml.SafeDumper
    return yaml.dump(document, Dumper=dumper, sort_keys=True, default_flow_style=False)


def write_artifacts(capture: Capture, out_dir: Path) -> list[Path]:
    """Kubernetes objects as manifests under `manifests/`, OSMO config documents under
    `osmo/<TYPE>/`, other resources' inputs under `resources/<type>/`. Returns the files
    written (sorted)."""
    written: list[Path] = []
    for resource in capture.custom_resources():
        inputs = redacted_inputs(resource.inputs, resource.secret_paths)
        osmo = _osmo_file(inputs)
        if osmo is not None:
            target = out_dir / osmo[0]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(osmo[1])
            written.append(target)
            continue
        # A Helm release is not an object of the cluster: its inputs go with the others.
        if resource.type.startswith("kubernetes:") and not resource.type.startswith(
            "kubernetes:helm.sh/"
        ):
            target = out_dir / "manifests" / f"{_slug(resource.name)}.yaml"
            document = inputs
        else:
            target = out_dir / "resources" / _slug(resource.type) / f"{_slug(resource.name)}.yaml"
            document = {"type": resource.type, "name": resource.name, "inputs": inputs}
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(artifact_yaml(whole_numbers(document)))
        written.append(target)
    return sorted(written)
