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
from nodepools.importers.model import Difference, Imported
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
                help="PoolQuotas (departments and projects), KueueQueues (every object as "
                "written), or auto (default): PoolQuotas when it renders the objects exactly, "
                "else KueueQueues",
            )
    return parser


Result = tuple[Imported, list[Difference]]


def _planned(
    imported: Imported, read_rendered: Callable[[Capture], Any], quantities: bool
) -> Result:
    """`imported` without the entries the fleet refuses, and its differences from a plan.
    Raises NothingImported (carrying `imported`) when no entry is left or the plan fails."""
    try:
        drop_refused_entries(imported)
        capture = plan(imported.config)
    except NothingImported as exc:
        exc.imported = imported
        raise
    except ProgramError as exc:
        failed = NothingImported(f"a plan of the configuration failed: {exc.cause}")
        failed.imported = imported
        raise failed from None
    return imported, compare(imported, read_rendered(capture), quantities=quantities)


def _kueue(options: argparse.Namespace) -> Result:
    """`--as auto`: PoolQuotas when a plan of it renders the objects exactly, else KueueQueues
    (every object as written), saying what PoolQuotas would have changed."""
    documents = read_yaml(options.files, kueue.KINDS)
    if options.component != "auto":
        imported = kueue.import_documents(documents, options.component)
        return _planned(imported, kueue.rendered, True)
    try:
        quotas = _planned(kueue.import_documents(documents, "pool-quotas"), kueue.rendered, True)
    except NothingImported as exc:
        refused = sorted({d.why.removeprefix("not importable: ") for d in exc.imported.refused})
        why = f"PoolQuotas can't say these objects ({'; '.join(refused) or exc})"
    else:
        if not quotas[1]:
            return quotas
        count = len(quotas[1])
        why = (
            f"PoolQuotas would render them with {count} difference{'s' * (count != 1)} "
            "(`--as pool-quotas` lists them)"
        )
    imported, differences = _planned(
        kueue.import_documents(documents, "kueue-queues"), kueue.rendered, True
    )
    imported.notes.append(
        f"{why}, so the configuration uses KueueQueues, which writes every object as given"
    )
    return imported, differences


def _import(options: argparse.Namespace) -> Result:
    if options.source == "karpenter":
        documents = read_yaml(options.files, karpenter.KINDS)
        return _planned(karpenter.import_documents(documents), karpenter.rendered, True)
    if options.source == "kueue":
        return _kueue(options)
    groups = eks.node_groups(read_json(options.files))
    return _planned(eks.import_node_groups(groups, options.cluster), eks.rendered, False)


def main(argv: Sequence[str]) -> int:
    options = _parser().parse_args(list(argv))
    command = " ".join(["nodepools", "import", *argv])
    try:
        imported, differences = _import(options)
    except InputError as exc:
        print(f"nodepools import: {exc}", file=sys.stderr)
        return INVALID
    except NothingImported as exc:
        for line in report(sorted(exc.imported.refused), 0, options.source)[:-1]:
            print(line, file=sys.stderr)
        print(f"nodepools import: nothing imported: {exc}", file=sys.stderr)
        return NOTHING
    header = f"Imported by `{command}`."
    if options.python:
        sys.stdout.write(python_program(imported.config, header))
    else:
        sys.stdout.write(stack_yaml(imported.config, header))
    for line in report(differences, len(imported.upstream), options.source):
        print(line, file=sys.stderr)
    for note in imported.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0
