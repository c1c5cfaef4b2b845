"""Kubernetes resource quantities (``resource.Quantity``) as exact fractions.

Kueue's webhook compares quotas numerically (``lendingLimit <= nominalQuota``) and
rejects negative ones, so ``"1Gi"`` and ``1073741824`` must compare equal and ``"500m"``
must be less than ``1``. Fractions keep that exact for every suffix.
"""

from __future__ import annotations

import re
from fractions import Fraction

# apimachinery/pkg/api/resource/quantity.go: <sign><digits>[.<digits>]<suffix>, suffix one
# of the binary SI (Ki..Ei), decimal SI (n..E) or a decimal exponent (e3, E-2).
QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?\Z"
)
# Far beyond any real quota; keeps a hostile "1e999999999" from computing 10**999999999.
MAX_EXPONENT = 1000
BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


class InvalidQuantity(ValueError):
    """Not a Kubernetes quantity (or one too large to be meant)."""

    # apimachinery resource.ErrFormatWrong, what a webhook decoding the object answers.
    api_message = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def parse_quantity(value: object) -> Fraction:
    """The exact numeric value of a quantity given as a JSON string or number."""
    if isinstance(value, bool):
        raise InvalidQuantity(f"{value!r} is not a quantity")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidQuantity(f"{value!r} is not a quantity")
        return Fraction(value)
    if not isinstance(value, str):
        raise InvalidQuantity(f"{value!r} is not a quantity")
    match = QUANTITY.match(value)
    if not match:
        raise InvalidQuantity(f"{value!r} is not a quantity")
    number = Fraction(match.group("number"))
    suffix = match.group("suffix") or ""
    if suffix in BINARY:
        return number * BINARY[suffix]
    if suffix in DECIMAL:
        return number * Fraction(10) ** DECIMAL[suffix]
    if suffix:
        exponent = int(suffix[1:])
        if abs(exponent) > MAX_EXPONENT:
            raise InvalidQuantity(f"{value!r} is out of range")
        return number * Fraction(10) ** exponent
    return number


# The canonical exponents of decimal SI spellings, each with its suffix.
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in DECIMAL.items()} | {0: ""}


def canonical_spelling(value: object) -> object:
    """The spelling the API server gives a quantity (apimachinery's `Quantity.String()`), which
    is also what the Kubernetes provider stores for a built-in object's input: it round-trips
    them through the typed API, so `cpu: 1` is recorded as "1", 1000 as "1k", "0.5" as "500m",
    "1024Mi" as "1Gi". A value that is not a quantity is returned as it is (the API server
    refuses it with its own message)."""
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        value = repr(value)  # as JSON carries it: the decimal digits, not the binary fraction
    try:
        amount = parse_quantity(value)
    except InvalidQuantity:
        return value
    match = QUANTITY.match(value) if isinstance(value, str) else None
    suffix = (match.group("suffix") or "") if match else ""
    sign, amount = ("-", -amount) if amount < 0 else ("", amount)
    if suffix in BINARY and amount >= 1024 and amount.denominator == 1:
        whole = int(amount)
        for name, size in sorted(BINARY.items(), key=lambda item: -item[1]):
            if whole % size == 0:
                return f"{sign}{whole // size}{name}"
    # Decimal: rounded up to nano units, trailing zeros taken into an exponent that is a
    # multiple of 3 between -9 and 18.
    mantissa, exponent = -(-amount.numerator * 10**9 // amount.denominator), -9
    if mantissa == 0:
        return "0"
    while mantissa % 10 == 0 and exponent < 18:
        mantissa, exponent = mantissa // 10, exponent + 1
    mantissa, exponent = mantissa * 10 ** (exponent % 3), exponent - exponent % 3
    if suffix[:1] in ("e", "E") and suffix not in DECIMAL:
        return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")
    return f"{sign}{mantissa}{_DECIMAL_SUFFIX[exponent]}"
