"""The plan and first-use targets in instructions, not seconds: `python -m benchmarks.instructions`.

Times on a shared machine move from one run to the next by as much as the differences
worth measuring; instruction counts do not move with the load. This runs each program under
valgrind's callgrind in fresh processes that make 0, 1 and 2 plans (or floor replays) of
the mixed fleet: cold = count(1) - count(0), warm = count(2) - count(1). Before its first
plan a process has only started, imported the offline engine and read its input (the fleet
config, or the plan's records for the floor), which all cancel out; the library's imports
(`deploy_fleet` and what it loads) fall in the plan's cold count as the provider SDKs'
imports fall in the floor's, as they do in a user's program. `make bench-instructions`
runs it; `--first-use` counts first use and its floors, `--stacks` the example stacks.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .floors import BASELINE, ONE_MODEL, check_same, floor_program, plan_records
from .harness import ROOT, child_env
from .programs import FIRST_USE, MIXED_POOLS, mixed_fleet, plan_program

COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
MODES = ("plan", "floor")


def prepare(pools: int, folder: Path) -> tuple[Path, Path]:
    """The mixed fleet's config and the records of its plan, written under `folder`; the
    floor is checked to register exactly those records."""
    from nodepools.offline import run

    config, _ = mixed_fleet(pools)
    config_path, records_path = folder / "config.json", folder / "records.json"
    config_path.write_text(json.dumps(config))
    records = plan_records(run(plan_program(config)))
    records_path.write_text(json.dumps(records))
    check_same(records, run(floor_program(records)))
    return config_path, records_path


def child(mode: str, rounds: int, config: Path, records: Path) -> None:
    """Make `rounds` plans of the fleet config in `config` (mode "plan"), or `rounds`
    replays of the floor of the records in `records` (mode "floor")."""
    from nodepools.offline import run

    if mode == "plan":
        program = plan_program(json.loads(config.read_text()))
    else:
        program = floor_program(json.loads(records.read_text()))
    for _ in range(rounds):
        run(program)


CALLGRIND = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")


def have_valgrind() -> bool:
    return shutil.which("valgrind") is not None


def _require_valgrind() -> None:
    if not have_valgrind():
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")


def _callgrind(python_args: list[str]) -> int:
    """Instructions of a whole `python <python_args>` process under callgrind."""
    completed = subprocess.run(
        [*CALLGRIND, sys.executable, *python_args],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    found = COLLECTED.search(completed.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from callgrind:\n{completed.stderr[-2000:]}")
    return int(found.group(1))


def count(mode: str, rounds: int, config: Path, records: Path) -> int:
    """Instructions of a child making `rounds` plans or floor replays."""
    return _callgrind(
        [
            *("-m", "benchmarks.instructions", "--child", mode, "--rounds", str(rounds)),
            *("--config", str(config), "--records", str(records)),
        ]
    )


def measure(pools: int = MIXED_POOLS) -> dict[str, Any]:
    """Cold and warm instructions of the plan and of its floor, and their ratios."""
    _require_valgrind()
    result: dict[str, Any] = {"pools": pools}
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as tmp:
        config, records = prepare(pools, Path(tmp))
        for mode in MODES:
            counts = [count(mode, rounds, config, records) for rounds in (0, 1, 2)]
            result[mode] = {"cold": counts[1] - counts[0], "warm": counts[2] - counts[1]}
    for phase in ("cold", "warm"):
        result[f"plan/floor {phase}"] = result["plan"][phase] / result["floor"][phase]
    return result


def count_statement(statement: str) -> int:
    """Instructions of a fresh interpreter running `statement`."""
    return _callgrind(["-c", statement])


def measure_first_use() -> dict[str, Any]:
    """First use and its floors in instructions (a fresh interpreter each, one running
    `pass` subtracted): `import pulumi, pydantic`, the one-pydantic-model floor, first use;
    each with its ratio to the baseline and to the one-model floor."""
    _require_valgrind()
    statements = {"baseline": BASELINE, "one pydantic model": ONE_MODEL, "first use": FIRST_USE}
    for statement in statements.values():  # bytecode caches written before counting
        subprocess.run([sys.executable, "-c", statement], cwd=ROOT, env=child_env(), check=True)
    empty = count_statement("pass")
    counts = {name: count_statement(code) - empty for name, code in statements.items()}
    return {
        name: {
            "instructions": value,
            "baseline_ratio": value / counts["baseline"],
            "floor_ratio": value / counts["one pydantic model"],
        }
        for name, value in counts.items()
    }


# Example stacks planned in a fresh process (run from the repository root), as `make plan`
# runs their program (the offline engine); then the provider SDK packages it loaded.
STACK_IMPORTS = """\
import sys
from pathlib import Path
import yaml
from nodepools.offline import run
"""
PLAN_STACKS = """\
for stack in {stacks!r}:
    document = yaml.safe_load(Path(f"stacks/Pulumi.{{stack}}.yaml").read_text()) or {{}}
    run(Path("stacks/__main__.py"), stack=stack, config=document.get("config") or {{}})
