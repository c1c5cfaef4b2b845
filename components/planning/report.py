"""A plan report: titled sections of lines, and whether anything failed."""

from __future__ import annotations

from dataclasses import dataclass, field

from nodepools.backends.dynamic_support import whole_numbers

__all__ = ["Section", "whole_numbers"]


@dataclass
class Section:
    title: str
    lines: list[str] = field(default_factory=list)
    failures: int = 0  # invalid manifests, mandatory policy violations, ...

    def render(self) -> str:
        underline = "-" * len(self.title)
        body = "\n".join(self.lines) if self.lines else "(none)"
        return f"{self.title}\n{underline}\n{body}\n"
