"""`nodepools policy-pack DIR`: a policy-pack folder for `pulumi preview --policy-pack DIR`,
bound to the Python environment `nodepools` is installed in.

The Pulumi CLI runs a Python pack from its folder: it reads `PulumiPolicy.yaml` there and
runs `python -m pulumi.policy` in the folder (which runs its `__main__.py`) with the
interpreter of the virtualenv the file names. The installed package can't be that folder:
its `PulumiPolicy.yaml` names the repository's `../.venv`. So this writes the two files into
a folder of the user's: the shipped `PulumiPolicy.yaml` with `virtualenv` set to this
environment (none outside a virtualenv: the CLI then runs the `python3` on PATH) and the
version of the installed `nodepools`, and the pack's `__main__.py` (which imports the
rules from the installed `nodepools.policies`). Rewriting the folder after an upgrade is
the same command.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import yaml

FILES = ("PulumiPolicy.yaml", "__main__.py")
USAGE = "usage: nodepools policy-pack DIR"


def pack_project(prefix: str, base_prefix: str) -> dict[str, Any]:
    """The shipped PulumiPolicy.yaml, its virtualenv and version those of this environment."""
    shipped = resources.files("nodepools.policies").joinpath("PulumiPolicy.yaml").read_text()
    project: dict[str, Any] = yaml.safe_load(shipped)
    project["version"] = metadata.version("nodepools")
    options: dict[str, Any] = project["runtime"].setdefault("options", {})
    if prefix != base_prefix:
        options["virtualenv"] = prefix
    else:
        options.pop("virtualenv", None)
    if not options:
        del project["runtime"]["options"]
    return project


def write_pack(folder: Path, *, prefix: str | None = None) -> list[Path]:
    """Write the pack's files into `folder` (created if need be); returns their paths.
    Refuses a folder holding anything else: it would become part of the pack."""
    others = (
        sorted(p.name for p in folder.iterdir() if p.name not in FILES) if folder.is_dir() else []
    )
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder}: is a file, not a folder")
    if others:
        named = ", ".join(repr(o) for o in others[:3]) + (
            f" and {len(others) - 3} more" if len(others) > 3 else ""
        )
        raise ValueError(f"{folder}: holds {named}: give an empty or new folder")
    folder.mkdir(parents=True, exist_ok=True)
    project = pack_project(prefix or sys.prefix, sys.base_prefix)
    written = [folder / "PulumiPolicy.yaml", folder / "__main__.py"]
    written[0].write_text(
        "# Written by `nodepools policy-pack`: run it again after upgrading nodepools.\n"
        + yaml.safe_dump(project, sort_keys=False)
    )
    written[1].write_text(resources.files("nodepools.policies").joinpath("__main__.py").read_text())
    return written


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    if args in (["-h"], ["--help"]):
        print(USAGE)
        print(__doc__.split("\n\n")[0] if __doc__ else "")
        return 0
    if len(args) != 1 or args[0].startswith("-"):
        print(f"error: policy-pack takes one folder (got {args!r}); {USAGE}", file=sys.stderr)
        return 2
    folder = Path(args[0])
    try:
        write_pack(folder)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {folder / 'PulumiPolicy.yaml'} and {folder / '__main__.py'}")
    print(f"run: pulumi preview --policy-pack {folder}")
    return 0
