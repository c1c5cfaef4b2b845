#!/usr/bin/env bash
# Builds helm (module helm.sh/helm/v3, package cmd/helm) at the version pinned in
# scripts/cluster_tools.versions (HELM=) through the Go module proxy, into
# ${XDG_CACHE_HOME:-~/.cache}/nodepools/helm-<version>/bin, for tests/charts (`helm template` of
# every release an AcceleratorStack registers). Idempotent: does nothing when the binary of the
# pinned version is there. Flags as helm's own Makefile: the version stamped into
# internal/version (`helm version` says the release, not "v3.22"), and the default Kubernetes
# version of `.Capabilities` from the client-go helm pins (1.20 otherwise).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's/^HELM=//p' "$repo/scripts/cluster_tools.versions")"
[[ -n "$version" ]] || { echo "helm: no HELM= in scripts/cluster_tools.versions" >&2; exit 1; }
bin="${NODEPOOLS_HELM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nodepools/helm-$version/bin}"
if [[ -x "$bin/helm" ]] && "$bin/helm" version --template '{{.Version}}' 2>/dev/null | grep -qx "$version"; then
    echo "helm: present ($version) in $bin"
    exit 0
fi
command -v go >/dev/null || { echo "helm: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$bin"
start=$(date +%s)
gomod="$(GOFLAGS=-mod=mod go mod download -json "helm.sh/helm/v3@$version" \
    | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
[[ -f "$gomod" ]] || { echo "helm: no go.mod for helm.sh/helm/v3@$version" >&2; exit 1; }
client_go="$(sed -n 's/^[[:space:]]*k8s\.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$gomod")"
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$version"
ldflags="$ldflags -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
ldflags="$ldflags -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1"
ldflags="$ldflags -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$client_go"
GOBIN="$bin" nice -n 10 go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$version"
echo "helm: built ($version) in $bin in $(( $(date +%s) - start )) s"
