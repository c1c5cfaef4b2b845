#!/usr/bin/env bash
# Builds the real control-plane programs the tests run, from the versions pinned in
# scripts/cluster_tools.versions, through the Go module proxy, into folders outside the clone keyed
# by those versions (so every clone and CI run on a machine shares one build):
#   control-plane   kube-apiserver, kube-scheduler, kube-controller-manager and etcd, into
#                   $NODEPOOLS_CLUSTER_TOOLS/bin (default ~/.cache/nodepools/cluster-tools-<k8s>-etcd-<etcd>)
#   helm            helm, into $NODEPOOLS_HELM_DIR (default ~/.cache/nodepools/helm-<version>/bin)
#   kueue           Kueue's controller manager, into ~/.cache/nodepools/kueue-<version>/bin
#   karpenter-kwok  Karpenter's controller with its KWOK provider, into ~/.cache/nodepools/karpenter-kwok-<version>/bin
# (~/.cache is ${XDG_CACHE_HOME:-~/.cache}.) Idempotent: a tool whose binaries carry the pinned
# versions' stamp is not built again. `cluster_tools.sh TOOL --download-only` fetches what TOOL's
# build needs from the Go module proxy (its module written and tidied) and builds nothing: `make
# test` runs it for every tool in the background while the virtualenv, lint and type check run.
#
# Every tool is compiled without DWARF (-gcflags all=-dwarf=false; the linker's -s -w then has none
# to strip): the binaries are the same (symbols and line tables, which panics print, stay) and
# helm compiled in 15% less CPU (388 -> 330 CPU-s, 208 -> 174 s wall, cold build cache, 2026-11-28).
#
# The control plane, helm and Karpenter are built from ONE Go module (nodepools.local/clustertools,
# kept in ~/.cache/nodepools/go-module-cluster-<key>). Built each from its own module, they pin
# different versions of the same Kubernetes libraries (k8s.io/* v0.35 to v0.37, controller-runtime,
# grpc, ...), so Go compiled client-go and its kin once per tool: 179 MB of Go source for the four,
# 97 MB of it distinct. In one module Go's version selection picks one version of each library
# (the highest any of them asks for; the k8s.io staging modules at the pinned Kubernetes release,
# by the replace lines generated from its own go.mod), and a package compiled for one tool is in
# Go's build cache for the next (same module graph, same flags). The programs are the releases' own
# code; Karpenter links the newer libraries of the pinned Kubernetes release (k8s.io v0.37 for its
# v0.35), which its tests against our apiserver of that release exercise. Kueue is built from its
# own module: two of its dependencies (sigs.k8s.io/scheduler-library v0.1.0-alpha1, the only one
# served, and kubeflow trainer's generated OpenAPI) do not compile against k8s.io v0.37.
# Go's module and build caches are the user's (GOMODCACHE/GOCACHE, outside the clone).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
versions_file="$repo/scripts/cluster_tools.versions"
# shellcheck disable=SC1090
source <(grep -E '^[A-Z_]+=' "$versions_file")
# shellcheck source=scripts/go_download.sh
source "$repo/scripts/go_download.sh"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/nodepools"
module_key="k8s-$KUBERNETES-etcd-$ETCD-helm-$HELM-karpenter-$KARPENTER-cr-$CONTROLLER_RUNTIME"
k8s_version_pkg="k8s.io/component-base/version"

tool="${1:-control-plane}"
mode="${2:-build}"
[[ "$mode" == build || "$mode" == --download-only ]] || { echo "usage: $0 TOOL [--download-only]" >&2; exit 2; }
case "$tool" in
    control-plane)
        what="cluster tools"
        bin="${NODEPOOLS_CLUSTER_TOOLS:-$cache/cluster-tools-$KUBERNETES-etcd-$ETCD}/bin"
        binaries=(kube-apiserver kube-scheduler kube-controller-manager etcd)
        # `version=stamped`: the binaries report their release (kube-apiserver's /version says
        # v1.37.2, not v0.0.0-master; controllers such as Kueue's refuse to start on the latter).
        # kube-controller-manager: the garbage-collector and namespace controllers the real-engine
        # tests need (the Kubernetes provider deletes in the foreground).
        want="kubernetes=$KUBERNETES etcd=$ETCD version=stamped controller-manager" ;;
    helm)
        what="helm"
        bin="${NODEPOOLS_HELM_DIR:-$cache/helm-$HELM/bin}"
        binaries=(helm)
        want="helm=$HELM" ;;
    kueue)
        what="kueue controller"
        bin="$cache/kueue-$KUEUE/bin"
        binaries=(kueue)
        want="kueue=$KUEUE own-module" ;;
    karpenter-kwok)
        what="karpenter (kwok provider)"
        bin="$cache/karpenter-kwok-$KARPENTER/bin"
        binaries=(kwok)
        want="karpenter=$KARPENTER" ;;
    *) echo "usage: $0 [control-plane|helm|kueue|karpenter-kwok] [--download-only]" >&2; exit 2 ;;
esac
[[ "$tool" == kueue ]] || want="$want module=$module_key"
stamp="$bin/.versions"
present() {
    for b in "${binaries[@]}"; do [[ -x "$bin/$b" ]] || return 1; done
}
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && present; then
    echo "$what: present ($want) in $bin"
    exit 0
fi
command -v go >/dev/null || { echo "$what: 'go' not found on PATH" >&2; exit 1; }
export GOFLAGS=-mod=mod
start=$(date +%s)

