"""Time and size of `pip install` of the built wheel with each extra, beside the floor.

The floor is what no extra can go under: a virtualenv with only `pulumi`, `pulumi-aws`,
`pulumi-kubernetes` and `pydantic`. Each variant is installed into a fresh virtualenv
(`python -m venv`, its bundled pip, no constraints: what a user does) twice: first with
an empty pip cache (`PIP_CACHE_DIR` a new temporary folder: "cold"), then from the cache
that install filled ("warm"). Size is the virtualenv on disk (`du`), pip included. The numbers in docs/install.md come from this script.

Usage (from the repository root; minutes, network)::

    python -m build --wheel --outdir dist .
    python scripts/measure_install.py dist/nodepools-*.whl [--variants floor,core,aws]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOR = ["pulumi", "pulumi-aws", "pulumi-kubernetes", "pydantic"]
VARIANTS = ("floor", "core", "aws", "oci", "all")


def requirements(variant: str, wheel: Path) -> list[str]:
    if variant == "floor":
        return FLOOR
    suffix = "" if variant == "core" else f"[{variant}]"
    return [f"nodepools{suffix} @ {wheel.resolve().as_uri()}"]


def install(variant: str, wheel: Path, cache: str | None) -> tuple[float, int]:
    """(seconds, bytes) of one install into a new virtualenv, which is then removed."""
    with tempfile.TemporaryDirectory(prefix=f"measure-{variant}-") as folder:
        env_dir = Path(folder) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        env = {"PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        if cache is not None:
            env["PIP_CACHE_DIR"] = cache
        started = time.monotonic()
        subprocess.run(
            [str(env_dir / "bin" / "pip"), "install", "--quiet", *requirements(variant, wheel)],
            check=True,
            env={**os.environ, **env},
        )
        seconds = time.monotonic() - started
        size = int(subprocess.check_output(["du", "-sb", str(env_dir)]).split()[0])
        return seconds, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--out", type=Path, help="also write the results as JSON")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, float]] = {}
    for variant in args.variants.split(","):
        with tempfile.TemporaryDirectory(prefix="pip-cache-") as cache:
            cold, _ = install(variant, args.wheel, cache)  # an empty cache, which this fills
            warm, size = install(variant, args.wheel, cache)
        results[variant] = {"warm_s": round(warm, 1), "cold_s": round(cold, 1), "mb": size / 1e6}
        print(
            f"{variant:6} {size / 1e6:7.0f} MB  warm {warm:6.1f} s  cold {cold:6.1f} s",
            flush=True,
        )
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
