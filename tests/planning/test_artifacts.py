"""`plan --out` artifacts: the registered inputs, in the YAML text PyYAML's own emitter
writes, whichever emitter writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from nodepools.offline import run
from nodepools.planning.artifacts import (
    artifact_yaml,
    redacted_inputs,
    write_artifacts,
    written_alike,
)
from nodepools.planning.project import stack_names
from nodepools.planning.report import whole_numbers

ROOT = Path(__file__).resolve().parents[2]
HAVE_LIBYAML = hasattr(yaml, "CSafeDumper")


def pure(document) -> str:
    """PyYAML's own (pure Python) emitter: the text artifacts have always had."""
    return yaml.safe_dump(document, sort_keys=True)


# Words and YAML indicators joined by spaces, long enough to be folded.
WORDS = ["a", "bb", "x:y", "#", "- ", "'", '"', "{", "]", ",", "&", "*", "|", "true", "0x1"]
WORDS += ["~", "null", ": ", "  ", "arn:aws:iam::123456789012:role/nodes"]
ascii_text = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=300),
    st.lists(st.sampled_from(WORDS), max_size=60).map(" ".join),
)
ascii_key = ascii_text.filter(lambda key: 0 < len(key) < 100)
any_text = st.one_of(
    ascii_text,
    st.text(max_size=200),
    st.text(alphabet=st.sampled_from("ab :#-\n\t'\"é—\x85\u2028\x00"), max_size=200),
)


def documents(keys, texts):
    scalars = st.one_of(texts, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
    values = st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)
        ),
        max_leaves=30,
    )
    return st.dictionaries(keys, values, max_size=5)


@settings(max_examples=150, deadline=None)
@given(documents(any_text, any_text))
def test_artifact_yaml_is_the_text_pyyaml_own_emitter_writes(document):
    assert artifact_yaml(document) == pure(document)


@pytest.mark.skipif(not HAVE_LIBYAML, reason="PyYAML built without libyaml")
@settings(max_examples=200, deadline=None)
@given(documents(ascii_key, ascii_text))
def test_libyaml_writes_printable_ascii_documents_as_pyyaml_does(document):
    """The premise of `written_alike`, checked on the emitter itself."""
    assert written_alike(document)
    fast = yaml.dump(document, Dumper=yaml.CSafeDumper, sort_keys=True, default_flow_style=False)
    assert fast == pure(document)


@pytest.mark.parametrize(
    "value",
    [
        "GPU pool for training — p5.48xlarge nodes with EFA, tainted for nvidia.com/gpu only",
        json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow"}]}, indent=2),
        "#!/bin/bash\necho ready \nmodprobe efa\n",
        "a\tvalue with a tab that is long enough to be folded by the emitter at its width",
    ],
)
def test_strings_the_emitters_write_differently_take_pyyaml_own(value):
    document = {"inputs": {"description": value, "": "empty key"}, "name": "p"}
    assert not written_alike(document)
    assert artifact_yaml(document) == pure(document)


@pytest.mark.parametrize("stack", stack_names(ROOT / "stacks"))
def test_every_example_stack_artifact_holds_the_registered_inputs(stack, tmp_path):
    document = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text()) or {}
    capture = run(ROOT / "stacks" / "__main__.py", stack=stack, config=document.get("config") or {})
    yaml_files = [p for p in write_artifacts(capture, tmp_path) if p.suffix == ".yaml"]
    loaded = {path: yaml.safe_load(path.read_text()) for path in yaml_files}
    matched: set[Path] = set()
    for resource in capture.custom_resources():
        inputs = whole_numbers(redacted_inputs(resource.inputs, resource.secret_paths))
        whole = {"type": resource.type, "name": resource.name, "inputs": inputs}
        for path, content in loaded.items():
            manifest = path.parent.name == "manifests"
            if content == (inputs if manifest else whole):
                assert path.read_text() == pure(content), path
                matched.add(path)
    assert yaml_files
    assert matched == set(yaml_files)  # every file is some resource's inputs
