"""The strict type check (`make typecheck`, run by `make test`) stays what it claims to be.

basedpyright in strict mode over the whole library (components/ and policies/), no rule of
strict mode turned down in the configuration, mypy-style `# type: ignore` comments not
honoured (only a narrow `# pyright: ignore[rule]` silences a diagnostic), and the checker
pinned, so every machine checks with the same rules.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _config() -> dict[str, object]:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    return pyproject["tool"]["basedpyright"]


def test_strict_over_the_whole_library() -> None:
    config = _config()
    assert config["typeCheckingMode"] == "strict"
    assert config["include"] == ["components", "policies"]
    assert "exclude" not in config and "ignore" not in config


def test_no_rule_is_turned_down_and_type_ignore_comments_do_not_count() -> None:
    config = _config()
    assert config["enableTypeIgnoreComments"] is False
    assert not [key for key in config if key.startswith("report")]
    assert "executionEnvironments" not in config


def test_no_file_relaxes_the_rules_and_every_ignore_names_its_rules() -> None:
    # Neither `# pyright: basic` / `# pyright: reportX=false` file comments nor a bare
    # `# pyright: ignore`: only `# pyright: ignore[rule, ...]`.
    bare: list[str] = []
    for path in sorted([*REPO.glob("components/**/*.py"), *REPO.glob("policies/**/*.py")]):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"#\s*pyright:(?!\s*ignore\[)", line):
                bare.append(f"{path.relative_to(REPO)}:{number}")
    assert bare == []


def test_the_checker_is_pinned_and_run_by_make_test() -> None:
    pins = (REPO / "constraints.txt").read_text().splitlines()
    assert any(re.fullmatch(r"basedpyright==[\d.]+", line) for line in pins)
    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"^test:.*\btypecheck\b", makefile, re.M)
