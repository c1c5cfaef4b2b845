"""What a first-time user reads: the stack's outputs in every plan format, the plan's JSON
schema printed by the installed package, the reference printed rather than written into it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest
from nodepools.planning.cli import main
from nodepools.planning.plan_document import SCHEMA_PATH
from nodepools.provider import reference

PROGRAM = textwrap.dedent(
    """
    import pulumi

    config = pulumi.Config()
    network = pulumi.StackReference("org/network/dev")
    pulumi.export("cluster", "ml")
    pulumi.export("sizes", {"gpu": [0, 4]})
    pulumi.export("token", pulumi.Output.secret("s3cr3t"))
    pulumi.export("vpc", network.get_output("vpcId"))
    """
)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(PROGRAM)
    return tmp_path


def _plan(project: Path, capsys, *flags: str) -> str:
    assert main(["plan", "-C", str(project), *flags]) == 0
    return capsys.readouterr().out


def test_the_plan_shows_the_stack_outputs_in_every_format(tmp_path, capsys):
    project = _project(tmp_path)
    text = _plan(project, capsys)
    section = text.split("Stack outputs\n-------------\n", 1)[1].split("\n\n", 1)[0]
    assert section.splitlines() == [
        "cluster: ml",
        "sizes:",
        "  gpu:",
        "  - 0",
        "  - 4",
        "token: [secret]",
        "vpc: (known after apply)",
    ]
    document = json.loads(_plan(project, capsys, "--format", "json"))
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text())).validate(document)
    assert document["outputs"] == {
        "values": {"cluster": "ml", "sizes": {"gpu": [0, 4]}, "token": "[secret]", "vpc": None},
        "secret": ["token"],
        "known_after_apply": ["vpc"],
    }
    markdown = _plan(project, capsys, "--format", "markdown")
    assert "<details><summary>Stack outputs (4)</summary>" in markdown
    assert '| `sizes` | {"gpu":[0,4]} |' in markdown
    assert "| `token` | [secret] |" in markdown and "| `vpc` | (known after apply) |" in markdown
    assert "s3cr3t" not in text + markdown + json.dumps(document)


def test_the_schema_is_printed_by_the_package_and_help_names_no_repository_path(capsys):
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(SCHEMA_PATH.read_text())
    helps = []
    for argv in (["--help"], ["plan", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        helps.append(" ".join(capsys.readouterr().out.split()))
    assert all("components/" not in text for text in helps)
    assert "its JSON schema: `python -m nodepools schema`" in helps[1]


def test_the_reference_is_printed_or_written_where_asked_never_into_the_package(
    tmp_path, capsys, monkeypatch
):
    written: list[Path] = []
    monkeypatch.setattr(Path, "write_text", lambda self, text: written.append(self))
    assert reference.main([]) == 0
    assert capsys.readouterr().out == reference.render()
    assert written == []
    assert reference.main(["-o", str(tmp_path / "ref.md")]) == 0
    assert written == [tmp_path / "ref.md"]
