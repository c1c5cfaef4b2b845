#!/usr/bin/env bash
# Builds one optional controller for tests/controlplane, at the version pinned in
# scripts/cluster_tools.versions, through the Go module proxy, into
# ${XDG_CACHE_HOME:-~/.cache}/nodepools/<name>-<version>/bin:
#   kueue           Kueue's controller manager (sigs.k8s.io/kueue/cmd/kueue, KUEUE=),
#                   for tests/controlplane/test_kueue_controller.py;
#   karpenter-kwok  Karpenter's controller with its KWOK cloud provider
#                   (sigs.k8s.io/karpenter/kwok, KARPENTER=), for test_karpenter_kwok.py,
#                   test_karpenter_upstream_kwok.py and test_doctor_karpenter.py.
# Idempotent: does nothing when the binary is there. `make test` (so CI, which requires them)
# builds both when Go is there; a cold build takes minutes (measured: see tests/README.md).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in
    kueue) key=KUEUE; package=sigs.k8s.io/kueue/cmd/kueue; binary=kueue; what="kueue controller" ;;
    karpenter-kwok) key=KARPENTER; package=sigs.k8s.io/karpenter/kwok; binary=kwok; what="karpenter (kwok provider)" ;;
    *) echo "usage: $0 kueue|karpenter-kwok" >&2; exit 2 ;;
esac
version="$(sed -n "s/^$key=//p" "$repo/scripts/cluster_tools.versions")"
[[ -n "$version" ]] || { echo "$what: no $key= in scripts/cluster_tools.versions" >&2; exit 1; }
bin="${XDG_CACHE_HOME:-$HOME/.cache}/nodepools/$1-$version/bin"
if [[ -x "$bin/$binary" ]]; then
    echo "$what: present ($version) in $bin"
    exit 0
fi
command -v go >/dev/null || { echo "$what: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$bin"
start=$(date +%s)
GOBIN="$bin" GOFLAGS=-trimpath nice -n 10 go install -ldflags "-s -w" "$package@$version"
echo "$what: built ($version) in $bin in $(( $(date +%s) - start )) s"
