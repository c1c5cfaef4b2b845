"""A plan report: titled sections of lines, and whether anything failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def whole_numbers(value: Any) -> Any:
    """The engine sends every number as a float; show 4.0 as 4 in reports and artifacts."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [whole_numbers(item) for item in value]
    return value


@dataclass
class Section:
    title: str
    lines: list[str] = field(default_factory=list)
    failures: int = 0  # invalid manifests, mandatory policy violations, ...

    def render(self) -> str:
        underline = "-" * len(self.title)
        body = "\n".join(self.lines) if self.lines else "(none)"
        return f"{self.title}\n{underline}\n{body}\n"
