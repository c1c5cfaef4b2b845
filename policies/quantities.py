"""Kubernetes resource quantities ("8", 8.0, "500m", "64Gi") as plain numbers.

Kueue quotas and Karpenter limits reach the policies either as JSON numbers (floats, once
the engine has serialized them) or as quantity strings; comparing them needs one scale.
"""

from __future__ import annotations

import re

_SUFFIXES: dict[str, float] = {
    "": 1.0,
    "m": 1e-3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
}

_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"
    r"(?:(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)|[eE](?P<exponent>[+-]?\d+))?$"
)


def parse_quantity(value: object) -> float | None:
    """The quantity as a number, or None when `value` is not a Kubernetes quantity."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if match is None:
        return None
    number = float(match["number"])
    if match["exponent"] is not None:
        return number * 10.0 ** int(match["exponent"])
    return number * _SUFFIXES[match["suffix"] or ""]
