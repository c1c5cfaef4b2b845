"""The documentation site: it builds strictly, and every code block in it runs.

How each kind of block is run is in tests/doc_blocks.py. A failure names the page and line.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import traceback
from pathlib import Path

import pytest
import yaml
from nodepools.offline import ProgramError, run
from nodepools.planning.cli import main

from tests.doc_blocks import (
    DOCS,
    LANGUAGES,
    ROOT,
    Block,
    blocks,
    brings_own_mocks,
    load_hooks,
    pages,
    program_source,
)

hooks = load_hooks()

ALL = [block for path in pages() for block in blocks(path)]
PROJECT_FILE = re.compile(r"^Pulumi(\.(?P<stack>[\w-]+))?\.yaml$")


def _page_ids(values: list[str]) -> list[str]:
    return values


def _python_pages() -> list[str]:
    return sorted({b.page for b in ALL if b.lang == "python" and b.title is None})


def _project_pages() -> list[str]:
    return sorted({b.page for b in ALL if b.title == "Pulumi.yaml"})


def _page_blocks(page: str, lang: str | None = None) -> list[Block]:
    return [b for b in ALL if b.page == page and (lang is None or b.lang == lang)]


def _where_it_failed(page: str, exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == page]
    line = frames[-1].lineno if frames else "?"
    return f"{page}:{line}: {type(exc).__name__}: {exc}"


# --- every block ------------------------------------------------------------------------


def test_the_docs_have_the_pages_the_issue_asks_for():
    names = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    for backend in ("eks", "karpenter", "oke", "rosa"):
        assert f"quickstart/{backend}.md" in names
    assert {
        "concepts/pools.md",
        "concepts/scheduling-info.md",
        "concepts/plan.md",
        "concepts/offline-and-up.md",
        "how-to/scale-from-zero.md",
        "how-to/spot-and-interruption.md",
        "how-to/shared-pools-and-recipes.md",
        "how-to/quotas-with-kueue.md",
        "how-to/osmo-pools.md",
        "how-to/device-software.md",
        "how-to/ci-plan-comments.md",
        "how-to/testing-with-set-mocks.md",
        "reference.md",
    } <= names


def test_every_code_block_says_a_language_the_tests_run_or_show():
    unknown = [f"{b.where}: ```{b.lang}" for b in ALL if b.lang not in LANGUAGES]
    assert unknown == [], "use python, yaml, sh, json, toml, text or console"


def test_the_docs_have_code_of_every_kind():
    kinds = {b.lang for b in ALL}
    assert {"python", "yaml", "sh", "console"} <= kinds
    assert len([b for b in ALL if b.lang == "python"]) >= 20


@pytest.mark.parametrize("page", _python_pages())
def test_the_python_blocks_of_a_page_run(page, tmp_path):
    page_blocks = [b for b in _page_blocks(page, "python") if b.title is None]
    source = program_source(page_blocks)
    if brings_own_mocks(page_blocks):
        _run_alone(page, source, tmp_path)
        return
    namespace: dict = {"__name__": "__docs__"}
    try:
        run(lambda: exec(compile(source, page, "exec"), namespace))
    except ProgramError as exc:
        pytest.fail(_where_it_failed(page, exc.__cause__ or exc), pytrace=False)
    for name, test in list(namespace.items()):
        if name.startswith("test_") and callable(test):
            try:
                test()
            except Exception as exc:
                pytest.fail(_where_it_failed(page, exc), pytrace=False)


_RUNNER = """
import sys
page, path = sys.argv[1], sys.argv[2]
namespace = {"__name__": "__docs__"}
exec(compile(open(path).read(), page, "exec"), namespace)
tests = [name for name in namespace if name.startswith("test_") and callable(namespace[name])]
for name in tests:
    namespace[name]()
