"""What building the spec models costs a fresh process beyond pydantic's own work."""

from __future__ import annotations

import subprocess
import sys

from tests.specs.spec_models import spec_module_names

# Builds every spec model, then reports whether Python compiled its tokenizer's patterns.
CHILD = """
import importlib, tokenize
for name in {names!r}:
    importlib.import_module(name)
print(tokenize._compile.cache_info().currsize)
"""


def test_building_the_spec_models_reads_no_builtin_text_signature():
    """pydantic reads the signature of every `default_factory`; for a builtin type with a
    text signature (`list`, `tuple`), `inspect` parses that text with `tokenize`, whose
    patterns cost a fresh process ~12 M instructions to compile, then ~0.1 ms per field.
    `list[T]` (or `dict`) as the factory makes the same empty value without it."""
    code = CHILD.format(names=spec_module_names())
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "0", (
        "a spec model's default_factory is a builtin with a text signature "
        "(`default_factory=list`?): write `list[T]`"
    )
