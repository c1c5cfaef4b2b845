"""The library's rooms and their doors: layering, no import circles, no oversized module.

Every import is read from the source (module level, inside functions and under
TYPE_CHECKING alike: a deferred import is still a dependency), and checked against the
layers below. A module may import the layers beneath its own and its own package; a
sibling on the same layer, or anything above, is a wrong-way dependency. Each package's
`__init__` docstring says the same in words ("May import: ...").
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The installed package is mapped from two folders (pyproject.toml's package-dir).
FOLDERS = {"nodepools": ROOT / "components", "nodepools.policies": ROOT / "policies"}
MAX_LINES = 500

# nodepools' sub-packages and top-level modules, lowest first. A module may import from
# lower layers only (and from its own sub-package).
LAYERS: list[set[str]] = [
    {"_lazy", "json_values", "block_yaml"},
    {"validation"},
    {"specs"},
    {
        "documentation",
        "scheduling",
        "outputs",
        "preflight",
        "offline",
        "policies",
        "template_options",
    },
    {"backends"},
    {"pools", "workloads", "devices", "governance"},
    {"fleet"},
    {"planning", "provider"},
    {"doctor", "importers"},
    {"cli"},
    {"__main__", ""},  # "" is the package's own facade, nodepools/__init__.py
]

# Inside `nodepools.specs`: the domains, lowest first (same rule).
SPEC_LAYERS: list[set[str]] = [
    {"core"},
    {"catalog"},
    {"clusters"},
    {"pools"},
    {"karpenter", "workloads"},
    {"devices", "governance"},
]

# Inside `nodepools.backends`: the registry, shared plumbing, then one room per cloud or
# domain; above them the domains that use a cloud's pieces: Karpenter launches EC2
# instances (the EKS backend's AWS pieces), device software installs OKE add-ons.
BACKEND_LAYERS: list[set[str]] = [
    {"", "dynamic_support", "extras", "http_retry", "kubernetes"},
    {"eks", "oke", "rosa", "governance", "workloads"},
    # `osmo` only names the OSMO provider where older state pickled it.
    {"karpenter", "devices", "osmo"},
]


@dataclass(frozen=True)
class Module:
    name: str
    path: Path

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


@cache
def modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            if package == "nodepools" and parts[:1] == ["policies"]:
                continue
            found[name] = Module(name, path)
    return found


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if not module.is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: Module) -> Iterator[tuple[int, str]]:
    """(line, imported nodepools module) for every import in the module, at any depth."""
    known = modules()
    ancestors = {module.name.rsplit(".", n)[0] for n in range(module.name.count(".") + 1)}
    for node in ast.walk(ast.parse(module.path.read_text(), str(module.path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            submodules = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in known]
            # `from package import submodule` depends on the submodule, not the facade.
            targets = submodules if len(submodules) == len(node.names) else [source, *submodules]
        for target in targets:
            # Importing a module runs its parents' __init__ anyway: not an edge.
            if target in known and target not in ancestors:
                yield node.lineno, target


def _room(name: str, prefix: str) -> str | None:
    if name != prefix and not name.startswith(prefix + "."):
        return None
    rest = name[len(prefix) + 1 :].split(".") if name != prefix else [""]
    return rest[0]


def _layer(room: str, layers: list[set[str]]) -> int:
    for number, rooms in enumerate(layers):
        if room in rooms:
            return number
    raise AssertionError(f"{room!r} is in no layer: add it to the table")


def wrong_way(importer: str, imported: str) -> str | None:
    for prefix, layers in (
        ("nodepools.specs", SPEC_LAYERS),
        ("nodepools.backends", BACKEND_LAYERS),
    ):
        a, b = _room(importer, prefix), _room(imported, prefix)
        if a is None or b is None or a == b:
            continue
        if importer == prefix:  # the package facade re-exports its rooms
            return None
        if _layer(b, layers) >= _layer(a, layers):
            return f"{prefix}.{a} may not import {prefix}.{b}"
    if importer.startswith("nodepools.policies"):
        a = "policies"
    else:
        a = _room(importer, "nodepools") or ""
    b = "policies" if imported.startswith("nodepools.policies") else _room(imported, "nodepools")
    if b is None or a == b:
        return None
    if _layer(b, LAYERS) >= _layer(a, LAYERS):
        return f"nodepools.{a or '__init__'} may not import nodepools.{b}"
    return None


def test_no_module_imports_a_layer_above_or_beside_its_own() -> None:
    problems = [
        f"{module.path.relative_to(ROOT)}:{line}: {module.name} imports {target} ({why})"
        for module in modules().values()
        for line, target in imports_of(module)
        if (why := wrong_way(module.name, target))
    ]
    assert not problems, "\n".join(problems)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the import circles (components of 2+ modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    circles.append(sorted(members))
    return circles


def test_no_import_circles() -> None:
    graph = {
        name: {target for _, target in imports_of(module)} for name, module in modules().items()
    }
    assert strongly_connected(graph) == []


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert strongly_connected(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize(
    ("importer", "imported", "refused"),
    [
        ("nodepools.specs.core.base", "nodepools.specs.pools.args", True),
        ("nodepools.specs.pools.args", "nodepools.specs.core.base", False),
        ("nodepools.specs.devices.args", "nodepools.specs.governance.quotas", True),
        ("nodepools.specs.core.base", "nodepools.backends.eks.node_group", True),
        ("nodepools.backends.eks.node_group", "nodepools.pools.node_role", True),
        ("nodepools.backends.karpenter", "nodepools.backends.eks.launch_template", False),
        ("nodepools.backends.eks.node_group", "nodepools.backends.karpenter", True),
        ("nodepools.pools.machine_pool", "nodepools.governance.kueue", True),
        ("nodepools.fleet.deploy", "nodepools.pools.machine_pool", False),
        ("nodepools.validation.names", "nodepools.specs.core.base", True),
        ("nodepools.specs", "nodepools.specs.karpenter.args", False),
        ("nodepools", "nodepools.pools.machine_pool", False),
        ("nodepools.policies.pack", "nodepools.specs.catalog.prices", False),
        ("nodepools.policies.pack", "nodepools.fleet.deploy", True),
    ],
)
def test_layer_rules(importer: str, imported: str, refused: bool) -> None:
    assert (wrong_way(importer, imported) is not None) is refused


def test_every_library_module_is_at_most_500_lines() -> None:
    long = {
        str(module.path.relative_to(ROOT)): lines
        for module in modules().values()
        if (lines := len(module.path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_every_package_says_what_lives_there_and_what_it_may_import() -> None:
    missing = [
        str(module.path.relative_to(ROOT))
        for module in modules().values()
        if module.is_package
        and module.name != "nodepools"
        and "May import" not in (ast.get_docstring(ast.parse(module.path.read_text())) or "")
    ]
    assert missing == []
