#!/usr/bin/env bash
# Builds the Pulumi CLI (and a TypeScript SDK generator from the same module), the pulumi-kubernetes
# provider plugin and the YAML language host from the
# pinned versions in scripts/engine_tools.versions through the Go module proxy, into
# $NODEPOOLS_ENGINE_TOOLS/bin (default: ${XDG_CACHE_HOME:-~/.cache}/nodepools/engine-tools-<pulumi>-
# k8s-<provider>-yaml-<yaml>, outside the clone and keyed by the pinned versions, like
# scripts/cluster_tools.sh). Idempotent: when the binaries of the pinned versions are present, it
# does nothing. The TypeScript compiler and the Node.js SDK come from npm into <that folder>/npm.
# Lean builds: -trimpath, no DWARF (-gcflags all=-dwarf=false, -ldflags "-s -w": the same binaries,
# 15% less compile CPU; scripts/cluster_tools.sh), one module and one `go build` per tool.
# Optimised: built with -gcflags all=-N -l they compiled in a quarter less CPU time (CLI 585 s
# against 877 s, provider 1,268 s against 1,667 s) but the real-engine tests ran past 8.5 minutes
# alone instead of ~6 and put a warm CI at 16 minutes (2026-11-28): the engine's own speed is in
# the tests.
# `engine_tools.sh --download-only` writes the modules and fetches what the builds need (Go modules,
# npm packages) and builds nothing: `make test` runs it in the background while the virtualenv,
# lint and type check run; the build then finds everything fetched (a lock keeps the two apart).
# Each build's wall and CPU time and peak memory are appended to bin/.build-times.
set -euo pipefail
mode="${1:-build}"
[[ "$mode" == build || "$mode" == --download-only ]] || { echo "usage: $0 [--download-only]" >&2; exit 2; }
repo="$(cd "$(dirname "$0")/.." && pwd)"
versions_file="$repo/scripts/engine_tools.versions"
# shellcheck disable=SC1090
source <(grep -E '^[A-Z_]+=' "$versions_file")
# shellcheck source=scripts/go_download.sh
source "$repo/scripts/go_download.sh"
key="$PULUMI-k8s-$KUBERNETES_PROVIDER-yaml-$PULUMI_YAML"
tools="${NODEPOOLS_ENGINE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/nodepools/engine-tools-$key}"
stamp="$tools/bin/.versions"
want="pulumi=$PULUMI kubernetes-provider=$KUBERNETES_PROVIDER_MODULE as $KUBERNETES_PROVIDER"
want="$want sdk=$KUBERNETES_PROVIDER_SDK yaml=$PULUMI_YAML gen-nodejs-sdk"
want="$want npm=typescript@$TYPESCRIPT,@pulumi/pulumi@$PULUMI_NODEJS,@types/node@$TYPES_NODE"
binaries=(pulumi nodepools-gen-nodejs-sdk pulumi-resource-kubernetes pulumi-language-yaml)
present() {
    for b in "${binaries[@]}"; do [[ -x "$tools/bin/$b" ]] || return 1; done
    [[ -x "$tools/npm/node_modules/.bin/tsc" ]]
}
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && present; then
    echo "engine tools: present ($want) in $tools/bin"
    exit 0
