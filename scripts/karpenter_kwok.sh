#!/usr/bin/env bash
# Builds Karpenter's controller with its KWOK cloud provider (`kwok`, package
# sigs.k8s.io/karpenter/kwok of module sigs.k8s.io/karpenter) at the version pinned in
# scripts/cluster_tools.versions (KARPENTER=) through the Go module proxy, into
# ${XDG_CACHE_HOME:-~/.cache}/nodepools/karpenter-kwok-<version>/bin, for the optional
# tests/controlplane/test_karpenter_kwok.py. Idempotent: does nothing when it is there.
# Not part of `make test` or CI: a cold build takes minutes (measured: see tests/README.md).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
KARPENTER="$(sed -n 's/^KARPENTER=//p' "$repo/scripts/cluster_tools.versions")"
[[ -n "$KARPENTER" ]] || { echo "karpenter: no KARPENTER= in scripts/cluster_tools.versions" >&2; exit 1; }
bin="${XDG_CACHE_HOME:-$HOME/.cache}/nodepools/karpenter-kwok-$KARPENTER/bin"
if [[ -x "$bin/kwok" ]]; then
    echo "karpenter (kwok provider): present ($KARPENTER) in $bin"
    exit 0
fi
command -v go >/dev/null || { echo "karpenter (kwok provider): 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$bin"
start=$(date +%s)
GOBIN="$bin" GOFLAGS=-trimpath nice -n 10 go install -ldflags "-s -w" "sigs.k8s.io/karpenter/kwok@$KARPENTER"
echo "karpenter (kwok provider): built ($KARPENTER) in $bin in $(( $(date +%s) - start )) s"
