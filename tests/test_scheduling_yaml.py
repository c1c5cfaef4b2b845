"""scheduling_info_yaml: libyaml's emitter writes exactly what the pure-Python one does."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from nodepools.scheduling import SchedulingInfo
from nodepools.specs import Accelerator, Taint

pytestmark = pytest.mark.skipif(
    not hasattr(yaml, "CSafeDumper"), reason="PyYAML built without libyaml"
)

# Label values YAML would read as something else unless quoted.
TRICKY = ["true", "False", "yes", "NO", "on", "null", "Null", "1", "0x1F", "1e3", "0.5", "1_000", "0o17", "012", "2024-01-01", "y", "n"]  # fmt: skip
NAME = st.from_regex(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?", fullmatch=True)
VALUE = st.one_of(st.sampled_from(TRICKY), st.just(""), NAME)
PREFIX = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?(\.[a-z0-9]{1,8}){0,3}", fullmatch=True)
KEY = st.one_of(NAME, st.builds(lambda p, n: f"{p}/{n}", PREFIX, NAME))
TAINT = st.builds(
    Taint,
    key=KEY,
    value=st.one_of(st.none(), VALUE),
    effect=st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
)
ACCELERATOR = st.one_of(
    st.none(),
    st.builds(Accelerator, resource=KEY, count=st.integers(1, 16)),
)


def _pure(info: SchedulingInfo) -> str:
    return yaml.dump(
        info.to_dict(), Dumper=yaml.SafeDumper, sort_keys=False, default_flow_style=False
    )


@settings(max_examples=120, deadline=None)
@given(
    pool=NAME,
    taints=st.lists(TAINT, max_size=4),
    accelerator=ACCELERATOR,
    extra=st.dictionaries(KEY, VALUE, max_size=3),
    per_pod=st.one_of(st.none(), st.integers(0, 8)),
)
def test_c_emitter_renders_what_safe_dump_renders(pool, taints, accelerator, extra, per_pod):
    info = SchedulingInfo.for_pool(
        pool, taints, accelerator, extra_selector=extra, accelerators_per_pod=per_pod
    )
    assert info.to_yaml() == _pure(info)
    assert yaml.safe_load(info.to_yaml()) == info.to_dict()


def test_long_keys_render_alike():
    # Keys past 128 characters can't be YAML simple keys; both emitters must agree.
    key = f"{'a' * 200}.example.com/{'b' * 60}"
    info = SchedulingInfo.for_pool(
        "pool", [Taint(key=key, value="x", effect="NoSchedule")], None, extra_selector={key: "v"}
    )
    assert info.to_yaml() == _pure(info)