# The shared module: written once per module key; `go mod tidy` records every module the main
# packages need (and downloads them). Under a lock: the background download may be writing it.
mod="$cache/go-module-cluster-$module_key"
mkdir -p "$cache"
exec 9>"$mod.lock"
flock 9
if [[ "$tool" != kueue && ! -f "$mod/.ready" ]]; then
    mkdir -p "$mod"
    modules=("k8s.io/kubernetes@$KUBERNETES" "go.etcd.io/etcd/server/v3@$ETCD" "helm.sh/helm/v3@$HELM"
             "sigs.k8s.io/karpenter@$KARPENTER" "sigs.k8s.io/controller-runtime@$CONTROLLER_RUNTIME")
    gomods=()
    for m in "${modules[@]}"; do
        f="$(module_file GoMod "$m")"
        [[ -f "$f" ]] || { echo "$what: no go.mod for $m" >&2; exit 1; }
        gomods+=("$f")
    done
    # the highest `go` line of them (no module may ask for a newer Go than its main module)
    go_version="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "${gomods[@]}" | sort -V | tail -1)"
    staging_version="v0.${KUBERNETES#v1.}"  # v1.37.2 -> v0.37.2
    {
        printf 'module nodepools.local/clustertools\n\ngo %s\n\nrequire (\n' "$go_version"
        for m in "${modules[@]}"; do printf '\t%s %s\n' "${m%@*}" "${m#*@}"; done
        printf ')\n\nreplace (\n'
        # every staging module kubernetes replaces with ./staging/src/... -> its released version
        sed -n 's#^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/src/.*#\t\1 => \1 '"$staging_version"'#p' \
            "${gomods[0]}"
        printf ')\n'
    } > "$mod/go.mod"
    cat > "$mod/tools.go" <<'GO'
//go:build tools

// The main packages built from this module, so `go mod tidy` keeps what they need.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "helm.sh/helm/v3/cmd/helm"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "sigs.k8s.io/karpenter/kwok"
)
GO
    (cd "$mod" && go mod tidy >/dev/null)
    touch "$mod/.ready"
fi
flock -u 9
if [[ "$mode" == --download-only ]]; then
    if [[ "$tool" == kueue ]]; then
        # What `go install sigs.k8s.io/kueue/cmd/kueue@VERSION` will need: the same build list
        # (Kueue's go.mod alone decides it, as here), fetched by loading the package in a scratch
        # module.
        scratch="$(mktemp -d)"
        trap 'rm -rf "$scratch"' EXIT
        printf 'module nodepools.local/kueuedownload\n' > "$scratch/go.mod"
        if ! (cd "$scratch" && go get "sigs.k8s.io/kueue/cmd/kueue@$KUEUE" 2>/dev/null \
                && go list -deps sigs.k8s.io/kueue/cmd/kueue >/dev/null); then
            echo "$what: download failed (its build will fetch again)" >&2
            exit 1
        fi
    fi
    echo "$what: downloaded what its build needs in $(( $(date +%s) - start )) s"
    exit 0
fi

# build LDFLAGS OUTPUT PACKAGE...: the same compile flags for every tool (-trimpath, no DWARF), so
# the build cache serves each the packages another compiled; builds run at a low priority.
build() {
    local ldflags="$1" output="$2"
    shift 2
    (cd "$mod" && nice -n "${NODEPOOLS_BUILD_NICE:-10}" go build -trimpath -gcflags=all=-dwarf=false \
        -ldflags "-s -w $ldflags" -o "$output" "$@")
}
mkdir -p "$bin"
rm -f "$stamp"
case "$tool" in
    control-plane)
        k8s_minor_patch="${KUBERNETES#v1.}"
        ldflags="-X $k8s_version_pkg.gitVersion=$KUBERNETES -X $k8s_version_pkg.gitMajor=1"
        ldflags="$ldflags -X $k8s_version_pkg.gitMinor=${k8s_minor_patch%%.*}"
        ldflags="$ldflags -X $k8s_version_pkg.gitTreeState=clean"
        build "$ldflags" "$bin/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler \
            k8s.io/kubernetes/cmd/kube-controller-manager
        build "" "$bin/etcd" go.etcd.io/etcd/server/v3 ;;
    helm)
        # As helm's own Makefile: the release stamped into internal/version (`helm version` says
        # v3.22.0), and `.Capabilities`' default Kubernetes minor from the client-go it links.
        client_go="$(cd "$mod" && go list -m -f '{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}' \
            k8s.io/client-go)"  # v0.37.2
        client_go_minor="${client_go#v0.}"
        ldflags="-X helm.sh/helm/v3/internal/version.version=$HELM"
        ldflags="$ldflags -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
        ldflags="$ldflags -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1"
        ldflags="$ldflags -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${client_go_minor%%.*}"
        build "$ldflags" "$bin/helm" helm.sh/helm/v3/cmd/helm ;;
    kueue)  # its own module (no replace lines: `go install` builds it as released)
        GOBIN="$bin" GOFLAGS=-trimpath nice -n "${NODEPOOLS_BUILD_NICE:-10}" go install \
            -gcflags=all=-dwarf=false -ldflags "-s -w" "sigs.k8s.io/kueue/cmd/kueue@$KUEUE" ;;
    karpenter-kwok)
        build "" "$bin/kwok" sigs.k8s.io/karpenter/kwok ;;
esac
echo "$want" > "$stamp"
echo "$what: built ($want) in $bin in $(( $(date +%s) - start )) s"
