"""Taints, modelled once with Kubernetes effects and translated by each backend."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from nodepools.specs.core.base import PathError, SpecModel
from nodepools.specs.core.labels import LabelKey, label_value_problem
from pydantic import AfterValidator, Field, model_validator

TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
TAINT_EFFECTS: tuple[str, ...] = ("NoSchedule", "PreferNoSchedule", "NoExecute")
# PreferNoSchedule only discourages the scheduler; these keep pods that don't tolerate the
# taint off the node (the policy pack's `accelerator-pool-tainted` asks for one of them).
ISOLATING_EFFECTS: tuple[str, ...] = ("NoSchedule", "NoExecute")


def parse_taint_string(value: Any) -> Any:
    # Stack YAML may write taints the way kubectl does: "key=value:Effect" or "key:Effect".
    if not isinstance(value, str):
        return value
    head, colon, effect = value.rpartition(":")
    if not colon:
        raise ValueError(f"taint {value!r} must look like 'key=value:Effect' or 'key:Effect'")
    key, equals, taint_value = head.partition("=")
    return {"key": key, "value": taint_value if equals else None, "effect": effect}


def _check_value(value: str | None) -> str | None:
    if value is None:
        return None
    problem = label_value_problem(value)
    if problem:
        raise ValueError(problem.replace("label value", "taint value"))
    return value


class Taint(SpecModel):
    """A node taint: pods without a matching toleration are kept off (or evicted)."""

    key: LabelKey = Field(description="Taint key, a Kubernetes qualified name. Required.")
    value: Annotated[str | None, AfterValidator(_check_value)] = Field(
        default=None,
        description="Taint value; omitted when None (default None). An empty string is "
        'treated as no value, since Karpenter rejects `value: ""`.',
    )
    effect: TaintEffect = Field(
        description="`NoSchedule`, `PreferNoSchedule` or `NoExecute`. Required."
    )

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return parse_taint_string(value)

    def model_post_init(self, __context: Any) -> None:
        if self.value == "":
            object.__setattr__(self, "value", None)

    @property
    def sort_key(self) -> tuple[str, str, str]:
        return (self.key, self.effect, self.value or "")

    def __str__(self) -> str:
        return (
            f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"
        )


def _normalise(taints: list[Taint]) -> list[Taint]:
    # Sorted for determinism: the same taints in any order register the same inputs.
    return sorted(taints, key=lambda t: t.sort_key)


def _unique(taints: list[Taint]) -> list[Taint]:
    """A taint is identified by its key and effect: the API server refuses a node with two
    of one identity, and keeping either one would depend on the order they were written."""
    seen: dict[tuple[str, str], int] = {}
    for index, taint in enumerate(taints):
        first = seen.setdefault((taint.key, taint.effect), index)
        if first != index:
            raise PathError(
                f"[{index}]",
                f"{str(taint)!r} has the same key and effect as [{first}] "
                f"{str(taints[first])!r}; Kubernetes refuses two taints with one key and "
                "effect: keep one",
            )
    return _normalise(taints)


Taints = Annotated[list[Taint], AfterValidator(_unique)]


def merge_taints(defaults: Iterable[Taint], overrides: Iterable[Taint]) -> list[Taint]:
    """Defaults plus overrides; an override with the same key and effect replaces the default."""
    by_identity: dict[tuple[str, str], Taint] = {}
    for taint in [*defaults, *overrides]:
        by_identity[(taint.key, taint.effect)] = taint
    return _normalise(list(by_identity.values()))
