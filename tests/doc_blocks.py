"""The fenced code blocks of the Markdown pages (README.md and docs/), and how each is run.

Every block says its language, and the language says what the tests do with it:

- ```python: executed. A page's Python blocks are one program (each block at its own line of
  the page, so a traceback names the page and line), run under the offline engine
  (`nodepools.offline.run`: the SDK's mock monitor), then the `test_*` functions it defines are
  called; a page whose blocks set up mocks themselves (`set_mocks`) runs alone in a fresh
  interpreter, and so do its `test_*` functions.
- ```yaml: parsed; one titled `Pulumi.<stack>.yaml` is planned (with the other titled files of
  its page as the project, or the repository's stack program); one titled with a repository
  path is an excerpt of that file.
- ```sh: run, each line, from the repository root: only cheap `python -m nodepools ...`
  commands, which must succeed. Anything else is ```console (shown, not run).
- ```json, ```toml: parsed. ```text, ```console: shown, not run.

A title is Material's code block title: ```yaml title="Pulumi.dev.yaml"
"""

from __future__ import annotations

import importlib.util
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGES = frozenset({"python", "yaml", "sh", "json", "toml", "text", "console", "markdown"})

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)(?P<attrs>[^`\n]*)$")
_TITLE = re.compile(r'title="(?P<title>[^"]+)"')


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository root
    line: int  # 1-based line of the block's first line of code
    lang: str
    title: str | None
    code: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line - 1}"


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of one page, in order (an unclosed fence is a block to its end)."""
    lines = path.read_text().splitlines()
    page = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent = match["indent"]
        start = index + 1
        end = start
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        code = textwrap.dedent("\n".join(lines[start:end])) + "\n"
        if indent and not all(line.startswith(indent) or not line for line in lines[start:end]):
            code = "\n".join(lines[start:end]) + "\n"
        title = _TITLE.search(match["attrs"])
        found.append(Block(page, start + 1, match["lang"], title["title"] if title else None, code))
        index = end + 1
    return found


def program_source(page_blocks: list[Block]) -> str:
    """The page's Python blocks as one program whose line numbers are the page's."""
    source: list[str] = []
    for block in page_blocks:
        source += [""] * (block.line - 1 - len(source))
        source += block.code.rstrip("\n").splitlines()
    return "\n".join(source) + "\n"


def brings_own_mocks(page_blocks: list[Block]) -> bool:
    return any("set_mocks" in b.code for b in page_blocks)


def load_hooks() -> ModuleType:
    """docs/hooks.py, the MkDocs hook (not a package: loaded from its path)."""
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
