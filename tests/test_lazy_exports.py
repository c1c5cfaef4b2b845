"""`components` imports its parts on first use; what a user sees must not depend on it."""

from __future__ import annotations

import json
import subprocess
import sys

import components

CHILD = """
import json, sys
{imports}
from components.specs import MachinePoolArgs, SpecError, parse_spec
try:
    parse_spec(MachinePoolArgs, {{
        "cluster": {{"kind": "eks", "cluster_name": "ml", "subnet_ids": ["s"],
                    "node_role_arn": "arn:aws:iam::123456789012:role/n"}},
        "instance_type": "m5.large", "replicas": 1,
        # keys that other modules' discriminated unions use as tags
        "labels": {{"cap": "not ok!", "rule": "bad value!", "eks": "x y"}},
    }}, "pool")
except SpecError as exc:
    print(json.dumps(exc.paths()))
"""


def _paths(imports: str) -> list[str]:
    code = CHILD.format(imports=imports)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_every_public_name_resolves_and_is_listed():
    assert sorted(components.__all__) == sorted(components._EXPORTS)
    for name in components.__all__:
        assert getattr(components, name) is not None, name
    assert set(components.__all__) <= set(dir(components))


def test_import_components_loads_no_component_module():
    code = "import sys, components; print(sorted(m for m in sys.modules if m.startswith('components.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # Only the 30-line helper that implements the lazy re-exports themselves.
    assert out.stdout.strip() == "['components._lazy']"


def test_error_paths_do_not_depend_on_what_is_loaded():
    alone = _paths("")
    everything = _paths("import components.platforms, components.quotas, components.recipe")
    assert alone == everything
