"""The mixed-fleet ratios in instructions, not seconds: `python -m benchmarks.instructions`.

Times on a shared 2-core machine move by 10-20% from one run to the next (the warm ratio
of the same code measured 1.07x and 1.37x an hour apart), which is as large as the
differences worth measuring. Instruction counts do not move with load. This runs each
program under valgrind's callgrind in fresh processes that make 0, 1 and 2 plans (or floor
replays) of the mixed 120-pool fleet; cold = count(1) - count(0), warm = count(2) -
count(1), so imports before the first plan, interpreter start and the generator cancel
out. Nine valgrind runs: several minutes; not part of `make bench`
(`make bench-instructions` runs it).
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

from .harness import ROOT, child_env

COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def child(mode: str, pools: int, rounds: int, records: Path) -> None:
    """Make `rounds` plans (mode "plan") or floor replays of the mixed fleet."""
    from nodepools.offline import run

    if mode == "plan":
        from nodepools.fleet.deploy import deploy_fleet

        from .bench_fleet import MIXED_KINDS, _records
        from .fleet_generator import generate_fleet

        config, _ = generate_fleet(pools, only=list(MIXED_KINDS), extras=[])
        capture = None
        for _ in range(rounds):
            capture = run(lambda: deploy_fleet(config))
        if capture is not None:
            records.write_text(json.dumps(_records(capture)))
        return
    from .floors import floor_program

    program = floor_program(json.loads(records.read_text()), mode)
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


def count(mode: str, pools: int, rounds: int, records: Path) -> int:
    """Instructions of a child making `rounds` plans or floor replays."""
    return _callgrind(
        [
            *("-m", "benchmarks.instructions", "--child", mode, "--n", str(pools)),
            *("--rounds", str(rounds), "--records", str(records)),
        ]
    )


def measure(pools: int, floors: tuple[str, ...] = ("raw", "sdk")) -> dict[str, Any]:
    """Cold and warm instructions of the plan and of the floors."""
    _require_valgrind()
    result: dict[str, Any] = {"pools": pools}
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as tmp:
        records = Path(tmp) / "records.json"
        child("plan", pools, 1, records)  # the floors replay what this plan registers
        for mode in ("plan", *floors):
            counts = [count(mode, pools, rounds, records) for rounds in (0, 1, 2)]
            result[mode] = {"cold": counts[1] - counts[0], "warm": counts[2] - counts[1]}
    for floor in floors:
        for phase in ("cold", "warm"):
            result[f"plan/{floor} {phase}"] = result["plan"][phase] / result[floor][phase]
    return result


def count_statement(statement: str) -> int:
    """Instructions of a fresh interpreter running `statement`."""
    return _callgrind(["-c", statement])


def measure_first_use() -> dict[str, Any]:
    """First use and the pydantic floor, in instructions, as ratios to the baseline."""
    from .bench_import import FIRST_USE, ONE_MODEL, VARIANTS

    _require_valgrind()
    statements = {
        "baseline": VARIANTS["baseline"],
        "one pydantic model": ONE_MODEL,
        "first use": FIRST_USE,
    }
    for statement in statements.values():  # bytecode caches written before counting
        subprocess.run([sys.executable, "-c", statement], cwd=ROOT, env=child_env(), check=True)
    empty = count_statement("pass")
    counts = {name: count_statement(code) - empty for name, code in statements.items()}
    return {
        name: {"instructions": value, "ratio": value / counts["baseline"]}
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
    parser.add_argument("--child", choices=("plan", "raw", "sdk"))
    parser.add_argument("--n", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=1)
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
                f"{name:20s} {row['instructions'] / 1e6:8,.0f} M instructions   {row['ratio']:.2f}x"
            )
        return 0
    if args.child:
        child(args.child, args.n, args.rounds, args.records)
        return 0
    result = measure(args.n)
    for mode in ("plan", "raw", "sdk"):
        cold, warm = result[mode]["cold"], result[mode]["warm"]
        print(f"{mode:5s} cold {cold / 1e6:8,.0f} M instructions   warm {warm / 1e6:8,.0f} M")
    for key in ("plan/raw cold", "plan/raw warm", "plan/sdk cold", "plan/sdk warm"):
        print(f"{key}: {result[key]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
