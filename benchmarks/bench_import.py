"""Import cost and first use, in fresh processes, against their floors.

Each statement runs in its own interpreter (`python -c`), timed in-process around the
statement itself, so interpreter start-up is not counted on either side. The variants are
interleaved (baseline, import, first use, baseline, ...) so drift on a busy machine hits
all of them alike, and the median of the runs is reported.

- baseline: `import pulumi, pydantic`, the floor of `import nodepools`;
- models baseline: the same plus `from pydantic import BaseModel, Field, TypeAdapter`:
  pydantic 2 imports its model machinery only then;
- one model: the baseline, then one pydantic model of one field defined and built: the
  floor of first use (`floors.ONE_MODEL`), what any library whose arguments are pydantic
  models pays;
- import: `import nodepools`;
- first use: `from nodepools import MachinePool` and one `MachinePoolArgs` built, so cost
  moved from import time to first use (lazy imports, deferred model builds) still shows.

Targets: `import nodepools` <= 0.2x the baseline (time) and <= 1.3x its peak memory; first
use <= 1.2x the one-model floor, counted in instructions when valgrind is installed
(`instructions.measure_first_use`), timed otherwise. Each child also lists the cloud SDKs it
has loaded: `import nodepools` must load none.
"""

from __future__ import annotations

from typing import Any

from .floors import BASELINE, ONE_MODEL
from .harness import Row, Section, Table, fmt_seconds, median, run_child, verdict
from .instructions import have_valgrind, measure_first_use
from .programs import FIRST_USE, IMPORT

IMPORT_TARGET = 0.2
RSS_TARGET = 1.3
FIRST_USE_TARGET = 1.2
CLOUD_SDKS = ("pulumi_aws", "pulumi_oci", "pulumi_kubernetes", "httpx")

VARIANTS: dict[str, str] = {
    "baseline": BASELINE,
    "models_baseline": f"{BASELINE}\nfrom pydantic import BaseModel, Field, TypeAdapter",
    "one_model": ONE_MODEL,
    "import": IMPORT,
    "first_use": FIRST_USE,
}

# Timed in the child around nothing but the statement.
CHILD = """\
import json, resource, sys, time
start = time.perf_counter()
exec(compile({statement!r}, "<benchmark>", "exec"))
seconds = time.perf_counter() - start
rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
cloud = sorted(m for m in sys.modules if m.split(".")[0] in {cloud!r})
sys.stdout.write("BENCHMARK-RESULT " + json.dumps(
    {{"seconds": seconds, "rss_mb": rss_mb, "cloud_modules": cloud, "modules": len(sys.modules)}}
) + "\\n")
"""


def measure_variant(statement: str) -> dict[str, Any]:
    code = CHILD.format(statement=statement, cloud=CLOUD_SDKS)
    return run_child(["-c", code], timeout=120)


def run(runs: int = 9, warm_up: bool = True) -> dict[str, Any]:
    """Median import time and peak RSS per variant, over `runs` fresh processes each."""
    if warm_up:  # one unmeasured round: it writes any missing bytecode caches
        for statement in VARIANTS.values():
            measure_variant(statement)
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in VARIANTS}
    for _ in range(runs):
        for name, statement in VARIANTS.items():
            samples[name].append(measure_variant(statement))
    result: dict[str, Any] = {"runs": runs}
    for name, runs_of_variant in samples.items():
        result[name] = {
            "seconds": median([s["seconds"] for s in runs_of_variant]),
            "min_seconds": min(s["seconds"] for s in runs_of_variant),
            "rss_mb": median([s["rss_mb"] for s in runs_of_variant]),
            "modules": runs_of_variant[-1]["modules"],
            "cloud_modules": sorted({m for s in runs_of_variant for m in s["cloud_modules"]}),
        }
    base = result["baseline"]
    for name in ("import", "first_use"):
        result[name]["time_ratio"] = result[name]["seconds"] / base["seconds"]
        result[name]["rss_ratio"] = result[name]["rss_mb"] / base["rss_mb"]
    result["first_use"]["floor_ratio"] = (
        result["first_use"]["seconds"] / result["one_model"]["seconds"]
    )
    return result


