"""The offline engine captures what the real engine would receive."""

from __future__ import annotations

from pathlib import Path

import pulumi
import pytest
from nodepools.offline import ProgramError, run


class Widget(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("test:index:Widget", name, {"size": 3}, opts)
        self.bucket = pulumi.CustomResource(
            "test:index:Bucket",
            f"{name}-bucket",
            {"tags": {"a": "b"}, "count": 2},
            pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"answer": 42})


def test_captures_type_name_inputs_parent_dependencies_and_options():
    def program():
        widget = Widget("w")
        pulumi.CustomResource(
            "test:index:Thing",
            "thing",
            {"secret": pulumi.Output.secret("s3cr3t"), "ref": widget.bucket.id},
            pulumi.ResourceOptions(protect=True, ignore_changes=["x"], depends_on=[widget.bucket]),
        )
        pulumi.export("greeting", "hello")

    capture = run(program, stack="unit", project="proj")
    widget = capture.get("test:index:Widget", "w")
    bucket = capture.get("test:index:Bucket", "w-bucket")
    thing = capture.get("test:index:Thing", "thing")
    assert widget.inputs == {"size": 3.0} and not widget.custom
    assert bucket.parent == widget.urn and bucket.custom
    assert bucket.inputs == {"tags": {"a": "b"}, "count": 2.0}  # numbers arrive as floats
    assert thing.options["protect"] is True and thing.options["ignoreChanges"] == ["x"]
    assert bucket.urn in thing.dependencies
    assert thing.secret_paths == ("secret",)
    assert thing.inputs["secret"] == "s3cr3t"
    assert thing.inputs["ref"] == bucket.outputs["id"]
    assert capture.outputs_of(widget) == {"answer": 42.0}
    assert capture.stack_outputs == {"greeting": "hello"}
    assert widget.urn.startswith("urn:pulumi:unit::proj::")


def test_config_reaches_the_program():
    seen = {}

    def program():
        config = pulumi.Config("nodepools")
        seen["pools"] = config.get_object("pools")
        seen["name"] = config.get("name")

    run(program, config={"nodepools:pools": [{"a": 1}], "name": "x"})
    assert seen == {"pools": [{"a": 1}], "name": "x"}


def test_failure_keeps_the_partial_capture():
    def program():
        pulumi.CustomResource("test:index:Bucket", "first", {})
        raise RuntimeError("boom")

    with pytest.raises(ProgramError) as caught:
        run(program)
    assert isinstance(caught.value.cause, RuntimeError)
    assert [r.name for r in caught.value.capture.resources] == ["first"]


def test_runs_a_program_file_and_is_repeatable(tmp_path: Path):
    (tmp_path / "__main__.py").write_text(
        "import pulumi\npulumi.CustomResource('test:index:Bucket', 'b', {'n': 1})\npulumi.export('n', 1)\n"
    )
    first = run(tmp_path)
    second = run(tmp_path / "__main__.py")
    assert [r.name for r in first.resources] == [r.name for r in second.resources] == ["b"]
    assert second.stack_outputs == {"n": 1.0}


def test_encrypted_config_is_refused():
    with pytest.raises(ValueError, match="encrypted secret"):
        run(lambda: None, config={"nodepools:token": {"secure": "AAAB..."}})


def test_resources_come_in_tree_order_whatever_order_the_engine_got_them():
    def program():
        for name in ("z", "m", "a"):
            Widget(name)
        pulumi.CustomResource("test:index:Alone", "alone", {})

    expected = [
        ("test:index:Alone", "alone"),
        ("test:index:Widget", "a"),
        ("test:index:Bucket", "a-bucket"),
        ("test:index:Widget", "m"),
        ("test:index:Bucket", "m-bucket"),
        ("test:index:Widget", "z"),
        ("test:index:Bucket", "z-bucket"),
    ]
    for _ in range(3):
        assert [(r.type, r.name) for r in run(program).resources] == expected
