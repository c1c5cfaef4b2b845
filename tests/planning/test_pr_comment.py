"""The plan workflow's comment step: `.github/scripts/plan-comment.sh` on two folders of plans,
dry and against a fake GitHub API on loopback (first run posts, later runs edit the same
comment, the token never shows)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from nodepools.planning.markdown import MARKER
from nodepools.planning.project import stack_names

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".github" / "scripts" / "plan-comment.sh"
PLAN_ALL = ROOT / ".github" / "scripts" / "plan-all.sh"
TOKEN = "ghs_example-token-that-must-not-leak"
# One worker for the module: its `plans` fixture plans every stack twice (~30 s of processes),
# which each xdist worker running one of its tests would otherwise do again.
pytestmark = pytest.mark.xdist_group("pr-comment")


ACTIONS_BOT = "github-actions[bot]"


class FakeGitHub:
    """Issue comments of one repository, with pagination, as the REST API serves them.

    `token_user` is who the token comments as: None for an installation token such as the
    workflow's GITHUB_TOKEN (comments by `github-actions[bot]`, `GET /user` refused with 403),
    or a user's login for a personal token (`GET /user` answers it)."""

    def __init__(self, token_user: str | None = None) -> None:
        self.token_user = token_user
        self.comments: list[dict[str, Any]] = [
            {
                "id": i,
                "body": f"an unrelated comment {i}",
                "html_url": f"https://x/{i}",
                "user": {"login": "someone"},
            }
            for i in range(1, 131)  # more than one page of 100
        ]
        self.requests: list[tuple[str, str, str | None]] = []

    @property
    def author(self) -> str:
        return self.token_user or ACTIONS_BOT

    def handler(self) -> type[BaseHTTPRequestHandler]:
        github = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorised(self) -> bool:
                github.requests.append((self.command, self.path, self.headers.get("Authorization")))
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    self._reply(401, {"message": "Bad credentials"})
                    return False
                return True

            def _body(self) -> dict[str, Any]:
                return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

            def do_GET(self) -> None:
                if not self._authorised():
                    return
                path, _, query = self.path.partition("?")
                if path == "/user":
                    if github.token_user is None:
                        self._reply(403, {"message": "Resource not accessible by integration"})
                    else:
                        self._reply(200, {"login": github.token_user})
                    return
                assert path == "/repos/acme/platform/issues/7/comments"
                params = dict(p.split("=") for p in query.split("&"))
                size, page = int(params["per_page"]), int(params["page"])
                self._reply(200, github.comments[(page - 1) * size : page * size])

            def do_POST(self) -> None:
                if not self._authorised():
                    return
                assert self.path == "/repos/acme/platform/issues/7/comments"
                comment = {
                    "id": 1000 + len(github.comments),
                    "body": self._body()["body"],
                    "html_url": "https://github.example/acme/platform/pull/7#new",
                    "user": {"login": github.author},
                }
                github.comments.append(comment)
                self._reply(201, comment)

            def do_PATCH(self) -> None:
                if not self._authorised():
                    return
                comment_id = int(self.path.rsplit("/", 1)[-1])
                [comment] = [c for c in github.comments if c["id"] == comment_id]
                if comment["user"]["login"] != github.author:
                    # GitHub refuses to let a token edit another user's comment.
                    self._reply(403, {"message": "Resource not accessible by integration"})
                    return
                comment["body"] = self._body()["body"]
                self._reply(200, comment)

        return Handler


