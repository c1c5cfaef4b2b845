"""What an importer makes of the files it read: the stack configuration, the objects a plan
of it must render (as the files say them), and why a field may come out otherwise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Difference:
    """One way the result differs from the input: `where` is the object (`Kind/name`) and,
    for a field, its path; `upstream` and `ours` are the two values (None: absent)."""

    where: str
    upstream: Any
    ours: Any
    why: str


@dataclass
class Imported:
    """An importer's result.

    `config` holds the `nodepools:*` keys of a stack file; `upstream` the objects (by
    `Kind/name` key) a plan of it should render, in the shape the plan captures them;
    `origins` which of those each config entry stands for (an entry the fleet refuses takes
    its objects out); `reasons` explain differences by the longest `where` prefix; `refused`
    lists what could not be imported at all.
    """

    source: str
    config: dict[str, Any]
    upstream: dict[str, dict[str, Any]]
    origins: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    reasons: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    refused: list[Difference] = field(default_factory=list[Difference])
    default_why: str = "the component renders it this way"
    # Said once on standard error after the differences (e.g. why another component is used).
    notes: list[str] = field(default_factory=list[str])

    def why(self, where: str) -> str:
        """The reason recorded for the longest prefix of `where`, else the default."""
        best = ("", self.default_why)
        for prefix, reason in self.reasons:
            if _under(where, prefix) and len(prefix) > len(best[0]):
                best = (prefix, reason)
        return best[1]

    def explain(self, where: str, reason: str) -> None:
        self.reasons.append((where, reason))

    def refuse(self, where: str, upstream: Any, why: str) -> None:
        self.refused.append(Difference(where, upstream, None, why))


def _under(where: str, prefix: str) -> bool:
    if not where.startswith(prefix):
        return False
    rest = where[len(prefix) :]
    return rest == "" or rest[0] in " .[/"


def object_key(kind: str, name: str, namespace: str | None = None) -> str:
    """`Kind/name`, or `Kind/namespace/name` for a namespaced object."""
    return f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"
