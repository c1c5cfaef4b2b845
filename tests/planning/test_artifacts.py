"""`plan --out` artifacts: YAML that reads back as what was registered, on every example stack."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from nodepools.offline import run
from nodepools.planning.artifacts import redacted_inputs, write_artifacts
from nodepools.planning.project import stack_names
from nodepools.planning.report import whole_numbers

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("stack", stack_names(ROOT / "stacks"))
def test_artifacts_read_back_as_the_inputs_in_the_text_pyyaml_writes(stack, tmp_path):
    """Each manifest and resource file loads as the registered inputs (secrets redacted),
    in the text PyYAML's own emitter (pure Python) writes, whichever emitter wrote it."""
    document = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text()) or {}
    capture = run(ROOT / "stacks" / "__main__.py", stack=stack, config=document.get("config") or {})
    written = {p.relative_to(tmp_path).as_posix(): p for p in write_artifacts(capture, tmp_path)}
    checked = 0
    for resource in capture.custom_resources():
        inputs = whole_numbers(redacted_inputs(resource.inputs, resource.secret_paths))
        expected = {"type": resource.type, "name": resource.name, "inputs": inputs}
        path = next(
            (p for p in written.values() if p.suffix == ".yaml" and _holds(p, expected)), None
        )
        if path is None:
            continue  # an OSMO config document: JSON, tested with the OSMO provider
        text = path.read_text()
        assert text == yaml.safe_dump(yaml.safe_load(text), sort_keys=True), path
        checked += 1
    assert checked == sum(1 for name in written if name.endswith(".yaml"))


def _holds(path: Path, expected: dict) -> bool:
    loaded = yaml.safe_load(path.read_text())
    return loaded == expected or (path.parent.name == "manifests" and loaded == expected["inputs"])
