"""`python -m nodepools plan --stack NAME [-C PROJECT] [-c KEY=VALUE] [--out DIR]
[--format text|json|markdown] [--compare BASE.json]`: plan a stack offline, reading its
project and config as `pulumi preview` does.

Exit status of `plan`: 0 when the plan is valid, 1 on an invalid manifest or a mandatory
policy violation, 2 on an error (bad arguments, a failing program). With `--compare`: 0
when the plan is valid and nothing changed, 1 when the plan failed (as without --compare,
whether or not something changed), 2 on an error, 3 when the plan is valid and something
changed.

`python -m nodepools diff BASE HEAD [--format markdown|json]`: what changes between two JSON
plans (files, or folders of `<stack>.json`); exit status 0 when nothing changed, 1 when
something did, 2 on an error.

`python -m nodepools schema [--output FILE]`: print the JSON schema of `plan --format json`.

`python -m nodepools pr-comment --body FILE --repo OWNER/NAME --pr N`: post the comment on a
pull request, or edit the one an earlier run posted.

`python -m nodepools doctor --stack NAME [--kubeconfig FILE] [--context C]`: the stack's plan
held against the live cluster, read only (`python -m nodepools doctor --help`).

`python -m nodepools import karpenter|kueue|eks FILE...`: the stack configuration that makes
existing NodePools, Kueue objects or EKS node groups, and how a plan of it differs from them
(`python -m nodepools import --help`).
`python -m nodepools policy-pack DIR`: write the CrossGuard pack's folder, for `pulumi preview
--policy-pack DIR` in your own project. `python -m nodepools --version`: the version."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

COMPARE_CHANGED = 3  # `plan --compare`: the plan is valid and differs from the base


def add_stack_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say which stack to plan, as `plan` and `doctor` both take them."""
    parser.add_argument(
        "--stack", default="dev", help="stack name: its config is Pulumi.<stack>.yaml (default dev)"
    )
    parser.add_argument(
        "-C",
        "--cwd",
        type=Path,
        default=Path("."),
        help="the project folder, with its Pulumi.yaml (default: the current folder)",
    )
    parser.add_argument(
        "--stacks-dir",
        type=Path,
        help="program and stack files in this folder instead of where Pulumi.yaml says",
    )
    parser.add_argument(
        "-c",
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="config for this run, over the stack file (as `pulumi preview -c`); repeatable",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m nodepools",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser(
        "plan", help="plan a stack offline (no cloud account, no Pulumi CLI)"
    )
    add_stack_arguments(plan)
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
    plan.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="text (default): the terminal report; json: the plan document (its JSON "
        "schema: `python -m nodepools schema`); markdown: a pull-request comment",
    )
    plan.add_argument(
        "--compare",
        type=Path,
        metavar="BASE.json",
        help="print what changes from this JSON plan instead (markdown, or json with --format "
        "json); exit status 0 valid and unchanged, 1 the plan failed, 2 error, 3 valid and changed",
    )
    plan.add_argument("--artifact-url", help="link the Markdown to the uploaded plan artifact")
    diff = commands.add_parser("diff", help="what changes between two JSON plans")
    diff.add_argument("base", type=Path, help="the base plan: a JSON file or a folder of them")
    diff.add_argument("head", type=Path, help="the head plan: a JSON file or a folder of them")
    diff.add_argument("--format", choices=("markdown", "json"), default="markdown")
    diff.add_argument("--artifact-url", help="link the Markdown to the uploaded plan artifact")
    diff.add_argument("--output", type=Path, help="write here instead of standard output")
    schema = commands.add_parser(
        "schema", help="print the JSON schema of `plan --format json` (shipped with nodepools)"
    )
    schema.add_argument("--output", type=Path, help="write here instead of standard output")
    comment = commands.add_parser(
        "pr-comment", help="post (or edit) the plan comment on a GitHub pull request"
    )
    comment.add_argument("--body", type=Path, required=True, help="the Markdown to post")
    comment.add_argument("--repo", required=True, help="OWNER/NAME")
    comment.add_argument("--pr", type=int, required=True, help="pull request number")
    comment.add_argument(
        "--api-url", default="https://api.github.com", help="GitHub API (GITHUB_API_URL)"
    )
    comment.add_argument(
        "--dry-run", action="store_true", help="print the requests instead of sending them"
    )
    comment.add_argument(
        "--author",
        help="login whose marked comment is edited (e.g. github-actions[bot]); default: the "
        "token's user from GET /user, or github-actions[bot] for an installation token",
    )
    return parser


def run() -> int:
    """The `nodepools` command and `python -m nodepools`: one command in a process of its
    own, which exits after it."""
    return main(owns_process=True)


