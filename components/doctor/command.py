"""`python -m nodepools doctor --stack NAME [-C DIR] [--kubeconfig FILE] [--context C]
[--namespace NS] [--format text|json]`: plan the stack offline, read the live cluster
(read only) and report where it differs from the plan, and why each pending accelerator
pod can't run.

Exit status: 0 healthy, 1 findings, 2 error (the stack doesn't plan, the cluster can't be
read)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from nodepools.planning.cli import add_stack_arguments

HEALTHY, FINDINGS, ERROR = 0, 1, 2


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m nodepools doctor",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_stack_arguments(parser)
    parser.add_argument(
        "--kubeconfig", type=Path, help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"
    )
    parser.add_argument("--context", help="kubeconfig context (default: its current context)")
    parser.add_argument(
        "--namespace", help="pending pods and workloads of this namespace only (default: all)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from nodepools.doctor.checks import diagnose
    from nodepools.doctor.live import ClusterError, read_cluster
    from nodepools.doctor.planned import PlanError, planned

    try:
        plan = planned(
            args.stack, project_dir=args.cwd, stacks_dir=args.stacks_dir, config=args.config
        )
        live = read_cluster(args.kubeconfig, args.context)
    except (PlanError, ClusterError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ERROR
    report = diagnose(plan, live, namespace=args.namespace)
    sys.stdout.write(report.json() if args.format == "json" else report.text())
    return HEALTHY if report.healthy else FINDINGS
