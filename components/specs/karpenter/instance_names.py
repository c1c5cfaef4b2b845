"""The EC2 names a Karpenter pool's instance requirements list (types, families,
categories), checked against the instance catalog as a managed pool's instance type is: a
name of no EC2 form is an error, a well-formed one the catalog lacks a plan warning (EC2
may have it; the pool then takes it as having no accelerator).

The args check their own lists (`values`); this module checks the same names written as
`requirements` on the same keys, and lists the warnings of both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from nodepools.specs.catalog.ec2_families import (
    category_problem,
    family_problem,
    unknown_category_warning,
    unknown_ec2_type_warning,
    unknown_family_warning,
)
from nodepools.specs.catalog.instance_types import name_problem
from nodepools.specs.karpenter.labels import (
    INSTANCE_CATEGORY_LABEL,
    INSTANCE_FAMILY_LABEL,
    INSTANCE_TYPE_LABEL,
)

Check = Callable[[str], "str | None"]

# Requirement key -> (the problem of a value, the warning of a value, the arg of the key).
NAME_RULES: dict[str, tuple[Check, Check, str]] = {
    INSTANCE_TYPE_LABEL: (
        lambda value: name_problem(value, "aws"),
        unknown_ec2_type_warning,
        "instance_types",
    ),
    INSTANCE_FAMILY_LABEL: (family_problem, unknown_family_warning, "instance_families"),
    INSTANCE_CATEGORY_LABEL: (category_problem, unknown_category_warning, "instance_categories"),
}


def requirement_value_problem(key: str, value: str) -> str | None:
    """Why `value` can't be a value of a requirement on `key` (None for other keys)."""
    rules = NAME_RULES.get(key)
    return rules[0](value) if rules is not None else None


def name_warnings(named: Iterable[tuple[str, Iterable[str]]]) -> tuple[str, ...]:
    """The warnings of the (requirement key, values) pairs, each once, in order."""
    found: list[str] = []
    for key, values in named:
        rules = NAME_RULES.get(key)
        if rules is None:
            continue
        for value in values:
            if (warning := rules[1](value)) and warning not in found:
                found.append(warning)
    return tuple(found)
