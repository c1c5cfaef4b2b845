"""Test suite: `make test` on a fresh clone, virtualenv creation and install included.

The repository is cloned (committed state of HEAD; uncommitted changes are not part of
it) into a temporary folder and `make test` runs there with `python3` on PATH, exactly
as CI does: `make` creates `.venv`, installs the package with its test extras from the
package registries, then runs the linters and pytest. The two phases are timed apart
(`make venv`, then `make test`), and their sum is what the target is about.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from .harness import ROOT, Row, Section, fmt_seconds

TARGET_SECONDS = 300
# pytest's closing line, e.g. "512 passed, 3 skipped in 40.12s".
PYTEST_SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed).*?) in [\d.]+s", re.MULTILINE)


def _pip_cache_state() -> str:
    probe = subprocess.run(
        ["python3", "-m", "pip", "cache", "dir"], capture_output=True, text=True, check=False
    )
    cache = Path(probe.stdout.strip()) if probe.returncode == 0 else None
    if cache is None or not cache.is_dir():
        return "no pip cache"
    size = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
    return f"pip cache {size / 1e6:.0f} MB before the run"


def _make(target: str, clone: Path, env: dict[str, str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    completed = subprocess.run(
        ["make", target],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return time.perf_counter() - start, completed.returncode, completed.stdout + completed.stderr


def run() -> dict[str, Any]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    cache = _pip_cache_state()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
    # The clone must build its own virtualenv, not reuse the one this process runs in.
    venv_bin = str(Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        clone = Path(tmp) / "nodepools"
        start = time.perf_counter()
        subprocess.run(
            ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True
        )
        clone_s = time.perf_counter() - start
        # CI runs with ../shared beside the clone; give the clone the same neighbour.
        shared = ROOT.parent / "shared"
        if (shared / "DESIGN.md").is_file():
            (Path(tmp) / "shared").symlink_to(shared)
        venv_s, venv_rc, venv_out = _make("venv", clone, env)
        test_s, test_rc, test_out = _make("test", clone, env)
        shutil.rmtree(clone / ".venv", ignore_errors=True)
    summary = PYTEST_SUMMARY.findall(test_out)
    return {
        "commit": commit,
        "pip_cache": cache,
        "clone_s": clone_s,
        "venv_s": venv_s,
        "venv_ok": venv_rc == 0,
        "test_s": test_s,
        "test_ok": test_rc == 0,
        "pytest_summary": summary[-1] if summary else None,
        "total_s": clone_s + venv_s + test_s,
        "tail": "" if venv_rc == test_rc == 0 else (venv_out + test_out)[-3000:],
    }


def section(quick: bool) -> Section:
    del quick  # the suite is what it is; there is no smaller version of it
    result = run()
    ok = result["venv_ok"] and result["test_ok"]
    rows = [
        Row(
            "`make test` on a fresh clone (clone + virtualenv + lint + pytest)",
            fmt_seconds(result["total_s"]),
            f"< {TARGET_SECONDS // 60} min, green",
            ok and result["total_s"] < TARGET_SECONDS,
        ),
        Row("of which virtualenv and install (`make venv`)", fmt_seconds(result["venv_s"])),
        Row(
            "of which lint + tests (`make test`)",
            f"{fmt_seconds(result['test_s'])} ({result['pytest_summary'] or 'no pytest summary'})",
        ),
    ]
    notes = [f"Clone of commit {result['commit']}; {result['pip_cache']}."]
    if not ok:
        notes.append(f"The suite failed; last output:\n\n```\n{result['tail']}\n```")
    return Section(
        key="suite",
        title="Test suite",
        command="python -m benchmarks --only suite --suite",
        rows=rows,
        notes=notes,
        raw={k: v for k, v in result.items() if k != "tail"},
    )
