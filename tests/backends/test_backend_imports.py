"""Each cloud's SDK is imported by its backend only, and only once something of that cloud is
built. (That backends import no layer above them is one of the layer rules of
tests/test_import_rules.py.)"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPONENTS = ROOT / "components"
# SDK -> the folders of components/ allowed to import it.
SDK_HOMES = {
    "pulumi_aws": ("backends/eks", "backends/karpenter.py"),
    "pulumi_oci": ("backends/oke",),
    "pulumi_kubernetes": ("backends",),
}


def _imports(path: Path) -> list[str]:
    """Every module `path` imports, at any depth (imports inside functions included)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return found


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_a_cloud_sdk_is_imported_by_its_backend_only():
    misplaced = [
        f"{path.relative_to(COMPONENTS)} imports {module}"
        for path in _modules(COMPONENTS)
        for module in _imports(path)
        if (sdk := module.split(".")[0]) in SDK_HOMES
        and not str(path.relative_to(COMPONENTS)).startswith(SDK_HOMES[sdk])
    ]
    assert misplaced == []


BUILD = """\
import sys
from nodepools.offline import run
from tests.engines.components import COMPONENTS
run(COMPONENTS[{program!r}])
print(sorted({{m.split(".")[0] for m in sys.modules}} & {sdks!r}))
"""


@pytest.mark.parametrize(
    ("program", "loaded"),
    [
        ("MachinePool/eks", ["pulumi_aws"]),
        ("MachinePool/oke", ["pulumi_oci"]),
        ("OkeClusterAutoscaler", ["pulumi_oci"]),
        ("KarpenterNodePool", ["pulumi_kubernetes"]),
        ("Recipe/oke", ["pulumi_kubernetes", "pulumi_oci"]),
        ("KueueQueues", ["pulumi_kubernetes"]),
        ("AcceleratorStack/eks", ["pulumi_aws", "pulumi_kubernetes"]),
        ("AcceleratorStack/oke", ["pulumi_oci"]),  # add-ons only: no Helm release
        ("AcceleratorStack/mixed", ["pulumi_kubernetes"]),
    ],
)
def test_building_a_pool_loads_the_sdk_of_its_cloud_only(program, loaded):
    code = BUILD.format(program=program, sdks=set(SDK_HOMES))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == repr(loaded)
