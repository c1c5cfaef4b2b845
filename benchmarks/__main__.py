"""`python -m benchmarks [--only NAMES] [--quick] [--suite]`: run, record, rewrite the table.

By default every benchmark but the test suite runs (the suite clones the repository and
builds a virtualenv: minutes; `--suite` adds it, and `make bench` passes it). Results go
to `benchmarks/results.json` and the table in `benchmarks/README.md` is regenerated.

`--quick` runs tiny sizes to check that the harness works; its numbers mean nothing, so
it records nothing unless `--results`/`--readme` name where to.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import bench_fleet, bench_import, bench_suite, reused
from .harness import ROOT, Section, machine, verdict
from .report import load, render, rewrite_readme, save

BENCHMARKS: dict[str, Callable[[bool], Section]] = {
    "import": bench_import.section,
    "fleet": bench_fleet.section,
    "validation": reused.validation_section,
    "placement": reused.placement_section,
    "suite": bench_suite.section,
}
RESULTS = ROOT / "benchmarks" / "results.json"
README = ROOT / "benchmarks" / "README.md"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--only",
        help=f"comma-separated subset of: {', '.join(BENCHMARKS)} (default: all but suite, "
        "plus suite with --suite)",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks the harness")
    parser.add_argument(
        "--suite", action="store_true", help="also time `make test` on a fresh clone (slow)"
    )
    parser.add_argument("--results", type=Path, help=f"results file (default {RESULTS})")
    parser.add_argument("--readme", type=Path, help=f"README to rewrite (default {README})")
    return parser


def _selected(args: argparse.Namespace) -> list[str]:
    if args.only:
        names = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = sorted(set(names) - set(BENCHMARKS))
        if unknown:
            raise SystemExit(f"unknown benchmark(s) {unknown}; known: {', '.join(BENCHMARKS)}")
        return names
    return [name for name in BENCHMARKS if name != "suite" or args.suite]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    names = _selected(args)
    record = not args.quick or args.results is not None or args.readme is not None
    results_path = args.results or RESULTS
    readme_path = args.readme or README
    data = load(results_path) if record else {"machine": {}, "sections": {}}
    data["machine"] = machine()
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        section = BENCHMARKS[name](args.quick)
        section.date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        section.quick = args.quick
        data["sections"][name] = section
        print(f"  {name}: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
        for row in section.rows:
            status = verdict(row.passed)
            print(f"  {row.metric}: {row.value}" + (f"  [{status}]" if status else ""))
    if record:
        save(results_path, data)
        rewrite_readme(readme_path, data)
        print(f"wrote {results_path} and {readme_path}", file=sys.stderr)
    else:
        print(render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
