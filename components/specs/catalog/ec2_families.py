"""EC2 instance families and categories, as Karpenter labels them and the catalog knows
them: a family is the part of a type's name before the size (`g5`, `m7i-flex`,
`p6-b200`), a category the letters before its generation (`g`, `m`, `trn`; Karpenter's
`instanceTypeScheme`, v1.14.1).

A name of neither form is an error; a well-formed one the catalog lacks may be new to EC2,
so it is a warning (as for instance types, `instance_types.unknown_type_warning`).
"""

from __future__ import annotations

import re
from functools import cache

from nodepools.specs.catalog.instance_types import catalog_names, cloud_of_name, instance_type

_FAMILY = re.compile(r"[a-z]+\d+[a-z]*(?:-[a-z0-9]+)*|u-[a-z0-9]+")
_CATEGORY = re.compile(r"[a-z]+")
_CATEGORY_OF = re.compile(r"^[a-z]+")


def family_of(name: str) -> str:
    """The family of an EC2 type (`g5.xlarge` -> `g5`)."""
    return name.split(".", 1)[0]


def category_of_type(name: str) -> str | None:
    """Karpenter's category of an EC2 type: the letters its name starts with."""
    found = _CATEGORY_OF.match(name)
    return found[0] if found else None


def _ec2_names() -> list[str]:
    return [name for name in catalog_names() if cloud_of_name(name) == "aws"]


@cache
def catalog_families() -> frozenset[str]:
    """Every EC2 family of the catalog's types."""
    return frozenset(family_of(name) for name in _ec2_names())


@cache
def catalog_categories() -> tuple[str, ...]:
    """Every EC2 category of the catalog's types, sorted."""
    return tuple(sorted({c for name in _ec2_names() if (c := category_of_type(name))}))


def family_problem(value: str) -> str | None:
    """Why `value` can't be an EC2 instance family: a type's name, or no family's form."""
    if cloud_of_name(value) == "aws":
        return (
            f"{value!r} is an instance type, not a family; give its family "
            f"{family_of(value)!r} or list the type in `instance_types`"
        )
    if not _FAMILY.fullmatch(value):
        return (
            f"{value!r} is not an EC2 instance family (lowercase letters, a generation and "
            "options, e.g. `g5`, `m7i-flex`, `p6-b200`)"
        )
    return None


def category_problem(value: str) -> str | None:
    """Why `value` can't be an EC2 instance category: anything but lowercase letters."""
    if _CATEGORY.fullmatch(value):
        return None
    hint = ""
    if _FAMILY.fullmatch(value) or cloud_of_name(value) == "aws":
        hint = (
            f": {value!r} is a family or type; list it in `instance_families` or "
            "`instance_types`, or give its category"
        )
        if category := category_of_type(value):
            hint += f" {category!r}"
    return (
        f"{value!r} is not an EC2 instance category (the lowercase letters before a type's "
        f"generation, e.g. `g`, `p`, `trn`){hint}"
    )


def unknown_family_warning(value: str) -> str | None:
    """A warning for a well-formed family the catalog does not know (it may be new)."""
    if value in catalog_families() or family_problem(value) is not None:
        return None
    return (
        f"instance family {value!r} is not in the nodepools catalog: taken to carry its "
        "category's accelerator where the category has one kind (p, gr: NVIDIA GPUs; trn, "
        "inf: Neuron), else none (no accelerator taint, request or limit); check the name, "
        "as Karpenter launches nothing for a family EC2 doesn't have, or say its "
        "accelerator with `gpu_manufacturers` or `neuron_names`"
    )


def unknown_category_warning(value: str) -> str | None:
    """A warning for a well-formed category the catalog does not know (it may be new)."""
    if value in catalog_categories() or category_problem(value) is not None:
        return None
    return (
        f"instance category {value!r} is not one of the nodepools catalog's "
        f"({', '.join(catalog_categories())}): taken as one without accelerators; check the "
        "name, as Karpenter launches nothing for a category EC2 doesn't have (GPU types are "
        "categories `g` and `p`)"
    )


def unknown_ec2_type_warning(value: str) -> str | None:
    """A warning for a well-formed EC2 type the catalog does not know (it may be new)."""
    if instance_type(value) is not None or cloud_of_name(value) != "aws":
        return None
    return (
        f"instance type {value!r} is not in the nodepools catalog: taken to carry its "
        "family's accelerator, if any; check the name, as Karpenter launches nothing for "
        "a type EC2 doesn't have"
    )
