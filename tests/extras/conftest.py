"""The built wheel, and a virtualenv per extra with it installed from the package registry.

The virtualenvs are real installs (`nodepools[aws] @ file:///...whl` from the registry, every
dependency resolved under constraints.txt by uv, the installer `make` bootstraps with: pip
resolves the same pinned set, in minutes where uv takes seconds), kept outside the
clone in `~/.cache/nodepools/extras-venvs/` (`NODEPOOLS_CACHE` moves it) under a key of
what decides their contents: the Python version, the wheel's dependency declarations, the
extra and constraints.txt. A kept virtualenv gets the new wheel's code on every run
(`--no-deps --reinstall`; its dependencies are those the key names) and `pip check`.
A cold run takes minutes; a warm one seconds.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL_SECONDS = 1800


def cache_root() -> Path:
    """$NODEPOOLS_CACHE/extras-venvs, by default ${XDG_CACHE_HOME:-~/.cache}/nodepools/... (where
    the scripts keep the built tools)."""
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    base = os.environ.get("NODEPOOLS_CACHE") or Path(cache) / "nodepools"
    return Path(base) / "extras-venvs"


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from the checkout's tracked and new files (not its build leftovers)."""
    source = tmp_path_factory.mktemp("extras-source")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for path in filter(None, listed):
        if (REPO / path).is_file():
            (source / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / path, source / path)
    out = tmp_path_factory.mktemp("extras-dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out)],
        cwd=source,
        check=True,
        capture_output=True,
    )
    [built] = out.glob("*.whl")
    return built


def dependency_key(wheel: Path, extra: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(name).decode()
    # What this install gets: the core's requirements and the extra's own (not `test`'s, so
    # a new test tool does not make every virtualenv again).
    declared = sorted(
        line
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
        and ("extra ==" not in line or f'extra == "{extra}"' in line)
    )
    digest = hashlib.sha256()
    for part in (
        f"{sys.version_info[0]}.{sys.version_info[1]}",
        extra,
        *declared,
        (REPO / "constraints.txt").read_text(),
    ):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:16]


def _install(env_dir: Path, *args: str) -> None:
    """`uv pip install ARGS` into ENV_DIR (uv from this interpreter's environment)."""
    uv = Path(sys.executable).parent / "uv"
    result = subprocess.run(
        [str(uv), "pip", "install", "--quiet", "--python", str(env_dir / "bin" / "python"), *args],
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )
    assert result.returncode == 0, f"uv pip install {' '.join(args)}:\n{result.stderr}"


def _pip(env_dir: Path, *args: str) -> None:
    result = subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )
    assert result.returncode == 0, f"pip {' '.join(args)}:\n{result.stdout}\n{result.stderr}"


def extra_venv(wheel: Path, extra: str) -> Path:
    """A virtualenv with `nodepools[extra]` (`core`: no extra) installed from `wheel`."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    env_dir = root / f"{extra}-{dependency_key(wheel, extra)}"
    requirement = f"nodepools{'' if extra == 'core' else f'[{extra}]'} @ {wheel.as_uri()}"
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run (or worker) may be filling it
        if not (env_dir / ".complete").exists():
            shutil.rmtree(env_dir, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
            _install(env_dir, "-c", str(REPO / "constraints.txt"), requirement)
            (env_dir / ".complete").write_text(requirement + "\n")
        else:
            _install(env_dir, "--no-deps", "--reinstall", str(wheel))
        _pip(env_dir, "check")
    return env_dir


class _Venvs(dict[str, Path]):
    """extra -> its virtualenv, made on first use."""

    def __init__(self, wheel: Path):
        super().__init__()
        self.wheel = wheel

    def __missing__(self, extra: str) -> Path:
        self[extra] = path = extra_venv(self.wheel, extra)
        return path


@pytest.fixture(scope="session")
def venvs(wheel: Path) -> dict[str, Path]:
    return _Venvs(wheel)