fi
command -v go >/dev/null || { echo "engine tools: 'go' not found on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "engine tools: 'npm' not found on PATH" >&2; exit 1; }
mkdir -p "$tools/src" "$tools/bin"
start=$(date +%s)
nice_level="${NODEPOOLS_BUILD_NICE:-10}"  # `make test` and CI run builds at a low priority
timed() {  # timed NAME CMD...: runs CMD, appends NAME's wall/CPU/peak memory to bin/.build-times
    local name="$1"; shift
    export GOFLAGS=-mod=mod
    /usr/bin/time -a -o "$tools/bin/.build-times" \
        -f "$name: %e s wall, %U s user + %S s sys CPU, %M KB peak" "$@"
}
# replace lines of a go.mod that point at another module (not at a sibling folder of its repository)
remote_replaces() { grep -E '^replace [^ ]+ => [^.]' "$1" || true; }

# Each tool's module (in <tools>/src) and the npm folder.
pmod="$tools/src/pulumi"
kmod="$tools/src/kubernetes-provider"
kpath="github.com/pulumi/pulumi-kubernetes/provider/v4"
ymod="$tools/src/pulumi-yaml"
npm_dir="$tools/npm"

prepare() {  # writes the modules and fetches what they need
    # The Pulumi CLI: `go install pkg@version` refuses a module with replace lines, so a wrapper module
    # requires pkg/v3 and sdk/v3 at the pinned version and copies pkg's non-local replace lines.
    mkdir -p "$pmod"
    pgomod="$(module_file GoMod "github.com/pulumi/pulumi/pkg/v3@$PULUMI")"
    {
        echo "module nodepools.local/pulumicli"
        echo
        grep -m1 -E '^go [0-9]' "$pgomod"
        echo
        echo "require ("
        echo "	github.com/pulumi/pulumi/pkg/v3 $PULUMI"
        echo "	github.com/pulumi/pulumi/sdk/v3 $PULUMI"
        echo ")"
        echo
        remote_replaces "$pgomod"
    } > "$pmod/go.mod"
    # nodepools-gen-nodejs-sdk: `pulumi package gen-sdk --language nodejs` needs the Node.js language
    # host, which the proxy does not serve (sdk/nodejs/cmd/pulumi-language-nodejs); its GeneratePackage
    # calls pkg's codegen/nodejs.GeneratePackage, which this tool calls, in the same build as the CLI.
    mkdir -p "$pmod/nodepools-gen-nodejs-sdk"
    cat > "$pmod/nodepools-gen-nodejs-sdk/main.go" <<'GO'
// nodepools-gen-nodejs-sdk SCHEMA.json OUT: the TypeScript SDK of a package schema, generated as
// the Node.js language host generates it for `pulumi package gen-sdk --language nodejs --local`.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noReferences: our schema names no other package, so nothing is ever loaded.
type noReferences struct{ schema.Loader }

func (noReferences) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %q: the schema may reference no other package", pkg)
}

func (noReferences) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %q: the schema may reference no other package", d.Name)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: nodepools-gen-nodejs-sdk SCHEMA.json OUT")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	check(err)
	var spec schema.PackageSpec
	check(json.Unmarshal(data, &spec))
	loader := noReferences{schema.NewNullLoader()}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
	check(err)
	if diags.HasErrors() {
		check(diags)
	}
	files, err := nodejs.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, true, loader)
	check(err)
	for name, content := range files {
		path := filepath.Join(os.Args[2], name)
		check(os.MkdirAll(filepath.Dir(path), 0o755))
		check(os.WriteFile(path, content, 0o644))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
GO
    (cd "$pmod" && GOFLAGS=-mod=mod go get "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@$PULUMI" >/dev/null)

    # The Kubernetes provider: its cmd/pulumi-resource-kubernetes embeds schema-embed.json, generated
    # by `go generate` and not in the module zip; our main.go embeds the module's schema.json with the
    # version set (what its generate.go does) and calls the same provider.Serve.
    mkdir -p "$kmod"
    kgomod="$(module_file GoMod "$kpath@$KUBERNETES_PROVIDER_MODULE")"
    kdir="$(module_file Dir "$kpath@$KUBERNETES_PROVIDER_MODULE")"
    {
        echo "module nodepools.local/kubernetesprovider"
        echo
        grep -m1 -E '^go [0-9]' "$kgomod"
        echo
        echo "require $kpath $KUBERNETES_PROVIDER_MODULE"
        echo
        remote_replaces "$kgomod"
        echo "replace github.com/pulumi/pulumi-kubernetes/sdk/v4 => github.com/pulumi/pulumi-kubernetes/sdk/v4 $KUBERNETES_PROVIDER_SDK"
    } > "$kmod/go.mod"
    python3 - "$kdir/cmd/pulumi-resource-kubernetes" "$kmod" "$KUBERNETES_PROVIDER" <<'PY'
import json, pathlib, sys
src, dst, version = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
schema = json.loads((src / "schema.json").read_text())
schema["version"] = version
(dst / "schema-embed.json").write_text(json.dumps(schema, separators=(",", ":")))
mapping = json.loads((src / "terraform-mapping.json").read_text())
(dst / "terraform-mapping-embed.json").write_text(json.dumps(mapping, separators=(",", ":")))
PY
    cat > "$kmod/main.go" <<'GO'
// The pulumi-kubernetes provider plugin: the module's own cmd/pulumi-resource-kubernetes/main.go
// with the schema it generates at release time (schema-embed.json) written by engine_tools.sh.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
GO
    (cd "$kmod" && GOFLAGS=-mod=mod go get "$kpath/pkg/provider@$KUBERNETES_PROVIDER_MODULE" >/dev/null
     cd "$kmod" && GOFLAGS=-mod=mod go mod tidy >/dev/null)

    # The YAML language host (no replace lines: a plain module build).
    mkdir -p "$ymod"
    ygomod="$(module_file GoMod "github.com/pulumi/pulumi-yaml@$PULUMI_YAML")"
    {
        echo "module nodepools.local/pulumiyaml"
        echo
        grep -m1 -E '^go [0-9]' "$ygomod"
        echo
        echo "require github.com/pulumi/pulumi-yaml $PULUMI_YAML"
        echo
        remote_replaces "$ygomod"
    } > "$ymod/go.mod"
    (cd "$ymod" && GOFLAGS=-mod=mod go get "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$PULUMI_YAML" >/dev/null)

    # The TypeScript compiler and the Node.js SDK the generated SDK is compiled against, from npm.
    mkdir -p "$npm_dir"
    [[ -f "$npm_dir/package.json" ]] || echo '{"name": "nodepools-engine-tools", "private": true}' > "$npm_dir/package.json"
    (cd "$npm_dir" && npm install --no-audit --no-fund --silent --save-exact \
        "typescript@$TYPESCRIPT" "@pulumi/pulumi@$PULUMI_NODEJS" "@types/node@$TYPES_NODE")
}

