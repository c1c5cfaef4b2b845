"""The TypeScript SDK generated from our provider's schema, and an example compiled against it.

The schema comes from `pulumi package get-schema` on our provider plugin; the SDK from
`nodepools-gen-nodejs-sdk` (scripts/engine_tools.sh), which calls the code generator the Node.js
language host calls for `pulumi package gen-sdk --language nodejs` (that host is not served by the
Go module proxy); `tsc`, the Node.js SDK and Node's types come from npm. examples/typescript-gpu-
pools compiles with `tsc --noEmit` (strict); the same program with a misspelled input does not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.engine.tools import REPO, REQUIRE_VARIABLE, EngineEnv, tools_dir

pytestmark = pytest.mark.xdist_group("engine")

EXAMPLE = REPO / "examples" / "typescript-gpu-pools"


def _tsc(work: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(work / "node_modules" / ".bin" / "tsc"), "-p", str(work)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def typescript_project(engine: EngineEnv, tmp_path_factory: pytest.TempPathFactory) -> Path:
    generator = tools_dir() / "nodepools-gen-nodejs-sdk"
    node_modules = tools_dir().parent / "npm" / "node_modules"
    if not (os.access(generator, os.X_OK) and (node_modules / ".bin" / "tsc").exists()):
        message = f"{generator} or {node_modules}/.bin/tsc not built (run `make engine-tools`)"
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{message}; {REQUIRE_VARIABLE}=1 requires them", pytrace=False)
        pytest.skip(message)
    work = tmp_path_factory.mktemp("typescript") / "project"
    shutil.copytree(EXAMPLE, work)
    (work / "node_modules").symlink_to(node_modules, target_is_directory=True)
    launcher = engine.root / "bin" / "pulumi-resource-nodepools"
    # outside the project: its Pulumi.yaml names the package by its source folder
    schema = engine.cli("package", "get-schema", str(launcher), cwd=work.parent).stdout
    (work / "schema.json").write_text(schema)
    subprocess.run(
        [str(generator), str(work / "schema.json"), str(work / "sdk")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return work


def test_the_generated_sdk_has_every_component(typescript_project: Path) -> None:
    index = (typescript_project / "sdk" / "index.ts").read_text()
    for name in ("KarpenterNodePool", "PoolQuotas", "PoolPlatforms", "GpuSpotPool"):
        assert f"export const {name}: typeof import(" in index or f"export class {name}" in index


def test_the_typescript_example_compiles(typescript_project: Path) -> None:
    done = _tsc(typescript_project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_misspelled_input_does_not_compile(typescript_project: Path) -> None:
    index = typescript_project / "index.ts"
    original = index.read_text()
    try:
        index.write_text(original.replace("instanceTypes:", "instanceType:"))
        done = _tsc(typescript_project)
    finally:
        index.write_text(original)
    assert done.returncode != 0
    assert "instanceType" in done.stdout
