"""Extract the facts nodepools needs about NVIDIA OSMO's config API into
components/specs/governance/data/osmo_config.json.

nodepools never imports or reads OSMO at run or test time: it reads the JSON this script
writes. The script reads OSMO's Python sources as text (``ast``, nothing is imported or
run) from a checkout of https://github.com/NVIDIA/OSMO, a work tree or a bare git
directory:

- ``src/utils/connectors/postgres.py``: the pool and platform models (``PoolBase``,
  ``PoolEditable``, ``PlatformBase``, ``PlatformMinimal``, ``PlatformEditable``), the
  resource-validation rule (``ResourceAssertion`` and its operators) and ``Toleration``;
- ``src/lib/utils/role.py``: ``Role``, ``RolePolicy``, the semantic action pattern, sync
  modes and policy effects;
- ``src/service/core/config/objects.py``: OSMO's built-in pod templates
  (``DEFAULT_POD_TEMPLATES``), resource validations (``DEFAULT_RESOURCE_CHECKS``) and
  default variables (``DEFAULT_VARIABLES``), which the service installs itself;
- ``src/lib/utils/common.py``: ``CONFIG_NAME_REGEX`` (names of templates, pools, ...);
- ``src/cli/config.py``: how ``osmo config update`` sends each config type
  (``UPDATE_CONFIG_API_MAPPING``: method and payload key, whole or named) and which types
  it can delete;
- ``src/service/core/config/config_service.py``: the config API routes;
- ``src/lib/utils/login.py``: the auth header and the token-exchange path of ``osmo login
  --method token``.

The legacy role action form the OSMO pool documentation shows (``actions: [{base, path,
method}]``) is read from ``role.py`` at ``--legacy-role-rev`` (a git revision of the same
checkout): its patterns and accepted methods. How ``osmo config set ROLE <osmo-pool> pool``
writes a pool role is read from ``create_role`` in ``src/cli/config.py`` at both revisions
(legacy actions then, semantic policies now): that pair is how a legacy pool role is
translated.

``rules`` lists every check OSMO's models apply to the documents nodepools sends, derived
from the above: required fields, enum fields (with their values) and string patterns.

Usage (from the repository root)::

    python scripts/extract_osmo_facts.py OSMO_CHECKOUT [--rev HEAD] [--legacy-role-rev REV]
    python scripts/extract_osmo_facts.py OSMO_CHECKOUT --check   # exit 1 when stale
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "components" / "specs" / "governance" / "data" / "osmo_config.json"
POSTGRES = "src/utils/connectors/postgres.py"
ROLE = "src/lib/utils/role.py"
OBJECTS = "src/service/core/config/objects.py"
COMMON = "src/lib/utils/common.py"
CLI = "src/cli/config.py"
SERVICE = "src/service/core/config/config_service.py"
LOGIN = "src/lib/utils/login.py"
MODELS = {
    POSTGRES: (
        "PoolBase",
        "PoolEditable",
        "PlatformBase",
        "PlatformMinimal",
        "PlatformEditable",
        "ResourceAssertion",
        "Toleration",
        "TopologyKey",
        "PoolResources",
        "PoolResourceCountable",
    ),
    ROLE: ("Role", "RolePolicy"),
}
CONFIG_TYPES = ("POD_TEMPLATE", "RESOURCE_VALIDATION", "POOL", "ROLE")


class Source:
    """Files of an OSMO checkout: a work tree, or a git directory read at a revision."""

    def __init__(self, root: Path, rev: str) -> None:
        self.root = root
        self.rev = rev
        self.git = not (root / "src").is_dir()

    def commit(self, rev: str | None = None) -> str | None:
        try:
            out = subprocess.run(
                [
                    "git",
                    "--git-dir" if self.git else "-C",
                    str(self.root),
                    "rev-parse",
                    rev or self.rev,
                ],
                check=True,
                capture_output=True,
                text=True,
            )
        except (subprocess.CalledProcessError, FileNotFoundError):
            return None
        return out.stdout.strip()

    def read(self, path: str, rev: str | None = None) -> str:
        if not self.git and rev is None:
            return (self.root / path).read_text()
        args = [
            "git",
            "--git-dir" if self.git else "-C",
            str(self.root),
            "show",
            f"{rev or self.rev}:{path}",
        ]
        return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def _parse(text: str) -> ast.Module:
    """The module's top-level statements that this Python can parse.

    OSMO targets a newer Python (PEP 701 f-strings): a file is split into top-level blocks
    (a line at column 0 starts one) and each is parsed alone; blocks this interpreter
    cannot parse are skipped, and a fact that lives in one is reported missing (KeyError)."""
    lines = text.splitlines(keepends=True)
    starts = [
        i
        for i, line in enumerate(lines)
        if line[:1] not in ("", " ", "\t", "\n", ")", "]", "}", "#")
        and not (i and lines[i - 1].startswith("@"))
    ]
    body: list[ast.stmt] = []
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        try:
            body += ast.parse("".join(lines[start:end])).body
        except SyntaxError:
            continue
    return ast.Module(body=body, type_ignores=[])


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def _model(node: ast.ClassDef) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    extra = None
    for keyword in node.keywords:
        if keyword.arg == "extra":
            extra = ast.literal_eval(keyword.value)
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            name = item.target.id
            if name == "model_config":
                continue
            field: dict[str, Any] = {"type": ast.unparse(item.annotation)}
            if item.value is None:
                field["required"] = True
            else:
                field["default"] = ast.unparse(item.value)
            fields[name] = field
        elif (
            isinstance(item, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "model_config" for t in item.targets)
            and isinstance(item.value, ast.Call)
        ):
            for keyword in item.value.keywords:
                if keyword.arg == "extra":
                    extra = ast.literal_eval(keyword.value)
    bases = [ast.unparse(base) for base in node.bases]
    return {"bases": bases, "extra": extra, "fields": fields}


def _enum_values(node: ast.ClassDef) -> list[str]:
    return [
        ast.literal_eval(item.value)
        for item in node.body
        if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)
    ]


def _assignments(tree: ast.Module) -> dict[str, ast.expr]:
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            found[node.target.id] = node.value
    return found


def _update_mapping(tree: ast.Module) -> dict[str, Any]:
    value = _assignments(tree)["UPDATE_CONFIG_API_MAPPING"]
    assert isinstance(value, ast.Dict)
    mapping: dict[str, Any] = {}
    for key, entry in zip(value.keys, value.values, strict=True):
        config_type = ast.unparse(key).rsplit(".", 1)[-1]
        assert isinstance(entry, ast.Dict)
        modes: dict[str, Any] = {}
        for mode, spec in zip(entry.keys, entry.values, strict=True):
            if isinstance(spec, ast.Constant) and spec.value is None:
                modes[ast.literal_eval(mode)] = None
                continue
            assert isinstance(spec, ast.Dict)
            items = dict(zip((ast.literal_eval(k) for k in spec.keys), spec.values, strict=True))
            modes[ast.literal_eval(mode)] = {
                "method": ast.unparse(items["method"]).rsplit(".", 1)[-1],
                "payload_key": ast.literal_eval(items["payload_key"]),
            }
        mapping[config_type] = modes
    return mapping


def _routes(tree: ast.Module) -> list[list[str]]:
    routes = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and isinstance(decorator.func, ast.Attribute)
                and ast.unparse(decorator.func.value) == "router"
                and decorator.args
                and isinstance(decorator.args[0], ast.Constant)
            ):
                path = decorator.args[0].value
                if any(f"/api/configs/{t.lower()}" in path for t in CONFIG_TYPES):
                    routes.append([decorator.func.attr.upper(), path, node.name])
    return sorted(routes)


def _legacy_action(text: str) -> dict[str, str]:
    values = _assignments(_parse(text))
    return {
        key: ast.literal_eval(values[name])
        for key, name in (
            ("base", "ROLE_ACTION_BASE"),
            ("path", "ROLE_ACTION_PATH"),
            ("method", "ROLE_ACTION_METHOD"),
        )
        if name in values and isinstance(values[name], ast.Constant)
    }


def _legacy_methods(text: str) -> list[str]:
    """The methods the legacy ``RolePolicy`` accepted (``valid_methods``)."""
    for node in ast.walk(_parse(text)):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "valid_methods" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise KeyError("valid_methods")


def _pool_role(text: str) -> dict[str, Any]:
    """What ``create_role(SetRoleType.POOL, "osmo-<pool>")`` writes: the role name prefix and
    its policies, ``{pool_name}`` left as a placeholder."""
    tree = _parse(text)
    create = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "create_role"
    )
    branch = next(
        node
        for node in ast.walk(create)
        if isinstance(node, ast.If) and "SetRoleType.POOL" in ast.unparse(node.test)
    )
    body = ast.Module(body=branch.body, type_ignores=[])
    prefix = next(
        ast.literal_eval(node.args[0])
        for node in ast.walk(body)
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("startswith")
    )

    def text_of(value: ast.expr) -> str:
        if isinstance(value, ast.JoinedStr):
            return "".join(
                part.value
                if isinstance(part, ast.Constant)
                else "{" + ast.unparse(part.value) + "}"  # type: ignore[attr-defined]
                for part in value.values
            )
        return ast.literal_eval(value)

    policies = []
    for node in ast.walk(body):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("RolePolicy"):
            policy: dict[str, Any] = {}
            for keyword in node.keywords:
                assert isinstance(keyword.value, ast.List)
                policy[str(keyword.arg)] = [text_of(e) for e in keyword.value.elts]
            policies.append(policy)
    return {"name_prefix": prefix, "policies": policies}


def _builtin_role(tree: ast.Module, name: str) -> dict[str, Any]:
    """The policies of one of OSMO's built-in roles (``osmo-default``: what every user has)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == name
                    and isinstance(value, ast.Call)
                ):
                    policies = next(k.value for k in value.keywords if k.arg == "policies")
                    assert isinstance(policies, ast.List)
                    return {
                        "name": name,
                        "policies": [
                            {str(k.arg): ast.literal_eval(k.value) for k in policy.keywords}  # type: ignore[attr-defined]
                            for policy in policies.elts
                        ],
                    }
    raise KeyError(name)