print("ran", len(tests), "test functions")
"""


def _run_alone(page: str, source: str, tmp_path: Path) -> None:
    """A page that sets its own mocks runs in a fresh interpreter, as a user's test would."""
    program = tmp_path / "page.py"
    program.write_text(source)
    result = subprocess.run(
        [sys.executable, "-c", _RUNNER, page, str(program)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, f"{page}: {result.stderr[-3000:]}"
    assert re.search(r"ran [1-9]\d* test functions", result.stdout), (
        f"{page}: a page with its own mocks shows at least one test_* function"
    )


@pytest.mark.parametrize("page", _project_pages())
def test_a_page_that_writes_a_project_plans_it(page, tmp_path, capsys):
    """Its titled blocks are the files of a Pulumi project; each stack file is planned."""
    stacks = []
    for block in _page_blocks(page):
        if block.title is None:
            continue
        target = tmp_path / block.title
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.code)
        match = PROJECT_FILE.match(block.title)
        if match and match["stack"]:
            stacks.append((match["stack"], block))
    assert stacks, f"{page}: a project page shows a Pulumi.<stack>.yaml"
    for stack, block in stacks:
        status = main(["plan", "-C", str(tmp_path), "--stack", stack])
        out = capsys.readouterr()
        assert status == 0, f"{block.where}: plan of stack {stack!r}\n{out.out[-3000:]}{out.err}"


def _stack_files() -> list[Block]:
    projects = set(_project_pages())
    return [
        b
        for b in ALL
        if b.title and b.page not in projects and PROJECT_FILE.match(b.title)
        if PROJECT_FILE.match(b.title)["stack"]  # type: ignore[index]
    ]


@pytest.mark.parametrize("block", _stack_files(), ids=lambda b: b.where)
def test_a_stack_file_is_planned_with_the_stack_program(block, tmp_path, capsys):
    shutil.copy(ROOT / "stacks" / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / block.title).write_text(block.code)
    stack = PROJECT_FILE.match(block.title)["stack"]  # type: ignore[index]
    status = main(["plan", "-C", str(ROOT), "--stack", stack, "--stacks-dir", str(tmp_path)])
    out = capsys.readouterr()
    assert status == 0, f"{block.where}: plan of {block.title}\n{out.out[-3000:]}{out.err}"


def test_a_block_titled_with_a_repository_file_is_an_excerpt_of_it():
    checked = 0
    projects = set(_project_pages())
    for block in ALL:
        if not block.title or block.page in projects or PROJECT_FILE.match(block.title):
            continue
        path = ROOT / block.title
        assert path.is_file(), f"{block.where}: titled {block.title!r}, which is no file"
        assert block.code.strip() in path.read_text(), (
            f"{block.where}: not an excerpt of {block.title}"
        )
        checked += 1
    assert checked >= 1


def test_yaml_json_and_toml_blocks_parse():
    problems = []
    for block in ALL:
        try:
            if block.lang == "yaml":
                list(yaml.safe_load_all(block.code))
            elif block.lang == "json":
                json.loads(block.code)
            elif block.lang == "toml":
                tomllib.loads(block.code)
        except (yaml.YAMLError, json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{block.where}: {exc}")
    assert problems == []


def _commands(block: Block) -> list[str]:
    joined = block.code.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip()]


SH_BLOCKS = [b for b in ALL if b.lang == "sh"]
_RAN: dict[
    str, subprocess.CompletedProcess[str]
] = {}  # one command shown on several pages runs once


def _run_command(words: list[str]) -> subprocess.CompletedProcess[str]:
    key = shlex.join(words)
    if key not in _RAN:
        _RAN[key] = subprocess.run(
            [sys.executable, *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300
        )
    return _RAN[key]


@pytest.mark.parametrize("block", SH_BLOCKS, ids=lambda b: b.where)
def test_a_sh_block_runs(block, tmp_path):
    for command in _commands(block):
        words = shlex.split(command, comments=True)
        if not words:
            continue
        assert words[:3] == ["python", "-m", "nodepools"], (
            f"{block.where}: {command!r} is not run by the tests: show it as ```console"
        )
        result = _run_command(words)
        assert result.returncode == 0, f"{block.where}: {command}\n{result.stderr[-2000:]}"


# --- the site ---------------------------------------------------------------------------


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(config),
            "--site-dir",
            str(site),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def test_the_site_builds_strictly(tmp_path):
    result = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stderr[-4000:]
    assert (tmp_path / "site" / "reference" / "index.html").is_file()
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS).with_suffix("")
        built = tmp_path / "site" / (rel.parent if rel.name == "index" else rel) / "index.html"
        assert built.is_file(), f"{page} was not built"


def test_a_broken_link_fails_the_build(tmp_path):
    """The strict build is strict: a copy of the site with one link to a page that does not
    exist (and is not pending) fails, naming it."""
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    index = tmp_path / "docs" / "index.md"
    index.write_text(index.read_text() + "\nSee [nowhere](how-to/nowhere.md).\n")
    result = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0
    assert "how-to/nowhere.md" in result.stderr


def test_the_hook_leaves_out_only_pending_pages_that_are_absent(tmp_path):
    (tmp_path / "how-to").mkdir()
    (tmp_path / "how-to" / "policy-pack.md").write_text("# Policy pack\n")
    absent = hooks.absent_pending(tmp_path)
    assert "how-to/policy-pack.md" not in absent  # present: built and checked as any page
    assert "install.md" in absent
    nav = [
        {"Home": "index.md"},
        {"Install": "install.md"},
        {"How-to": [{"Pack": "how-to/policy-pack.md"}, {"Air": "how-to/air-gapped-charts.md"}]},
        {"Later": [{"Releases": "releases.md"}]},
        {"Gone": "how-to/gone.md"},  # not pending: kept, so the strict build reports it
    ]
    assert hooks.prune_nav(nav, absent) == [
        {"Home": "index.md"},
        {"How-to": [{"Pack": "how-to/policy-pack.md"}]},
        {"Gone": "how-to/gone.md"},
    ]
    text = "[install](../install.md), [pack](policy-pack.md#x), [gone](gone.md), [two\nlines](../releases.md)"
    assert hooks.unlink_absent(text, "how-to/page.md", absent) == (
        "install, [pack](policy-pack.md#x), [gone](gone.md), two\nlines"
    )


def test_the_pending_pages_are_in_the_nav():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def paths(nav: object) -> set[str]:
        if isinstance(nav, str):
            return {nav}
        if isinstance(nav, list):
            return {p for item in nav for p in paths(item)}
        if isinstance(nav, dict):
            return {p for value in nav.values() for p in paths(value)}
        return set()

    in_nav = paths(config["nav"])
    assert in_nav >= hooks.PENDING
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk <= in_nav, "every page is in the nav"


# --- the reference ----------------------------------------------------------------------


def test_the_reference_covers_every_public_name():
    import nodepools

    reference = (DOCS / "reference.md").read_text()
    headings = set(re.findall(r"^#{2,3} `?(\w+)`?$", reference, re.M))
    missing = sorted(set(nodepools.__all__) - headings)
    assert missing == []


# --- the shapes the examples give ------------------------------------------------------


def _shape_problems(annotation, value, path: str) -> list[str]:
    """Where `value` has another shape than the reference and the package schema give the
    field (a mapping where they say a list): the Python spec may accept a shorthand, the
    other languages don't, and the README shows the documented form."""
    import typing

    from pydantic import BaseModel

    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _shape_problems(args[0], value, path)
    if origin in (typing.Union, __import__("types").UnionType):
        tries = [_shape_problems(arg, value, path) for arg in args if arg is not type(None)]
        return [] if value is None or any(not t for t in tries) else tries[0]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, documented as a list"]
        return [p for i, v in enumerate(value) for p in _shape_problems(args[0], v, f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, documented as a mapping"]
        return [p for k, v in value.items() for p in _shape_problems(args[1], v, f"{path}.{k}")]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if not isinstance(value, dict):
            return []  # a model built by hand, or an Output: checked by the model itself
        fields = annotation.model_fields
        return [
            p
            for k, v in value.items()
            if k in fields
            for p in _shape_problems(fields[k].annotation, v, f"{path}.{k}")
        ]
    return []


def test_the_examples_use_the_documented_shapes(monkeypatch):
    """Every component a page's example creates is given its args in the shapes the
    reference and the package schema document (the Python specs may accept a shorthand;
    the other languages don't, and the docs show the documented form)."""
    import nodepools
    from nodepools.provider.host import component_kinds

    given: list[tuple[str, type, dict]] = []
    for component, model in component_kinds():

        def __init__(self, name, args=None, *rest, _model=model, **kw):
            if isinstance(args, dict):
                given.append((f"{type(self).__name__}({name!r})", _model, args))
            super(type(self), self).__init__(name, args, *rest, **kw)

        # A subclass, so that the class's own helpers (`served`, `for_pools`) still work.
        recording = type(component.__name__, (component,), {"__init__": __init__})
        monkeypatch.setattr(nodepools, component.__name__, recording)
    for page in _python_pages():
        page_blocks = [b for b in _page_blocks(page, "python") if b.title is None]
        if brings_own_mocks(page_blocks):
            continue
        source = program_source(page_blocks)
        run(lambda source=source, page=page: exec(compile(source, page, "exec"), {}))
    assert len(given) >= 20
    problems = [p for where, model, args in given for p in _shape_problems(model, args, where)]
    assert problems == []


def test_a_broken_block_is_reported_with_its_page_and_line(tmp_path):
    page = tmp_path / "broken.md"
    page.write_text(
        "# A page\n\n```python\nfrom nodepools import GpuSpotPool\n```\n\nText.\n\n"
        '```python\nGpuSpotPool("gpu", {"cluster": {"kind": "eks"}, "instance_type": 1})\n```\n'
    )
    found = [b for b in blocks(page) if b.lang == "python"]
    assert [b.line for b in found] == [4, 10]
    source = program_source(found)
    with pytest.raises(ProgramError) as failed:
        run(lambda: exec(compile(source, "broken.md", "exec"), {}))
    message = _where_it_failed("broken.md", failed.value.__cause__ or failed.value)
    assert message.startswith("broken.md:10: SpecError: GpuSpotPool 'gpu' is invalid")
