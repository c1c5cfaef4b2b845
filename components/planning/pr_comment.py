"""Post the plan comment on a GitHub pull request, or edit the one an earlier run posted.

The comment is found by the marker its body starts with (`markdown.MARKER`) *and* its
author, so each run of the workflow updates its own comment instead of adding another, and
never edits a comment someone else wrote that happens to start with the marker (a quote,
or another bot). The author is `--author` (the workflow passes `github-actions[bot]`, the
login of comments made with the workflow's `GITHUB_TOKEN`), else the token's own user from
`GET /user`; an installation token such as `GITHUB_TOKEN` can't read `GET /user` (GitHub
answers 403 "Resource not accessible by integration"), and is then taken to be
`github-actions[bot]`. The token comes from the environment (`GITHUB_TOKEN`) and is sent
only as the Authorization header: it is never printed, logged or put in an error message.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from nodepools.planning.markdown import MARKER
from nodepools.specs.core.secret_inputs import url_problem

PAGE = 100


def _headers(token: str) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "nodepools-plan-comment",
    }


ACTIONS_BOT = "github-actions[bot]"


def token_login(client: Any, api_url: str) -> str:
    """The login the token comments as: its user, or the Actions bot for an installation
    token (which GitHub refuses `GET /user`)."""
    response = client.get(f"{api_url}/user")
    if response.status_code == 403:
        return ACTIONS_BOT
    response.raise_for_status()
    return str(response.json()["login"])


def find_comment(client: Any, api_url: str, repo: str, pr: int, author: str) -> int | None:
    """The id of the first comment on the pull request by `author` whose body starts with
    the marker."""
    page = 1
    while True:
        response = client.get(
            f"{api_url}/repos/{repo}/issues/{pr}/comments",
            params={"per_page": PAGE, "page": page},
        )
        response.raise_for_status()
        comments: list[dict[str, Any]] = response.json()
        for comment in comments:
            user: dict[str, Any] = comment.get("user") or {}
            login = user.get("login")
            if login == author and str(comment.get("body") or "").startswith(MARKER):
                return int(comment["id"])
        if len(comments) < PAGE:
            return None
        page += 1


# GitHub's rules for names: an owner is 1-39 letters, digits or single hyphens, not at
# either end; a repository 1-100 letters, digits, `.`, `_` or `-`, never `.` or `..`.
_OWNER = re.compile(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}")
_REPOSITORY = re.compile(r"[A-Za-z0-9._-]{1,100}")
_LOGIN = re.compile(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}(?:\[bot\])?")


def argument_problems(repo: str, pr: int, api_url: str, author: str | None) -> list[str]:
    """What is wrong with the arguments, found before any request is sent."""
    problems: list[str] = []
    owner, _, name = repo.partition("/")
    if not _OWNER.fullmatch(owner) or not _REPOSITORY.fullmatch(name) or name in (".", ".."):
        problems.append(
            f"--repo {repo!r}: expected OWNER/NAME, a GitHub repository such as "
            "octo-org/gpu-fleet (the workflow's GITHUB_REPOSITORY)"
        )
    if pr < 1:
        problems.append(f"--pr {pr}: a pull request number is 1 or more")
    if problem := url_problem(api_url.rstrip("/")):
        problems.append(f"--api-url {problem}")
    if author is not None and not _LOGIN.fullmatch(author):
        problems.append(f"--author {author!r}: not a GitHub login (e.g. github-actions[bot])")
    return problems


def post_comment(
    body: str,
    repo: str,
    pr: int,
    *,
    api_url: str = "https://api.github.com",
    dry_run: bool = False,
    author: str | None = None,
) -> int:
    """Create or update the comment; 0 on success, 2 on a refusal (printed without the token)."""
    problems = argument_problems(repo, pr, api_url, author)
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    if not body.startswith(MARKER):
        body = f"{MARKER}\n{body}"
    api_url = api_url.rstrip("/")
    if dry_run:
        print(
            f"dry run: would look for a comment by {author or 'the token user'} starting "
            f"with {MARKER!r} on {repo}#{pr} "
            f"({api_url}), then PATCH it or POST a new one with this body "
            f"({len(body)} characters):"
        )
        sys.stdout.write(body)
        return 0
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        print("error: GITHUB_TOKEN: not set", file=sys.stderr)
        return 2
    import httpx

    with httpx.Client(headers=_headers(token), timeout=30) as client:
        try:
            login = author or token_login(client, api_url)
            existing = find_comment(client, api_url, repo, pr, login)
            if existing is None:
                response = client.post(
                    f"{api_url}/repos/{repo}/issues/{pr}/comments", json={"body": body}
                )
            else:
                response = client.patch(
                    f"{api_url}/repos/{repo}/issues/comments/{existing}", json={"body": body}
                )
            response.raise_for_status()
        except httpx.HTTPStatusError as exc:
            # The request, not its headers: the token stays out of the message.
            print(
                f"error: {exc.request.method} {exc.request.url}: GitHub answered "
                f"{exc.response.status_code}: {exc.response.text[:500]}",
                file=sys.stderr,
            )
            return 2
        except httpx.HTTPError as exc:
            print(f"error: {api_url}: unreachable ({type(exc).__name__})", file=sys.stderr)
            return 2
    action = "posted" if existing is None else f"updated comment {existing} on"
    print(f"{action} {repo}#{pr}: {response.json().get('html_url', '')}")
    return 0
