"""Property: a randomly damaged manifest yields violations (or none), never an exception."""

from __future__ import annotations

import copy
from typing import Any

from crd_samples import ALL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nodepools.validation import Violation, apply_defaults, validate_manifest

# Values that sit on the edges the schemas and rules care about.
EDGE_VALUES = [
    "",
    "-1",
    "1Gi",
    "500m",
    "1e999",
    "karpenter.sh/custom",
    "kubernetes.io/hostname",
    "al2023",
    "windows2022@v1",
    "In",
    "Gt",
    "Exists",
    "NoSchedule",
    "10%",
    "a" * 300,
    "\n",
    2**40,
    2**70,
    -5,
    1.5,
    float("nan"),
    float("inf"),
    True,
    None,
    [],
    {},
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(EDGE_VALUES),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _containers(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of every dict and list inside ``value`` (the root included)."""
    found = []
    if isinstance(value, dict):
        found.append(path)
        for key, item in value.items():
            found += _containers(item, (*path, key))
    elif isinstance(value, list):
        found.append(path)
        for i, item in enumerate(value):
            found += _containers(item, (*path, i))
    return found


def _at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _value(data: st.DataObject) -> Any:
    # A copy: EDGE_VALUES holds mutable objects that later mutations would change.
    return copy.deepcopy(data.draw(json_values))


def _mutate(manifest: dict[str, Any], data: st.DataObject) -> None:
    container = _at(manifest, data.draw(st.sampled_from(_containers(manifest))))
    operation = data.draw(st.sampled_from(["drop", "replace", "add"]))
    if isinstance(container, dict):
        keys = list(container)
        if operation == "add" or not keys:
            name = data.draw(
                st.text(max_size=10) | st.sampled_from(["spec", "values", "key", "status"])
            )
            container[name] = _value(data)
        elif operation == "drop":
            del container[data.draw(st.sampled_from(keys))]
        else:
            container[data.draw(st.sampled_from(keys))] = _value(data)
    else:
        if operation == "add" or not container:
            container.append(_value(data))
        elif operation == "drop":
            del container[data.draw(st.integers(0, len(container) - 1))]
        else:
            container[data.draw(st.integers(0, len(container) - 1))] = _value(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(ALL)), mutations=st.integers(1, 4), data=st.data())
def test_damaged_manifests_yield_violations_never_exceptions(kind, mutations, data):
    manifest = ALL[kind]()
    for _ in range(mutations):
        _mutate(manifest, data)
    snapshot = copy.deepcopy(manifest)

    violations = validate_manifest(manifest)

    assert isinstance(violations, list)
    assert all(
        isinstance(v, Violation) and isinstance(v.message, str) and v.message for v in violations
    )
    assert all(isinstance(v.path, str) for v in violations)
    assert validate_manifest(manifest) == violations  # deterministic
    assert isinstance(apply_defaults(manifest), dict)
    assert repr(manifest) == repr(snapshot)  # the input is never modified


@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(sorted(ALL)), data=st.data())
def test_updates_of_damaged_manifests_never_raise(kind, data):
    old = ALL[kind]()
    new = ALL[kind]()
    _mutate(new, data)
    _mutate(old, data)
    assert isinstance(validate_manifest(new, old=old), list)
