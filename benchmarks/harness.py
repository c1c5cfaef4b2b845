"""What every benchmark shares: result rows, child processes, and the machine description."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# The packages whose versions decide the numbers (the Pulumi SDK sets the floor).
PACKAGES = (
    "pulumi",
    "pulumi-aws",
    "pulumi-oci",
    "pulumi-kubernetes",
    "pydantic",
    "pydantic-core",
    "PyYAML",
    "cel-expr-python",
)

# A child prints its result as the last line of stdout, after this marker, so that
# anything the code under test prints cannot be mistaken for it.
RESULT_MARKER = "BENCHMARK-RESULT "


@dataclass
class Row:
    """One measured number, and its target when it has one (`passed` None: no target)."""

    metric: str
    value: str
    target: str = ""
    passed: bool | None = None


@dataclass
class Table:
    """A detail table (e.g. one row per fleet size)."""

    title: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class Section:
    """The outcome of one benchmark, as it goes into results.json and the README."""

    key: str
    title: str
    command: str
    rows: list[Row] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    date: str = ""
    quick: bool = False

    @property
    def passed(self) -> bool | None:
        verdicts = [row.passed for row in self.rows if row.passed is not None]
        return all(verdicts) if verdicts else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Section:
        data = dict(data)
        data["rows"] = [Row(**row) for row in data.get("rows", [])]
        data["tables"] = [Table(**table) for table in data.get("tables", [])]
        return cls(**data)


def child_env() -> dict[str, str]:
    """The environment of a benchmark child: ours, minus what would skew a measurement."""
    env = dict(os.environ)
    for name in (
        "PYTHONPROFILEIMPORTTIME",
        "PYTHONTRACEMALLOC",
        "PYTHONDEVMODE",
        "PYTHONBREAKPOINT",
    ):
        env.pop(name, None)
    # An installed package has its bytecode cached; without the cache every child would
    # compile our sources again and the import benchmark would time the compiler.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Children import this checkout's `components`, not whatever the virtualenv points at.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run_child(args: Sequence[str], *, timeout: float = 600) -> dict[str, Any]:
    """Run `python <args>` in a fresh process from the repository root; return its result."""
    completed = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            if completed.returncode != 0:
                break
            return json.loads(line[len(RESULT_MARKER) :])
    raise RuntimeError(
        f"benchmark child {' '.join(args)!r} failed (exit {completed.returncode}):\n"
        f"{completed.stderr[-4000:]}"
    )


def emit(result: dict[str, Any]) -> None:
    """Print a child's result for `run_child`."""
    sys.stdout.write(f"{RESULT_MARKER}{json.dumps(result)}\n")
    sys.stdout.flush()


def peak_rss_mb() -> float:
    """This process's peak resident set size so far (Linux reports ru_maxrss in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def machine() -> dict[str, Any]:
    """Cores, memory, Python and the package versions the numbers depend on."""
    memory_gib = None
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    memory_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
                    break
    except OSError:
        pass
    cpu_model = ""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return {
        "cores": os.cpu_count(),
        "cpu": cpu_model or platform.processor() or "unknown",
        "memory_gib": memory_gib,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
        "load_average": [round(load, 2) for load in os.getloadavg()],
        "packages": versions,
        "commit": _git_commit(),
    }


def _git_commit() -> str:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}{' (with uncommitted changes)' if dirty else ''}"


def fmt_seconds(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def verdict(passed: bool | None) -> str:
    return {True: "pass", False: "**FAIL**", None: ""}[passed]
