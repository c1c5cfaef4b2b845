"""`nodepools import karpenter|kueue|eks FILE...`: the stack configuration (or, with
`--python`, the program) that makes the objects the files describe, printed on standard
output; every way a plan of it differs from the files on standard error, one line each.

Exit status: 0 when something was imported (differences or not), 1 when nothing could be,
2 when an argument or a file is invalid (one line naming the file and what is wrong).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from nodepools.importers import eks, karpenter, kueue
from nodepools.importers.differences import compare
from nodepools.importers.documents import InputError, read_json, read_yaml
from nodepools.importers.model import Imported
from nodepools.importers.rendering import python_program, report, stack_yaml
from nodepools.importers.roundtrip import NothingImported, drop_refused_entries, plan
from nodepools.offline import Capture, ProgramError

INVALID = 2
NOTHING = 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nodepools import",
        description="Print the stack configuration that makes existing objects, and how a "
        "plan of it differs from them.",
    )
    sources = parser.add_subparsers(dest="source", required=True, metavar="SOURCE")
    for name, text in (
        ("karpenter", "Karpenter v1 NodePool and EC2NodeClass YAML"),
        ("kueue", "Kueue v1beta2 objects (ClusterQueue, LocalQueue, ResourceFlavor, ...)"),
        ("eks", "`aws eks describe-nodegroup` JSON (one, a list, or {nodegroups: [...]})"),
    ):
        sub = sources.add_parser(name, help=text, description=text)
        sub.add_argument("files", nargs="+", metavar="FILE", help="files to read; - reads stdin")
        sub.add_argument(
            "--python", action="store_true", help="print a Python program instead of a stack file"
        )
        if name == "eks":
            sub.add_argument("--cluster", required=True, help="name of the EKS cluster")
        if name == "kueue":
            sub.add_argument(
                "--as",
                dest="component",
                choices=kueue.COMPONENTS,
                default=kueue.COMPONENTS[0],
                help="PoolQuotas (departments and projects; default) or KueueQueues (every "
                "object as written)",
            )
    return parser


def _import(options: argparse.Namespace) -> tuple[Imported, Callable[[Capture], Any], bool]:
    """(what was imported, how to read the plan's objects, whether fields are quantities)."""
    if options.source == "karpenter":
        documents = read_yaml(options.files, karpenter.KINDS)
        return karpenter.import_documents(documents), karpenter.rendered, True
    if options.source == "kueue":
        documents = read_yaml(options.files, kueue.KINDS)
        return kueue.import_documents(documents, options.component), kueue.rendered, True
    groups = eks.node_groups(read_json(options.files))
    return eks.import_node_groups(groups, options.cluster), eks.rendered, False


def main(argv: Sequence[str]) -> int:
    options = _parser().parse_args(list(argv))
    command = " ".join(["nodepools", "import", *argv])
    try:
        imported, read_rendered, quantities = _import(options)
    except InputError as exc:
        print(f"nodepools import: {exc}", file=sys.stderr)
        return INVALID
    try:
        drop_refused_entries(imported)
        capture = plan(imported.config)
    except NothingImported as exc:
        for line in report(imported.refused, 0, options.source)[:-1]:
            print(line, file=sys.stderr)
        print(f"nodepools import: nothing imported: {exc}", file=sys.stderr)
        return NOTHING
    except ProgramError as exc:
        print(f"nodepools import: a plan of the configuration failed: {exc.cause}", file=sys.stderr)
        return NOTHING
    differences = compare(imported, read_rendered(capture), quantities=quantities)
    header = f"Imported by `{command}`."
    if options.python:
        sys.stdout.write(python_program(imported.config, header))
    else:
        sys.stdout.write(stack_yaml(imported.config, header))
    for line in report(differences, len(imported.upstream), options.source):
        print(line, file=sys.stderr)
    return 0