FIRST_USE_LABEL = (
    "first use (`from nodepools import MachinePool` + one `MachinePoolArgs`) / one pydantic "
    "model (`import pulumi, pydantic` + one one-field model built)"
)


def _first_use_rows(first: dict[str, Any], quick: bool) -> list[Row]:
    """First use against its target: counted in instructions when valgrind is there (a
    timed ratio moves with the load of a shared machine), timed beside."""
    timed = (
        f"{first['floor_ratio']:.2f}x ({fmt_seconds(first['seconds'])}, {first['rss_mb']:.1f} MB)"
    )
    if quick or not have_valgrind():
        return [
            Row(
                f"{FIRST_USE_LABEL}, timed",
                timed,
                f"<= {FIRST_USE_TARGET}x",
                first["floor_ratio"] <= FIRST_USE_TARGET,
            )
        ]
    counted = measure_first_use()
    first_use, floor = counted["first use"], counted["one pydantic model"]
    return [
        Row(
            f"{FIRST_USE_LABEL}, in instructions",
            f"{first_use['floor_ratio']:.3f}x ({first_use['instructions'] / 1e6:,.0f} M vs "
            f"{floor['instructions'] / 1e6:,.0f} M)",
            f"<= {FIRST_USE_TARGET}x",
            first_use["floor_ratio"] <= FIRST_USE_TARGET,
        ),
        Row(f"{FIRST_USE_LABEL}, timed", timed),
    ]


def section(quick: bool) -> Section:
    runs = 3 if quick else 9
    result = run(runs, warm_up=not quick)
    base, imported, first = result["baseline"], result["import"], result["first_use"]
    models, one_model = result["models_baseline"], result["one_model"]
    cloud_loaded = imported["cloud_modules"]
    rows = [
        Row(
            "`import nodepools` time / `import pulumi, pydantic`",
            f"{imported['time_ratio']:.2f}x ({fmt_seconds(imported['seconds'])} vs "
            f"{fmt_seconds(base['seconds'])})",
            f"<= {IMPORT_TARGET}x",
            imported["time_ratio"] <= IMPORT_TARGET,
        ),
        Row(
            "`import nodepools` peak RSS / baseline",
            f"{imported['rss_ratio']:.2f}x ({imported['rss_mb']:.1f} MB vs "
            f"{base['rss_mb']:.1f} MB)",
            f"<= {RSS_TARGET}x",
            imported["rss_ratio"] <= RSS_TARGET,
        ),
        *_first_use_rows(first, quick),
        Row(
            "first use / `import pulumi, pydantic`",
            f"{first['time_ratio']:.2f}x; the one-model floor itself: "
            f"{one_model['seconds'] / base['seconds']:.2f}x",
        ),
        Row(
            "cloud SDKs loaded by `import nodepools`",
            ", ".join(cloud_loaded) if cloud_loaded else "none",
            f"none of {', '.join(CLOUD_SDKS)}",
            not cloud_loaded,
        ),
    ]
    detail = Table(
        f"Import cost (median of {runs} fresh processes each)",
        ["statement", "time", "fastest", "peak RSS", "modules loaded", "time ratio"],
        [
            [
                label,
                fmt_seconds(data["seconds"]),
                fmt_seconds(data["min_seconds"]),
                f"{data['rss_mb']:.1f} MB",
                str(data["modules"]),
                f"{data['seconds'] / base['seconds']:.2f}x",
            ]
            for label, data in (
                ("`import pulumi, pydantic` (baseline)", base),
                ("baseline + `from pydantic import BaseModel, Field, TypeAdapter`", models),
                ("baseline + one pydantic model of one field, built (first-use floor)", one_model),
                ("`import nodepools`", imported),
                ("first use", first),
            )
        ],
    )
    return Section(
        key="import",
        title="Import cost",
        command="python -m benchmarks --only import",
        rows=rows,
        tables=[detail],
        raw=result,
        notes=[
            "Timed inside each child around the statement alone (interpreter start-up "
            "excluded on both sides); peak RSS is the child's `ru_maxrss`."
        ],
    )


if __name__ == "__main__":
    for row in section(quick=False).rows:
        print(f"{row.metric}: {row.value} (target {row.target or '-'}) {verdict(row.passed)}")
