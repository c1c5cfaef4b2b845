#!/usr/bin/env bash
# Builds kube-apiserver, kube-scheduler, kube-controller-manager and etcd from the pinned versions in
# scripts/cluster_tools.versions through the Go module proxy, into $NODEPOOLS_CLUSTER_TOOLS/bin
# (default: ${XDG_CACHE_HOME:-~/.cache}/nodepools/cluster-tools-<kubernetes>-etcd-<etcd>, outside
# the clone and keyed by the pinned versions, so every clone and CI run on a machine shares one
# build). Idempotent: when the binaries of the pinned versions are present, it does nothing.
# Go's module and build caches are the user's (GOMODCACHE/GOCACHE, outside the clone), so a
# second clone on the same machine reuses them; only a machine with empty caches is cold.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
versions_file="$repo/scripts/cluster_tools.versions"
# shellcheck disable=SC1090
source <(grep -E '^[A-Z_]+=' "$versions_file")
tools="${NODEPOOLS_CLUSTER_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/nodepools/cluster-tools-$KUBERNETES-etcd-$ETCD}"
stamp="$tools/bin/.versions"
# `version=stamped`: the binaries report their release (kube-apiserver's /version says
# v1.37.2, not v0.0.0-master; controllers such as Kueue's refuse to start on the latter).
# `controller-manager`: kube-controller-manager is built too (the garbage-collector and namespace
# controllers the real-engine tests need: the Kubernetes provider deletes in the foreground).
want="kubernetes=$KUBERNETES etcd=$ETCD version=stamped controller-manager"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] \
    && [[ -x "$tools/bin/kube-apiserver" && -x "$tools/bin/kube-scheduler" && -x "$tools/bin/etcd" ]] \
    && [[ -x "$tools/bin/kube-controller-manager" ]]; then
    echo "cluster tools: present ($want) in $tools/bin"
    exit 0
fi
command -v go >/dev/null || { echo "cluster tools: 'go' not found on PATH" >&2; exit 1; }
mkdir -p "$tools/src" "$tools/bin"
start=$(date +%s)

# kube-apiserver, kube-scheduler, kube-controller-manager: one module, one build (they share most
# packages).
k8s_minor_patch="${KUBERNETES#v1.}"          # 37.2
staging_version="v0.${k8s_minor_patch}"     # v0.37.2
mod="$tools/src/kubernetes"
mkdir -p "$mod"
kmod="$(cd "$mod" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBERNETES" \
    | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
[[ -f "$kmod" ]] || { echo "cluster tools: no go.mod for k8s.io/kubernetes@$KUBERNETES" >&2; exit 1; }
go_line="$(grep -m1 -E '^go [0-9]' "$kmod")"
{
    echo "module nodepools.local/clustertools"
    echo
    echo "$go_line"
    echo
    echo "require k8s.io/kubernetes $KUBERNETES"
    echo
    echo "replace ("
    # every staging module kubernetes replaces with ./staging/src/... -> its released version
    sed -n 's#^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/src/.*#\t\1 => \1 '"$staging_version"'#p' "$kmod"
    echo ")"
} > "$mod/go.mod"
cat > "$mod/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO
k8s_minor="${k8s_minor_patch%%.*}"
version_pkg="k8s.io/component-base/version"
k8s_ldflags="-s -w -X $version_pkg.gitVersion=$KUBERNETES -X $version_pkg.gitMajor=1"
k8s_ldflags="$k8s_ldflags -X $version_pkg.gitMinor=$k8s_minor -X $version_pkg.gitTreeState=clean"
build_flags=(-trimpath -ldflags "-s -w")
(cd "$mod" && go mod tidy -e >/dev/null 2>&1 || true
 cd "$mod" && GOFLAGS=-mod=mod go get "k8s.io/kubernetes@$KUBERNETES" >/dev/null
 cd "$mod" && GOFLAGS=-mod=mod nice -n 10 go build -trimpath -ldflags "$k8s_ldflags" -o "$tools/bin/" \
     k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler \
     k8s.io/kubernetes/cmd/kube-controller-manager)

# etcd: its own module (its dependency versions are its own, not kubernetes').
emod="$tools/src/etcd"
mkdir -p "$emod"
printf 'module nodepools.local/etcdtool\n\ngo 1.25\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD" > "$emod/go.mod"
(cd "$emod" && GOFLAGS=-mod=mod go get "go.etcd.io/etcd/server/v3@$ETCD" >/dev/null
 cd "$emod" && GOFLAGS=-mod=mod nice -n 10 go build "${build_flags[@]}" -o "$tools/bin/etcd" go.etcd.io/etcd/server/v3)

echo "$want" > "$stamp"
echo "cluster tools: built ($want) in $tools/bin in $(( $(date +%s) - start )) s"
