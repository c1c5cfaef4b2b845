#!/usr/bin/env bash
# Builds Kueue's controller manager (`kueue`, module sigs.k8s.io/kueue, cmd/kueue) at the
# version pinned in scripts/cluster_tools.versions (KUEUE=) through the Go module proxy, into
# ${XDG_CACHE_HOME:-~/.cache}/nodepools/kueue-<version>/bin, for the optional
# tests/controlplane/test_kueue_controller.py. Idempotent: does nothing when it is there.
# Not part of `make test` or CI: a cold build takes minutes (measured: see tests/README.md).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
KUEUE="$(sed -n 's/^KUEUE=//p' "$repo/scripts/cluster_tools.versions")"
[[ -n "$KUEUE" ]] || { echo "kueue: no KUEUE= in scripts/cluster_tools.versions" >&2; exit 1; }
bin="${XDG_CACHE_HOME:-$HOME/.cache}/nodepools/kueue-$KUEUE/bin"
if [[ -x "$bin/kueue" ]]; then
    echo "kueue controller: present ($KUEUE) in $bin"
    exit 0
fi
command -v go >/dev/null || { echo "kueue controller: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$bin"
start=$(date +%s)
GOBIN="$bin" GOFLAGS=-trimpath nice -n 10 go install -ldflags "-s -w" "sigs.k8s.io/kueue/cmd/kueue@$KUEUE"
echo "kueue controller: built ($KUEUE) in $bin in $(( $(date +%s) - start )) s"
