"""`components` imports its parts on first use; what a user sees must not depend on it."""

from __future__ import annotations

import json
import subprocess
import sys

import nodepools

CHILD = """
import json, sys
{imports}
from nodepools.specs import MachinePoolArgs, SpecError, parse_spec
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
    assert sorted(nodepools.__all__) == sorted(nodepools._EXPORTS)
    for name in nodepools.__all__:
        assert getattr(nodepools, name) is not None, name
    assert set(nodepools.__all__) <= set(dir(nodepools))


def test_import_components_loads_no_component_module():
    code = (
        "import sys, nodepools; print(sorted(m for m in sys.modules if m.startswith('nodepools.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # Only the 30-line helper that implements the lazy re-exports themselves.
    assert out.stdout.strip() == "['nodepools._lazy']"


def test_error_paths_do_not_depend_on_what_is_loaded():
    alone = _paths("")
    everything = _paths(
        "import nodepools.governance.pool_platforms, nodepools.governance.pool_quotas, nodepools.workloads.recipe"
    )
    assert alone == everything
