#!/usr/bin/env bash
# Post (or update) the pull request's plan comment: the Markdown diff of two folders of JSON
# plans (plan-all.sh's OUT/json). `nodepools diff` exits 1 when something changed: that is
# news for the comment, not a failure of this step.
# Usage: plan-comment.sh BASE_JSON_DIR HEAD_JSON_DIR
# Environment: GITHUB_REPOSITORY, PR (number), GITHUB_TOKEN, GITHUB_API_URL (optional),
#   ARTIFACT_URL (optional, linked from the comment), COMMENT_FILE (optional, where the
#   Markdown is written), COMMENT_AUTHOR (optional: the login whose comment is edited;
#   default the token's user, github-actions[bot] for the workflow's GITHUB_TOKEN),
#   DRY_RUN=1 (print the comment, send nothing), PYTHON.
set -euo pipefail
base=${1:?usage: plan-comment.sh BASE_JSON_DIR HEAD_JSON_DIR}
head=${2:?usage: plan-comment.sh BASE_JSON_DIR HEAD_JSON_DIR}
python=${PYTHON:-.venv/bin/python}
comment=${COMMENT_FILE:-$(mktemp)}
mkdir -p "$base"
status=0
"$python" -m nodepools diff "$base" "$head" --format markdown \
  ${ARTIFACT_URL:+--artifact-url "$ARTIFACT_URL"} --output "$comment" || status=$?
if [ "$status" -ge 2 ]; then
  exit "$status"
fi
args=(--body "$comment" --repo "${GITHUB_REPOSITORY:?}" --pr "${PR:?}"
  --api-url "${GITHUB_API_URL:-https://api.github.com}")
if [ -n "${COMMENT_AUTHOR:-}" ]; then
  args+=(--author "$COMMENT_AUTHOR")
fi
if [ "${DRY_RUN:-0}" = 1 ]; then
  args+=(--dry-run)
fi
"$python" -m nodepools pr-comment "${args[@]}"