@pytest.fixture(params=[None], ids=["installation-token"])
def github(request: pytest.FixtureRequest) -> Iterator[tuple[FakeGitHub, str]]:
    fake = FakeGitHub(token_user=request.param)
    server = ThreadingHTTPServer(("127.0.0.1", 0), fake.handler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two folders of JSON plans made by plan-all.sh: main's stacks, and a head where the
    GPU spot pool of `dev` can grow to 8 nodes. Only `dev` changes, so the head checkout holds
    that stack alone and gets the other stacks' plans from main's (planning every stack twice
    took ~45 s)."""
    work = tmp_path_factory.mktemp("plans")
    head_checkout = work / "head-checkout"
    (head_checkout / "stacks").mkdir(parents=True)
    for path in (ROOT / "stacks").iterdir():
        if path.is_file() and not path.name.startswith("Pulumi."):
            (head_checkout / "stacks" / path.name).write_text(path.read_text())
    dev = head_checkout / "stacks" / "Pulumi.dev.yaml"
    dev.write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    # A checkout is a Pulumi project: `plan` reads where its stacks are from Pulumi.yaml.
    (head_checkout / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    document = yaml.safe_load(dev.read_text())
    for pool in document["config"]["nodepools:pools"]:
        if pool["name"] == "gpu-spot":
            pool["autoscaling"]["max_replicas"] = 8
    dev.write_text(yaml.safe_dump(document, sort_keys=False))
    env = {**os.environ, "PYTHON": sys.executable}
    for checkout, out in ((ROOT, work / "base"), (head_checkout, work / "head")):
        subprocess.run(["bash", str(PLAN_ALL), str(out)], cwd=checkout, env=env, check=True)
    head = work / "head" / "json"
    assert [p.name for p in head.iterdir()] == ["dev.json"]
    for plan in (work / "base" / "json").iterdir():
        if not (head / plan.name).exists():
            shutil.copy2(plan, head / plan.name)
    return work / "base" / "json", head


def _run(base: Path, head: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), str(base), str(head)],
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHON": sys.executable,
            "GITHUB_REPOSITORY": "acme/platform",
            "PR": "7",
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
    )


def test_plan_all_writes_a_json_plan_and_a_chart_per_stack(plans):
    base, _ = plans
    stacks = sorted(p.stem for p in base.glob("*.json"))
    assert stacks == stack_names(ROOT / "stacks")
    assert (base.parent / "dev" / "capacity.svg").is_file()


def test_dry_run_prints_the_comment_and_sends_nothing(plans):
    base, head = plans
    result = _run(base, head, DRY_RUN="1", ARTIFACT_URL="https://example.invalid/a/1")
    assert result.returncode == 0, result.stderr
    assert "dry run: would look for a comment" in result.stdout
    assert MARKER in result.stdout
    assert "**`dev`**: pools +0 / -0 / ~1; A10G max +4" in result.stdout
    assert "**`rosa-gpu`**: no changes" in result.stdout
    assert "[plan artifact](https://example.invalid/a/1)" in result.stdout


def test_first_run_posts_later_runs_edit_the_same_comment(plans, github):
    fake, url = github
    base, head = plans
    first = _run(base, head, GITHUB_TOKEN=TOKEN, GITHUB_API_URL=url)
    assert first.returncode == 0, first.stderr
    ours = [c for c in fake.comments if c["body"].startswith(MARKER)]
    assert len(ours) == 1 and "A10G max +4" in ours[0]["body"]
    second = _run(head, head, GITHUB_TOKEN=TOKEN, GITHUB_API_URL=url)
    assert second.returncode == 0, second.stderr
    ours = [c for c in fake.comments if c["body"].startswith(MARKER)]
    assert len(ours) == 1 and "**`dev`**: no changes" in ours[0]["body"]
    methods = [m for m, _, _ in fake.requests]
    assert methods.count("POST") == 1 and methods.count("PATCH") == 1
    for output in (first.stdout, first.stderr, second.stdout, second.stderr):
        assert TOKEN not in output


def test_a_refusal_is_reported_without_the_token(plans, github):
    _, url = github
    base, head = plans
    result = _run(base, head, GITHUB_TOKEN="wrong-" + TOKEN, GITHUB_API_URL=url)
    assert result.returncode == 2
    assert re.search(
        r"^error: (GET|POST|PATCH) http\S+: GitHub answered 401: ", result.stderr, re.M
    )
    assert "Bad credentials" in result.stderr
    assert TOKEN not in result.stderr + result.stdout


def _ours(fake: FakeGitHub) -> list[dict[str, Any]]:
    return [c for c in fake.comments if c["body"].startswith(MARKER)]


def test_a_marked_comment_by_someone_else_is_never_edited(plans, github):
    fake, url = github
    base, head = plans
    # Someone quoted an old plan comment, marker included, before the bot first posted.
    fake.comments.insert(
        5, {"id": 9001, "body": f"{MARKER}\nquoted", "html_url": "q", "user": {"login": "mallory"}}
    )
    for _ in range(2):
        result = _run(base, head, GITHUB_TOKEN=TOKEN, GITHUB_API_URL=url)
        assert result.returncode == 0, result.stderr
    quoted, mine = _ours(fake)
    assert quoted["body"] == f"{MARKER}\nquoted" and quoted["user"]["login"] == "mallory"
    assert mine["user"]["login"] == ACTIONS_BOT and "A10G max +4" in mine["body"]
    methods = [m for m, path, _ in fake.requests if path != "/user"]
    assert methods.count("POST") == 1 and methods.count("PATCH") == 1
    # GITHUB_TOKEN can't read GET /user: the Actions bot is taken as the author.
    assert [m for m, path, _ in fake.requests if path == "/user"] == ["GET", "GET"]


def test_the_workflows_author_is_used_without_asking_github(plans, github):
    fake, url = github
    base, head = plans
    result = _run(base, head, GITHUB_TOKEN=TOKEN, GITHUB_API_URL=url, COMMENT_AUTHOR=ACTIONS_BOT)
    assert result.returncode == 0, result.stderr
    assert [path for _, path, _ in fake.requests if path == "/user"] == []
    assert [c["user"]["login"] for c in _ours(fake)] == [ACTIONS_BOT]


@pytest.mark.parametrize("github", ["plan-bot"], ids=["personal-token"], indirect=True)
def test_a_personal_token_edits_its_own_users_comment(plans, github):
    fake, url = github
    base, head = plans
    # The Actions bot's comment (an earlier workflow) is not this token's to edit.
    fake.comments.append(
        {"id": 9002, "body": f"{MARKER}\nold", "html_url": "o", "user": {"login": ACTIONS_BOT}}
    )
    for _ in range(2):
        result = _run(base, head, GITHUB_TOKEN=TOKEN, GITHUB_API_URL=url)
        assert result.returncode == 0, result.stderr
    assert sorted(c["user"]["login"] for c in _ours(fake)) == [ACTIONS_BOT, "plan-bot"]
    assert [m for m, _, _ in fake.requests].count("PATCH") == 1
