"""The README's Python examples run, as written, under the offline engine."""

from __future__ import annotations

import re
from pathlib import Path

from nodepools.offline import run

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 6


def test_readme_examples_run_offline():
    namespace: dict = {}
    program_blocks = [b for b in BLOCKS if "nodepools.offline" not in b]
    capture = run(lambda: [exec(block, namespace) for block in program_blocks])
    names = {r.name for r in capture.components()}
    assert {
        "batch-workers",
        "ml-training",
        "trainium-trn1",
        "mi300x",
        "echo",
        "org",
        "osmo",
        "devices-eks",
        "devices-rosa",
        "devices-trn1",
        "devices-mi300x",
    } <= names
    # The unit-testing example runs its own offline program.
    for block in BLOCKS:
        if "nodepools.offline" in block:
            exec(block, dict(namespace))


def _shape_problems(annotation, value, path: str) -> list[str]:
    """Where `value` has another shape than the reference and the package schema give the
    field (a mapping where they say a list): the Python spec may accept a shorthand, the
    other languages don't, and the README shows the documented form."""
    import typing

    from pydantic import BaseModel

    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _shape_problems(args[0], value, path)
    if origin in (typing.Union, __import__("types").UnionType):
        tries = [_shape_problems(arg, value, path) for arg in args if arg is not type(None)]
        return [] if value is None or any(not t for t in tries) else tries[0]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, documented as a list"]
        return [p for i, v in enumerate(value) for p in _shape_problems(args[0], v, f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, documented as a mapping"]
        return [p for k, v in value.items() for p in _shape_problems(args[1], v, f"{path}.{k}")]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if not isinstance(value, dict):
            return []  # a model built by hand, or an Output: checked by the model itself
        fields = annotation.model_fields
        return [
            p
            for k, v in value.items()
            if k in fields
            for p in _shape_problems(fields[k].annotation, v, f"{path}.{k}")
        ]
    return []


def test_readme_examples_use_the_documented_shapes(monkeypatch):
    """Every component a README example creates is given its args in the shapes the
    reference (docs/reference.md) and the package schema document."""
    import nodepools
    from nodepools.provider.host import component_kinds

    given: list[tuple[str, type, dict]] = []
    for component, model in component_kinds():

        def __init__(self, name, args=None, *rest, _model=model, **kw):
            if isinstance(args, dict):
                given.append((f"{type(self).__name__}({name!r})", _model, args))
            super(type(self), self).__init__(name, args, *rest, **kw)

        # A subclass, so that the class's own helpers (`served`, `for_pools`) still work.
        recording = type(component.__name__, (component,), {"__init__": __init__})
        monkeypatch.setattr(nodepools, component.__name__, recording)
    namespace: dict = {}
    program_blocks = [b for b in BLOCKS if "nodepools.offline" not in b]
    run(lambda: [exec(block, namespace) for block in program_blocks])
    assert len(given) >= 10
    problems = [p for where, model, args in given for p in _shape_problems(model, args, where)]
    assert problems == []
