"""`python -m nodepools plan --stack NAME [-C PROJECT] [-c KEY=VALUE] [--out DIR]`: plan a
stack offline, reading its project and config as `pulumi preview` does."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m nodepools", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser(
        "plan", help="plan a stack offline (no cloud account, no Pulumi CLI)"
    )
    plan.add_argument(
        "--stack", default="dev", help="stack name: its config is Pulumi.<stack>.yaml (default dev)"
    )
    plan.add_argument(
        "-C",
        "--cwd",
        type=Path,
        default=Path("."),
        help="the project folder, with its Pulumi.yaml (default: the current folder)",
    )
    plan.add_argument(
        "--stacks-dir",
        type=Path,
        help="program and stack files in this folder instead of where Pulumi.yaml says",
    )
    plan.add_argument(
        "-c",
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="config for this run, over the stack file (as `pulumi preview -c`); repeatable",
    )
    plan.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="secret config for this run (e.g. the plaintext of a `secure:` value); repeatable",
    )
    plan.add_argument("--out", type=Path, help="write rendered artifacts (YAML) under this folder")
    plan.add_argument(
        "--policy-config",
        type=Path,
        help="policy pack config JSON, as `pulumi preview --policy-pack-config` takes it",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from nodepools.planning import plan_stack

    context: dict[str, Any] = {}
    try:
        if args.policy_config is not None:
            from nodepools.policies.runner import load_policy_config

            context["policy_config"] = load_policy_config(args.policy_config)
        result = plan_stack(
            args.stack,
            stacks_dir=args.stacks_dir,
            project_dir=args.cwd,
            config=args.config,
            secrets=args.secret,
            out_dir=args.out,
            context=context,
        )
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(result.render())
    if result.artifacts:
        print(f"Wrote {len(result.artifacts)} files under {args.out}")
    if result.error:
        return 2
    return 0 if result.ok else 1