def main(argv: Sequence[str] | None = None, *, owns_process: bool = False) -> int:
    """Run one command. `owns_process`: this process runs only this command, then exits
    (`run`), so it may tune the process for it (see `_plan`)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "diff":
            return _diff(args)
        if args.command == "schema":
            from nodepools.planning.plan_document import SCHEMA_PATH

            text = SCHEMA_PATH.read_text()
            if args.output is not None:
                args.output.write_text(text)
            else:
                sys.stdout.write(text)
            return 0
        if args.command == "pr-comment":
            from nodepools.planning.config_files import read_text
            from nodepools.planning.pr_comment import argument_problems, post_comment

            problems = argument_problems(args.repo, args.pr, args.api_url, args.author)
            if problems:
                raise ValueError("\nerror: ".join(problems))
            return post_comment(
                read_text(args.body, "comment body file"),
                args.repo,
                args.pr,
                api_url=args.api_url,
                dry_run=args.dry_run,
                author=args.author,
            )
        return _plan(args, owns_process=owns_process)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # A file the command writes (--out, --output) that can't be: say which and why.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


def _plan(args: argparse.Namespace, *, owns_process: bool) -> int:
    from nodepools.planning import plan_stack

    if owns_process:
        # What importing the planner built (the Pulumi SDK, gRPC, pydantic, the engine:
        # their modules, classes and tables) lives until the process exits, yet every full
        # collection of the cyclic GC walks it again: frozen, it is skipped. Not done in a
        # caller's process: its heap is not ours.
        gc.freeze()

    _check_out_dir(args.out)
    context: dict[str, Any] = {}
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
    status = 2 if result.error else 0 if result.ok else 1
    if args.format == "text" and args.compare is None:
        sys.stdout.write(result.render())
        if result.artifacts:
            print(f"Wrote {len(result.artifacts)} files under {args.out}")
        return status
    from nodepools.planning.plan_document import dumps, plan_document

    document = plan_document(result)
    if args.compare is not None:
        from nodepools.planning.plan_diff import diff_stacks

        if status == 2:
            return 2
        base = _read_plan(args.compare)
        diff = diff_stacks({base["stack"]: base}, {document["stack"]: document})
        changed = _write_diff(diff, args.format, args.artifact_url, None)
        # A failed plan says so whatever changed; "changed" gets a status of its own so a
        # script can tell a change to review from a plan that can't be applied.
        return status if status != 0 else COMPARE_CHANGED if changed else 0
    if args.format == "json":
        sys.stdout.write(dumps(document))
    else:
        from nodepools.planning.markdown_plan import plan_markdown

        sys.stdout.write(plan_markdown([document], artifact_url=args.artifact_url))
    return status


def _check_out_dir(out: Path | None) -> None:
    """`--out` is a folder (made when missing): refused before planning when it can't be."""
    if out is None:
        return
    for parent in (out, *out.parents):
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(
                    f"--out {out}: {parent} is a file; --out names a folder for the artifacts"
                )
            break


def _read_plan(path: Path) -> dict[str, Any]:
    import json

    from nodepools.json_values import is_dict
    from nodepools.planning.config_files import read_text
    from nodepools.planning.plan_document import SCHEMA_VERSION
    from nodepools.planning.plan_shape import plan_problems

    try:
        document = json.loads(read_text(path, "plan file"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}:{exc.colno}: not a JSON plan ({exc.msg})") from None
    version = document.get("schema_version") if is_dict(document) else None
    if not is_dict(document) or version != SCHEMA_VERSION:
        raise ValueError(
            f"{path}: schema_version {version!r}; this nodepools reads plans of version "
            f"{SCHEMA_VERSION} (`nodepools plan --format json`)"
        )
    problems = plan_problems(document)
    if problems:
        raise ValueError(
            f"{path}: not a plan `nodepools diff` can read:\n"
            + "\n".join(f"  - {problem}" for problem in problems)
        )
    return document


def _read_plans(path: Path) -> dict[str, dict[str, Any]]:
    """Plans by stack: one file, or every `*.json` of a folder (a missing folder: none,
    as when the base branch has no stacks yet)."""
    if path.is_dir():
        plans = [_read_plan(p) for p in sorted(path.glob("*.json"))]
    elif path.exists():
        plans = [_read_plan(path)]
    else:
        raise FileNotFoundError(f"{path}: no such plan file or folder")
    return {plan["stack"]: plan for plan in plans}


def _diff(args: argparse.Namespace) -> int:
    from nodepools.planning.plan_diff import diff_stacks

    diff = diff_stacks(_read_plans(args.base), _read_plans(args.head))
    return _write_diff(diff, args.format, args.artifact_url, args.output)


def _write_diff(
    diff: dict[str, Any], fmt: str, artifact_url: str | None, output: Path | None
) -> int:
    if fmt == "json":
        from nodepools.planning.plan_document import dumps

        text = dumps(diff)
    else:
        from nodepools.planning.markdown_diff import diff_markdown

        text = diff_markdown(diff, artifact_url=artifact_url)
    if output is not None:
        output.write_text(text)
    else:
        sys.stdout.write(text)
    return 1 if diff["changed"] else 0
