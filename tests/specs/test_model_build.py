"""What building the spec models costs beyond pydantic's own work."""

from __future__ import annotations

from tests.specs.spec_models import spec_models


def test_no_default_factory_is_a_builtin_read_from_its_text_signature():
    """pydantic reads the signature of every `default_factory` (does it take the validated
    data?). For a builtin type with a text signature (`list`, `tuple`), `inspect` parses that
    text with `tokenize`, whose patterns a fresh process compiles first (~12 M instructions),
    then ~0.1 ms per such field. `list[T]` (or `dict`) makes the same empty value without."""
    offenders = [
        f"{model.__module__}.{model.__qualname__}.{name}: {info.default_factory!r}"
        for model in spec_models()
        for name, info in model.model_fields.items()
        if isinstance(info.default_factory, type)
        and getattr(info.default_factory, "__text_signature__", None) is not None
    ]
    assert not offenders, "write `default_factory=list[T]`:\n" + "\n".join(offenders)
