"""Regenerate components/specs/pools/data/kubelet_config_fields.json: every field of the
KubeletConfiguration (kubelet.config.k8s.io/v1beta1) by its JSON name, with the kind of
value it takes, so `node_config.kubelet` is checked against the real type.

Usage:
    python scripts/kubelet_config_fields.py [VERSION | PATH/TO/types.go]

With a version (default below), the k8s.io/kubelet module is fetched through the Go module
proxy (`go mod download -json k8s.io/kubelet@VERSION`) and its `config/v1beta1/types.go`
read. Kinds: bool, int, float, string, duration (metav1.Duration: a Go duration string
such as `2m0s`), string-map, bool-map, string-list-map, list, object (anything else).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

VERSION = "v0.37.2"
OUT = (
    Path(__file__).resolve().parent.parent
    / "components/specs/pools/data/kubelet_config_fields.json"
)

_STRUCT = re.compile(r"^type KubeletConfiguration struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_FIELD = re.compile(r"^\s+\w+\s+(\S+)\s+`json:\"([A-Za-z0-9]+)(?:,[a-z]+)*\"`", re.MULTILINE)
_STRING_ALIAS = re.compile(r"^type (\w+) string$", re.MULTILINE)
_SCALARS = {
    "bool": "bool",
    "int32": "int",
    "int64": "int",
    "float64": "float",
    "string": "string",
    "metav1.Duration": "duration",
    "map[string]string": "string-map",
    "map[string]bool": "bool-map",
    "map[string][]string": "string-list-map",
}


def kind_of(go_type: str, string_aliases: set[str]) -> str:
    bare = go_type.removeprefix("*")
    if bare in _SCALARS:
        return _SCALARS[bare]
    if bare in string_aliases:
        return "string"
    if bare.startswith("[]"):
        return "list"
    return "object"


def fields(types_go: str) -> dict[str, str]:
    match = _STRUCT.search(types_go)
    if match is None:
        raise SystemExit("no `type KubeletConfiguration struct` in the file")
    aliases = set(_STRING_ALIAS.findall(types_go))
    found = {name: kind_of(go_type, aliases) for go_type, name in _FIELD.findall(match.group(1))}
    return dict(sorted(found.items()))


def types_go_of(version: str) -> str:
    listing = subprocess.run(
        ["go", "mod", "download", "-json", f"k8s.io/kubelet@{version}"],
        check=True,
        capture_output=True,
        text=True,
    )
    directory = Path(json.loads(listing.stdout)["Dir"])
    return (directory / "config/v1beta1/types.go").read_text()


def main(argv: list[str]) -> None:
    source = argv[0] if argv else VERSION
    if source.endswith(".go"):
        text, version = Path(source).read_text(), "(from " + Path(source).name + ")"
    else:
        text, version = types_go_of(source), source
    document = {"module": "k8s.io/kubelet", "version": version, "fields": fields(text)}
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"{OUT}: {len(document['fields'])} fields")


if __name__ == "__main__":
    main(sys.argv[1:])