def _rules(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Every check OSMO's models apply to a document we send, one per (model, field)."""
    enums = facts["enums"]
    rules: list[dict[str, Any]] = []
    for model, spec in sorted(facts["models"].items()):
        for field, info in sorted(spec["fields"].items()):
            if info.get("required"):
                rules.append({"model": model, "field": field, "rule": "required"})
            kind = info["type"].split(" |")[0].rsplit(".", 1)[-1]
            if kind in enums:
                rules.append(
                    {"model": model, "field": field, "rule": "enum", "values": enums[kind]}
                )
    patterns = [
        ("RolePolicy", "actions[]", facts["semantic_action_pattern"]),
        *(
            ("RoleAction", key, f"^{value}$")
            for key, value in sorted(facts.get("legacy_role_action", {}).items())
            if key != "revision"
        ),
        # config_service's `_check_config_name` on each name a PUT carries
        ("PoolBase", "name", facts["config_name_regex"]),
        ("PoolEditable", "platforms{}", facts["config_name_regex"]),
        ("PodTemplate", "name", facts["config_name_regex"]),
        ("ResourceValidation", "name", facts["config_name_regex"]),
    ]
    rules += [
        {"model": model, "field": field, "rule": "pattern", "pattern": pattern}
        for model, field, pattern in patterns
    ]
    if "legacy_role_methods" in facts:
        rules.append(
            {
                "model": "RoleAction",
                "field": "method",
                "rule": "enum",
                "values": facts["legacy_role_methods"],
                "case_insensitive": True,
            }
        )
    return rules


def extract(source: Source, legacy_rev: str | None) -> dict[str, Any]:
    trees = {
        path: _parse(source.read(path))
        for path in (POSTGRES, ROLE, OBJECTS, COMMON, CLI, SERVICE, LOGIN)
    }
    models: dict[str, Any] = {}
    for path, names in MODELS.items():
        classes = _classes(trees[path])
        for name in names:
            models[name] = {"source": path, **_model(classes[name])}
    postgres = _classes(trees[POSTGRES])
    role = _classes(trees[ROLE])
    objects = _assignments(trees[OBJECTS])
    role_values = _assignments(trees[ROLE])
    login = _assignments(trees[LOGIN])
    refresh = next(
        node
        for node in ast.walk(trees[LOGIN])
        if isinstance(node, ast.FunctionDef) and node.name == "construct_token_refresh_url"
    )
    refresh_path = next(
        n.value
        for n in ast.walk(refresh)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    )
    delete_types = sorted(
        ast.unparse(element).rsplit(".", 1)[-1]
        for element in _assignments(trees[CLI])["DELETE_CONFIG_SUPPORTED_TYPES"].elts  # type: ignore[attr-defined]
    )
    facts: dict[str, Any] = {
        "source": {
            "repository": "github.com/NVIDIA/OSMO",
            "commit": source.commit(),
            "files": sorted({POSTGRES, ROLE, OBJECTS, COMMON, CLI, SERVICE, LOGIN}),
        },
        "models": models,
        "resource_operators": _enum_values(postgres["OperatorType"]),
        "enums": {
            "OperatorType": _enum_values(postgres["OperatorType"]),
            "PoolStatus": _enum_values(postgres["PoolStatus"]),
            "DownloadType": _enum_values(postgres["DownloadType"]),
            "SyncMode": _enum_values(role["SyncMode"]),
            "PolicyEffect": _enum_values(role["PolicyEffect"]),
        },
        "cli_pool_role": _pool_role(source.read(CLI)),
        "default_role": _builtin_role(trees[POSTGRES], "osmo-default"),
        "role_sync_modes": _enum_values(role["SyncMode"]),
        "role_policy_effects": _enum_values(role["PolicyEffect"]),
        "semantic_action_pattern": ast.literal_eval(role_values["SEMANTIC_ACTION_PATTERN"].args[0]),  # type: ignore[attr-defined]
        "builtin_pod_templates": ast.literal_eval(objects["DEFAULT_POD_TEMPLATES"]),
        "builtin_resource_validations": ast.literal_eval(objects["DEFAULT_RESOURCE_CHECKS"]),
        "builtin_default_variables": ast.literal_eval(objects["DEFAULT_VARIABLES"]),
        "config_name_regex": ast.literal_eval(_assignments(trees[COMMON])["CONFIG_NAME_REGEX"]),
        "cli_update": {t: m for t, m in _update_mapping(trees[CLI]).items() if t in CONFIG_TYPES},
        "cli_delete_types": [t for t in delete_types if t in CONFIG_TYPES],
        "routes": _routes(trees[SERVICE]),
        "auth": {
            "header": ast.literal_eval(login["OSMO_AUTH_HEADER"]),
            "scheme": "Bearer",
            "token_exchange_path": refresh_path,
            "token_exchange_body_key": "token",
        },
    }
    if legacy_rev:
        legacy_role = source.read(ROLE, legacy_rev)
        facts["legacy_role_action"] = {
            "revision": source.commit(legacy_rev),
            **_legacy_action(legacy_role),
        }
        facts["legacy_role_methods"] = _legacy_methods(legacy_role)
        facts["legacy_cli_pool_role"] = _pool_role(source.read(CLI, legacy_rev))
    facts["rules"] = _rules(facts)
    return facts


def render(facts: dict[str, Any]) -> str:
    return json.dumps(facts, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="OSMO work tree or git directory")
    parser.add_argument("--rev", default="HEAD", help="revision to read from a git directory")
    parser.add_argument("--legacy-role-rev", default="8d16d3433", help="revision with RoleAction")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out is stale")
    args = parser.parse_args(argv)
    text = render(extract(Source(args.checkout, args.rev), args.legacy_role_rev))
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run scripts/extract_osmo_facts.py", file=sys.stderr)
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