print("SDKS", *sorted({{m.split(".")[0] for m in sys.modules}} & set({sdks!r})))
"""
PROVIDER_SDKS = ("pulumi_aws", "pulumi_oci", "pulumi_kubernetes")


def plan_stacks_code(stacks: list[str]) -> str:
    """A `python -c` program that plans `stacks` and prints the provider SDKs it loaded."""
    return STACK_IMPORTS + PLAN_STACKS.format(stacks=stacks, sdks=PROVIDER_SDKS)


def sdks_loaded(stdout: str) -> list[str]:
    """The provider SDK packages a `plan_stacks_code` run printed."""
    return next(line.split()[1:] for line in stdout.splitlines() if line.startswith("SDKS"))


def measure_stacks() -> dict[str, Any]:
    """Instructions of a cold plan of every example stack: the program run (imports of the
    engine and yaml excluded), with the provider SDK packages it loaded; and the whole
    `python -m nodepools plan --stack S --out DIR` process (text report; CI's plan-all.sh
    runs the same with `--format json`), interpreter start-up excluded."""
    from nodepools.planning.project import stack_names

    _require_valgrind()
    subprocess.run([sys.executable, "-c", STACK_IMPORTS], cwd=ROOT, env=child_env(), check=True)
    before = count_statement(STACK_IMPORTS)
    empty = count_statement("pass")
    result: dict[str, Any] = {}
    for stack in stack_names(ROOT / "stacks"):
        code = plan_stacks_code([stack])
        loaded = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=child_env(),
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        with tempfile.TemporaryDirectory(prefix="bench-plan-") as out:
            process = _callgrind(["-m", "nodepools", "plan", "--stack", stack, "--out", out])
        result[stack] = {
            "instructions": count_statement(code) - before,
            "sdks": sdks_loaded(loaded),
            "plan_process": process - empty,
        }
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", choices=MODES)
    parser.add_argument("--n", type=int, default=MIXED_POOLS, help="pools of the mixed fleet")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--records", type=Path)
    parser.add_argument("--first-use", action="store_true", help="count first use instead")
    parser.add_argument("--stacks", action="store_true", help="count example stack plans")
    args = parser.parse_args(argv)
    if args.stacks:
        for stack, row in measure_stacks().items():
            print(
                f"{stack:20s} program {row['instructions'] / 1e6:8,.0f} M instructions   "
                f"plan process {row['plan_process'] / 1e6:8,.0f} M   "
                f"SDKs: {' '.join(row['sdks']) or 'none'}"
            )
        return 0
    if args.first_use:
        for name, row in measure_first_use().items():
            print(
                f"{name:20s} {row['instructions'] / 1e6:8,.0f} M instructions   "
                f"{row['baseline_ratio']:.3f}x the baseline   "
                f"{row['floor_ratio']:.3f}x the one-model floor"
            )
        return 0
    if args.child:
        child(args.child, args.rounds, args.config, args.records)
        return 0
    result = measure(args.n)
    for mode in MODES:
        cold, warm = result[mode]["cold"], result[mode]["warm"]
        print(f"{mode:5s} cold {cold / 1e6:8,.0f} M instructions   warm {warm / 1e6:8,.0f} M")
    for key in ("plan/floor cold", "plan/floor warm"):
        print(f"{key}: {result[key]:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
