#!/usr/bin/env bash
# Plan every stack of the checkout in the current folder offline, into OUT:
#   OUT/json/<stack>.json   the JSON plan (`nodepools plan --format json`), what `nodepools diff` reads
#   OUT/<stack>/            plan.json, capacity.svg and the rendered manifests (`plan --out`)
# A stack whose plan fails validation still writes its JSON (status "failed"); a checkout
# whose nodepools cannot write JSON plans (exit status 2: an error, or an older release)
# writes none for that stack, so a diff against it shows the stack as new.
# Usage: plan-all.sh OUT   (PYTHON: the interpreter with nodepools, default .venv/bin/python)
set -uo pipefail
out=${1:?usage: plan-all.sh OUT}
python=${PYTHON:-.venv/bin/python}
mkdir -p "$out/json"
for file in stacks/Pulumi.*.yaml; do
  [ -e "$file" ] || continue
  stack=${file#stacks/Pulumi.}
  stack=${stack%.yaml}
  "$python" -m nodepools plan --stack "$stack" --format json --out "$out/$stack" >"$out/json/$stack.json"
  status=$?
  if [ "$status" -ge 2 ]; then
    echo "plan-all: stack $stack: no JSON plan (exit status $status)" >&2
    rm -f "$out/json/$stack.json"
  fi
done
