"""MkDocs hook: pages another branch is adding are in the nav and linked from the pages before
they land, and the strict build still passes meanwhile.

Only the paths named in PENDING get this: while such a file is absent, its nav entry is left
out and a link to it is written as its plain text. Any other missing page still fails the
strict build, and a pending page that exists is built and checked like every other.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

PENDING = frozenset(
    {
        "install.md",
        "releases.md",
        "how-to/policy-pack.md",
        "how-to/air-gapped-charts.md",
        "how-to/karpenter-in-ci.md",
        "how-to/quotas-with-kueue-in-practice.md",
        "how-to/adopting-existing-pools.md",
        "how-to/adopting-existing-node-groups.md",
    }
)

_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<target>[^)\s#]+\.md)(?P<anchor>#[^)\s]*)?\)")


def absent_pending(docs_dir: Path) -> frozenset[str]:
    return frozenset(path for path in PENDING if not (docs_dir / path).is_file())


def prune_nav(nav: Any, absent: frozenset[str]) -> Any:
    """The nav without entries pointing at `absent` pages (a section left empty goes too)."""
    if isinstance(nav, str):
        return None if nav in absent else nav
    if isinstance(nav, list):
        kept = [prune_nav(item, absent) for item in nav]
        return [item for item in kept if item not in (None, [])]
    if isinstance(nav, dict):
        kept = {title: prune_nav(value, absent) for title, value in nav.items()}
        kept = {title: value for title, value in kept.items() if value not in (None, [])}
        return kept or None
    return nav


def unlink_absent(markdown: str, page_path: str, absent: frozenset[str]) -> str:
    """`[text](page.md)` as plain `text` when page.md (relative to `page_path`) is absent."""
    folder = posixpath.dirname(page_path)

    def replace(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(folder, match["target"]))
        return match["text"] if target in absent else match[0]

    return _LINK.sub(replace, markdown)


def on_config(config: Any) -> Any:
    absent = absent_pending(Path(config["docs_dir"]))
    if config["nav"] is not None:
        config["nav"] = prune_nav(config["nav"], absent)
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return unlink_absent(markdown, page.file.src_uri, absent_pending(Path(config["docs_dir"])))
