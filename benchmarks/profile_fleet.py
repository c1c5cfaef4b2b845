"""Where a fleet plan's time goes: `python -m benchmarks.profile_fleet [--n 120] [--top 12]`.

Profiles (cProfile) the mixed fleet of the fleet benchmark in a fresh process: the cold
plan (the first in the process: lazy imports, first model builds, first validator and CEL
use, first registration of each kind) and a warm one (the third). For each it prints the
own time grouped by where the code lives (our package, the Pulumi SDK's parts, the provider
SDKs, asyncio, ...) and the functions of our package with the most own time. cProfile
slows everything down, unevenly, so read shares, not seconds; `make bench` has the timings.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import sys
from typing import Any

# Ordered: the first fragment of a file's path that matches names its group.
GROUPS = (
    ("/components/", "nodepools"),
    ("/nodepools/", "nodepools"),
    ("pulumi_aws", "pulumi_aws"),
    ("pulumi_oci", "pulumi_oci"),
    ("pulumi_kubernetes", "pulumi_kubernetes"),
    ("pulumi/runtime/rpc", "pulumi rpc (serialize)"),
    ("pulumi/runtime/resource", "pulumi resource registration"),
    ("pulumi/output", "pulumi Output"),
    ("pulumi/_types", "pulumi typed args/outputs"),
    ("/pulumi/", "pulumi (other)"),
    ("pydantic", "pydantic"),
    ("yaml", "yaml"),
    ("asyncio", "asyncio"),
    ("traceback", "stack walk (traceback, linecache, pathlib)"),
    ("linecache", "stack walk (traceback, linecache, pathlib)"),
    ("pathlib", "stack walk (traceback, linecache, pathlib)"),
    ("importlib", "imports"),
    ("<frozen", "imports"),
    ("grpc", "grpc/protobuf"),
    ("protobuf", "grpc/protobuf"),
)


def group_of(filename: str) -> str:
    for fragment, group in GROUPS:
        if fragment in filename:
            return group
    return "builtins and other" if filename.startswith("~") else "other Python"


def summarize(stats: pstats.Stats, top: int) -> dict[str, Any]:
    groups: collections.Counter[str] = collections.Counter()
    ours: list[tuple[float, int, str]] = []
    for (filename, line, function), (_, calls, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        group = group_of(filename)
        groups[group] += own
        if group == "nodepools":
            short = filename.split("/components/")[-1].split("/nodepools/")[-1]
            ours.append((own, calls, f"{short}:{line} {function}"))
    total = sum(groups.values())
    return {
        "total": total,
        "groups": [(name, seconds / total) for name, seconds in groups.most_common()],
        "ours": sorted(ours, reverse=True)[:top],
    }


def profile(pools: int, top: int) -> dict[str, dict[str, Any]]:
    from nodepools.fleet.deploy import deploy_fleet
    from nodepools.offline import run

    from benchmarks.programs import mixed_fleet

    config, _ = mixed_fleet(pools)
    results = {}
    for label, rounds in (("cold", 1), ("warm", 3)):
        for _ in range(rounds - 1):
            run(lambda: deploy_fleet(config))
        profiler = cProfile.Profile()
        profiler.enable()
        run(lambda: deploy_fleet(config))
        profiler.disable()
        results[label] = summarize(pstats.Stats(profiler), top)
    return results


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=120)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args(argv)
    for label, summary in profile(args.n, args.top).items():
        print(f"## {label} plan, {args.n} mixed pools: {summary['total']:.2f} s under cProfile")
        print("share of own time by where the code lives:")
        for name, share in summary["groups"][: args.top]:
            print(f"  {share:6.1%}  {name}")
        print("our functions with the most own time:")
        for own, calls, where in summary["ours"]:
            print(f"  {own * 1000:7.1f} ms  {calls:6d} calls  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
