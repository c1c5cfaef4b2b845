"""Where `make engine-tools` puts the Pulumi binaries, and the environment the CLI runs in.

The binaries (scripts/engine_tools.sh, pinned in scripts/engine_tools.versions): the Pulumi CLI,
the pulumi-kubernetes provider plugin and the YAML language host. What no registry serves is a
small launcher of ours, written here into a temporary bin folder on PATH, each starting this
interpreter (the project's virtualenv, where `nodepools` is installed):
- `pulumi-resource-pulumi-python`: the Python SDK's dynamic-provider host (`python -m
  pulumi.dynamic`), what the CLI starts for our ROSA and OSMO dynamic providers;
- `pulumi-resource-nodepools`: our component provider (`python -m nodepools.provider`);
- `nodepools-policy-pack`: the CrossGuard pack (`python -m pulumi.policy ENGINE policies`), given
  to `--policy-pack` as an executable, which the CLI starts as its analyzer plugin (a pack folder
  would need the Python language host, which is not served).
AWS and OCI provider plugins are not served by any registry: their resources stay under mocks
(tests/engines), never faked here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REQUIRE_VARIABLE = "NODEPOOLS_REQUIRE_ENGINE_TOOLS"
TOOLS = ("pulumi", "pulumi-resource-kubernetes", "pulumi-language-yaml")
PASSPHRASE = "nodepools-engine-tests"


def pinned_versions() -> dict[str, str]:
    """scripts/engine_tools.versions: NAME=VALUE lines."""
    text = (REPO / "scripts" / "engine_tools.versions").read_text()
    pairs = (line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return {name.strip(): value.strip() for name, value in pairs}


def tools_dir() -> Path:
    """$NODEPOOLS_ENGINE_TOOLS/bin, by default ${XDG_CACHE_HOME:-~/.cache}/nodepools/
    engine-tools-<pulumi>-k8s-<provider>-yaml-<yaml>/bin (as scripts/engine_tools.sh computes it)."""
    base = os.environ.get("NODEPOOLS_ENGINE_TOOLS")
    if not base:
        v = pinned_versions()
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        key = f"{v['PULUMI']}-k8s-{v['KUBERNETES_PROVIDER']}-yaml-{v['PULUMI_YAML']}"
        base = f"{cache}/nodepools/engine-tools-{key}"
    return Path(base) / "bin"


def missing_tools() -> list[str]:
    return [name for name in TOOLS if not os.access(tools_dir() / name, os.X_OK)]


def require_tools() -> None:
    """Skip (fail under NODEPOOLS_REQUIRE_ENGINE_TOOLS=1) when a binary is not built."""
    missing = missing_tools()
    if missing:
        message = (
            f"real-engine tests skipped: {', '.join(missing)} not built in {tools_dir()} "
            "(run `make engine-tools`)"
        )
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{message}; {REQUIRE_VARIABLE}=1 requires them", pytrace=False)
        pytest.skip(message)


LAUNCHERS = {
    "pulumi-resource-pulumi-python": '"{python}" -u -m pulumi.dynamic "$@"',
    "pulumi-resource-nodepools": '"{python}" -u -m nodepools.provider "$@"',
    # The CLI passes the engine address; the pack's folder is its program and working directory.
    "nodepools-policy-pack": 'cd "{repo}/policies" && exec "{python}" -u -m pulumi.policy "$1" .',
}


@dataclass(frozen=True)
class EngineEnv:
    """A temporary PULUMI_HOME and file backend, the launchers, and the variables the CLI,
    its plugins and the Automation API read."""

    root: Path
    env: dict[str, str]

    @property
    def pulumi(self) -> str:
        return str(tools_dir() / "pulumi")

    @property
    def policy_pack(self) -> Path:
        return self.root / "bin" / "nodepools-policy-pack"

    def cli(self, *args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run the CLI with this environment; on failure (when CHECK) fail quoting its output."""
        done = subprocess.run(
            [self.pulumi, *args, "--non-interactive"],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if check and done.returncode != 0:
            pytest.fail(
                f"pulumi {' '.join(args)} exited {done.returncode}:\n{done.stdout[-4000:]}\n"
                f"{done.stderr[-4000:]}",
                pytrace=False,
            )
        return done


def make_engine_env(root: Path, kubeconfig: Path) -> EngineEnv:
    """The engine's environment under ROOT, the Kubernetes provider plugin installed into its
    PULUMI_HOME as the version our Python SDK asks for."""
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True)
    for name, command in LAUNCHERS.items():
        path = bin_dir / name
        path.write_text("#!/bin/sh\n" + command.format(python=sys.executable, repo=REPO) + "\n")
        path.chmod(0o755)
    backend = root / "backend"
    backend.mkdir()
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(bin_dir), str(tools_dir()), os.environ.get("PATH", "")]),
        "PULUMI_HOME": str(root / "pulumi-home"),
        "PULUMI_BACKEND_URL": f"file://{backend}",
        "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
        "PULUMI_SKIP_UPDATE_CHECK": "true",
        "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
        "PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK": "true",
        "KUBECONFIG": str(kubeconfig),
        "PYTHONPATH": str(REPO),
        "PYTHONUNBUFFERED": "1",
    }
    engine = EngineEnv(root=root, env=env)
    version = pinned_versions()["KUBERNETES_PROVIDER"]
    engine.cli(
        "plugin",
        "install",
        "resource",
        "kubernetes",
        version,
        "--file",
        str(tools_dir() / "pulumi-resource-kubernetes"),
        cwd=root,
    )
    return engine


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
