"""The engines a program can meet: a user's plain Mocks, a preview, and our offline engine."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import yaml
from nodepools.offline import Capture, run
from nodepools.offline.mocks import OfflineMocks
from nodepools.planning.project import stack_names

STACKS = Path(__file__).resolve().parents[2] / "stacks"


class PlainMocks(pulumi.runtime.Mocks):
    """What a user writes first: outputs are the inputs, every call returns nothing."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        return f"{args.name}_id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        return {}


class PreviewMocks(pulumi.runtime.Mocks):
    """A preview of a first `up`: no ids, and no provider output is known yet."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[None, dict]:
        return None, {}

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        return {}


# engine -> (mocks factory, preview)
ENGINES: dict[str, tuple[Callable[[], pulumi.runtime.Mocks], bool]] = {
    "plain": (PlainMocks, False),
    "preview": (PreviewMocks, True),
    "offline": (OfflineMocks, True),
}


def run_on(engine: str, program: Callable[[], Any] | Path, **kwargs: Any) -> Capture:
    mocks, preview = ENGINES[engine]
    return run(program, mocks=mocks(), preview=preview, **kwargs)


def example_stacks() -> list[str]:
    """Every `stacks/Pulumi.<stack>.yaml`, found on disk."""
    return stack_names(STACKS)


def stack_config(stack: str) -> dict[str, Any]:
    document = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text()) or {}
    return document.get("config") or {}
