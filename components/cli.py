"""The `nodepools` command (and `python -m nodepools`): `doctor` reads a live cluster, `import`
turns existing objects into stack configuration (nodepools.importers.command), `policy-pack DIR`
writes a policy-pack folder for `pulumi preview --policy-pack DIR`
(nodepools.policies.pack_folder), `--version` prints the installed version, every other
command (`plan`, `diff`, `schema`, `pr-comment`) is the planner's (nodepools.planning.cli)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def version() -> str:
    from importlib.metadata import version as installed_version

    return installed_version("nodepools")


def main(argv: Sequence[str] | None = None, *, owns_process: bool = False) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["--version"], ["-V"]):
        print(f"nodepools {version()}")
        return 0
    if args[:1] == ["doctor"]:
        from nodepools.doctor.command import main as doctor

        return doctor(args[1:])
    if args[:1] == ["import"]:
        from nodepools.importers.command import main as importer

        return importer(args[1:])
    if args[:1] == ["policy-pack"]:
        from nodepools.policies.pack_folder import main as policy_pack

        return policy_pack(args[1:])
    from nodepools.planning.cli import main as planner

    return planner(args, owns_process=owns_process)


def run() -> int:
    """One command in a process of its own, which exits after it."""
    return main(owns_process=True)
