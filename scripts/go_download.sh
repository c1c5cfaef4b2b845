# Sourced by scripts/cluster_tools.sh and scripts/engine_tools.sh.

# module_file FIELD MODULE@VERSION: fetches MODULE@VERSION into Go's module cache through the module
# proxy and prints FIELD of what `go mod download -json` says of it: GoMod (the path of its go.mod)
# or Dir (its extracted files). Run outside any module, so no go.mod around decides anything.
module_file() {
    (cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod go mod download -json "$2" \
        | sed -n 's/^[[:space:]]*"'"$1"'": "\(.*\)",$/\1/p')
}
