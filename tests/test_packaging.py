"""The distribution: one import package, `nodepools`, with its data, usable outside the repo.

Builds the wheel and the sdist as a user's `pip install` would (PEP 517, setuptools),
installs the wheel into a fresh virtualenv that borrows only the dependencies of this one
(not its editable `nodepools`), and imports it from a folder outside the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


# The folders the distribution maps to import packages (pyproject's `package-dir`).
PACKAGE_ROOTS = {"components": "nodepools", "policies": "nodepools/policies"}


def _source_modules() -> set[str]:
    """Every module of every package folder (one with an `__init__.py`) under the mapped roots,
    by its path in the wheel: a new subpackage left out of pyproject's `packages` list is
    caught here, not by a user whose `pip install` lacks it (the editable install hides it)."""
    modules: set[str] = set()
    for root, installed_as in PACKAGE_ROOTS.items():
        for init in (REPO / root).rglob("__init__.py"):
            folder = init.parent
            # a folder is a package only if every folder above it up to the root is one too
            if any(
                not (parent / "__init__.py").is_file()
                for parent in [folder, *folder.parents]
                if parent.is_relative_to(REPO / root)
            ):
                continue
            for module in folder.glob("*.py"):
                modules.add(f"{installed_as}/{module.relative_to(REPO / root).as_posix()}")
    return modules


def _tracked_data_files() -> set[str]:
    """Non-Python files of the library that must ship (schema facts, catalogs, py.typed)."""
    listed = subprocess.run(
        ["git", "ls-files", "components"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return {
        "nodepools/" + path.removeprefix("components/")
        for path in listed
        if not path.endswith(".py") and (REPO / path).is_file()
    }


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Built from a copy of the checkout's files, as CI's fresh clone has them: in the checkout
    # itself the editable install's nodepools.egg-info (its SOURCES.txt lists every file) and
    # an earlier build's build/lib would slip a subpackage missing from pyproject's `packages`
    # into the wheel, hiding what a user's `pip install` lacks.
    source = tmp_path_factory.mktemp("source")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for path in filter(None, listed):
        if (REPO / path).is_file():  # a file deleted in the work tree but not yet in git
            (source / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / path, source / path)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--wheel",
            "--sdist",
            "--outdir",
            str(out),
        ],
        cwd=source,
        check=True,
        capture_output=True,
    )
    return out


def test_wheel_installs_exactly_one_top_level_package_with_its_data(dist: Path):
    [wheel] = dist.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    dist_info = {name for name in top if name.endswith(".dist-info")}
    assert top - dist_info == {"nodepools"}, sorted(top)
    assert "nodepools/policies/pack.py" in names
    assert "nodepools/py.typed" in names
    missing = _tracked_data_files() - set(names)
    assert not missing, f"data files left out of the wheel: {sorted(missing)}"
    assert "nodepools/devices/__init__.py" in names
    missing_modules = _source_modules() - set(names)
    assert not missing_modules, (
        f"modules left out of the wheel (a package missing from pyproject's "
        f"[tool.setuptools] packages?): {sorted(missing_modules)}"
    )
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "nodepools = nodepools.cli:run" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_sdist_carries_the_sources_and_data(dist: Path):
    [sdist] = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"pyproject.toml", "README.md", "components/__init__.py", "policies/pack.py"} <= names
    data = {"components/" + path.removeprefix("nodepools/") for path in _tracked_data_files()}
    assert not data - names, sorted(data - names)


def test_installed_wheel_imports_outside_the_repo_and_stays_light(dist: Path, tmp_path: Path):
    [wheel] = dist.glob("*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)  # what pip does for a pure wheel, minus the scripts
    # The dependencies (pulumi, pydantic, ...) come from this virtualenv's site-packages as a
    # plain path: its .pth files (the editable `nodepools` finder) are not run.
    import sysconfig

    Path(site, "borrowed-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    program = """
import sys
import nodepools
assert nodepools.__file__.startswith(sys.argv[1]), nodepools.__file__
assert not [m for m in sys.modules if m.split(".")[0] in {"pulumi_aws", "pulumi_oci", "pulumi_kubernetes", "httpx"}]
assert "components" not in sys.modules and "policies" not in sys.modules
from nodepools import MachinePoolArgs, SchedulingInfo  # noqa: F401
from nodepools import AcceleratorStack  # noqa: F401  (lives in nodepools.devices)
from nodepools.validation import validate_manifest
manifest = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": "q"}, "spec": {"clusterQueue": "cq"}}
assert validate_manifest(manifest) == []
import nodepools.policies.pack
print("ok")
"""
    out = subprocess.run(
        [str(python), "-c", program, site], cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    with pytest.raises(subprocess.CalledProcessError):
        subprocess.run(
            [str(python), "-c", "import components"], cwd=tmp_path, check=True, capture_output=True
        )
    # The CLI from the installed wheel plans a stack whose program loads the device software
    # (AcceleratorStack, nodepools.devices) from outside the checkout.
    plan = subprocess.run(
        [str(python), "-m", "nodepools", "plan", "--stack", "rosa-gpu", "-C", str(REPO)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert plan.returncode == 0, plan.stderr
    assert "nodepools:index:AcceleratorStack" in plan.stdout
