"""The scheduling-info YAML writer agrees with PyYAML's safe dump on every document."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from nodepools import block_yaml
from nodepools.scheduling import SchedulingInfo
from nodepools.specs.catalog.accelerators import Accelerator
from nodepools.specs.core.taints import Taint

# Label-like tokens (the usual case) and the strings PyYAML must quote or fold.
TRICKY = [
    "yes",
    "No",
    "on",
    "true",
    "null",
    "~",
    "1",
    "0x1F",
    "1_000",
    "1.5",
    ".inf",
    "1e3",
    "2001-12-14",
    "12:30",
    "",
    " lead",
    "a b",
    "a: b",
    "#c",
    "-x",
    "é",
    "<<",
    "=",
    "a'b",
]
tokens = st.one_of(
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,20}", fullmatch=True),
    st.sampled_from(TRICKY),
    st.text(max_size=8),
)
scalars = st.one_of(tokens, st.integers(-(10**6), 10**6), st.booleans(), st.none())
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(tokens, inner, max_size=4)
    ),
    max_leaves=20,
)


def pyyaml(document):
    """What `to_yaml` wrote before the writer: PyYAML's safe dump, libyaml's emitter if built."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(document, Dumper=dumper, sort_keys=False, default_flow_style=False)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(tokens, documents, max_size=5))
def test_the_writer_matches_pyyaml(document):
    assert block_yaml.dump(document) == pyyaml(document)


def test_scheduling_info_yaml_is_what_pyyaml_writes():
    info = SchedulingInfo.for_pool(
        "gpu-a",
        [
            Taint(key="nvidia.com/gpu", value="true", effect="NoSchedule"),
            Taint(key="spot", value=None, effect="PreferNoSchedule"),
        ],
        Accelerator(resource="nvidia.com/gpu", count=8, model="H100"),
    )
    text = info.to_yaml()
    assert text == pyyaml(info.to_dict())
    assert "value: 'true'" in text  # quoted: a plain true would read back as a boolean
