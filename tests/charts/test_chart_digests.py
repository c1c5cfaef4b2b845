"""The pinned chart copies in ../shared/charts are the ones SOURCES.md records: each folder's
digest by the recipe SOURCES.md gives (sha256 of the sorted `sha256sum` listing of every file,
path relative to the folder). A file SOURCES.md says was added after hashing (amd-gpu's
vendored node-feature-discovery) is left out of that folder's digest."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tests.charts.helm import require_charts

ADDED_AFTER_HASHING = {"amd-gpu-0.21.0": "charts/node-feature-discovery/"}


def folder_digest(folder: Path, leave_out: str | None = None) -> str:
    """`find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`."""
    paths = sorted(
        (f"./{p.relative_to(folder).as_posix()}" for p in folder.rglob("*") if p.is_file()),
        key=lambda p: p.encode(),
    )
    if leave_out:
        paths = [p for p in paths if not p.startswith(f"./{leave_out}")]
    listing = "".join(
        f"{hashlib.sha256((folder / p).read_bytes()).hexdigest()}  {p}\n" for p in paths
    )
    return hashlib.sha256(listing.encode()).hexdigest()


def recorded_digests(sources: str) -> dict[str, str]:
    """Local folder -> the sha256 of the SOURCES.md table, by the chart name and version."""
    found: dict[str, str] = {}
    for line in sources.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and re.fullmatch(r"[0-9a-f]{64}", cells[7]):
            found[cells[0]] = cells[7]
    return found


def test_every_chart_folder_matches_its_recorded_digest() -> None:
    charts = require_charts()
    recorded = recorded_digests((charts / "SOURCES.md").read_text())
    folders = sorted(p.name for p in charts.iterdir() if p.is_dir())
    assert len(folders) == len(recorded) == 5, (folders, sorted(recorded))
    for folder in folders:
        [name] = [n for n in recorded if folder.startswith(f"{n}-")]
        digest = folder_digest(charts / folder, ADDED_AFTER_HASHING.get(folder))
        assert digest == recorded[name], f"{folder}: {digest} is not SOURCES.md's {recorded[name]}"


def test_the_digest_sees_one_changed_byte(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("x")
    before = folder_digest(tmp_path)
    (tmp_path / "a").write_text("y")
    assert folder_digest(tmp_path) != before