# The modules and downloads, once per pinned set, under a lock (the background download of
# `make test` may be at it): `make test`'s build finds them ready.
exec 9>"$tools/src/.lock"
flock 9
if [[ "$(cat "$tools/src/.prepared" 2>/dev/null)" != "$want" ]]; then
    prepare
    echo "$want" > "$tools/src/.prepared"
fi
flock -u 9
if [[ "$mode" == --download-only ]]; then
    echo "engine tools: downloaded what their build needs in $(( $(date +%s) - start )) s"
    exit 0
fi

rm -f "$stamp"
# Go packages compiled without DWARF (as scripts/cluster_tools.sh); one build per module.
build() {  # build NAME MODULE_DIR LDFLAGS OUTPUT PACKAGE...
    local name="$1" dir="$2" ldflags="$3" output="$4"
    shift 4
    (cd "$dir" && timed "$name" nice -n "$nice_level" go build -trimpath -gcflags=all=-dwarf=false \
        -ldflags "-s -w $ldflags" -o "$output" "$@")
}
build pulumi "$pmod" "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI" \
    "$tools/bin/" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi ./nodepools-gen-nodejs-sdk
build pulumi-resource-kubernetes "$kmod" "-X $kpath/pkg/version.Version=$KUBERNETES_PROVIDER" \
    "$tools/bin/pulumi-resource-kubernetes" .
build pulumi-language-yaml "$ymod" "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=$PULUMI_YAML" \
    "$tools/bin/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml

echo "$want" > "$stamp"
echo "engine tools: built ($want) in $tools/bin in $(( $(date +%s) - start )) s"
