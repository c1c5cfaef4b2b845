"""Kubernetes object names and resource quantities, as governance specs use them.

Names: Run:ai and OSMO name pools, departments, projects and platforms freely
(`shared_simulation_training_pool`, `ML-Ops`); Kubernetes object names are DNS labels.
A name maps to its Kubernetes form by lowercasing it and turning `_` into `-`
(`shared_simulation_training_pool` -> `shared-simulation-training-pool`); a name whose
mapped form is still not a DNS label is an error, never silently mangled further, and two
names that map to the same object name are an error where they would collide.

Quantities are exact (`fractions.Fraction`, parsed as the API server parses
`resource.Quantity`) so sums compare exactly against capacities, and are rendered back
in one canonical spelling so the same amount always registers the same input.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated, Any

from nodepools.validation.quantity import InvalidQuantity, parse_quantity
from pydantic import BeforeValidator, PlainSerializer

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_LABEL_MAX = 63
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS_SUBDOMAIN_MAX = 253


def object_name_problem(value: Any) -> str | None:
    """Why `value` can't be a Kubernetes object's name as it is (a DNS subdomain), or None."""
    if (
        not isinstance(value, str)
        or len(value) > DNS_SUBDOMAIN_MAX
        or not DNS_SUBDOMAIN.fullmatch(value)
    ):
        return (
            f"{value!r} is not a Kubernetes object name (lowercase alphanumerics, '-' and "
            "'.', at most 253 characters)"
        )
    return None


# The resources a quota or a default variable may name, and the Kubernetes resource
# each stands for (`gpu` is the pool's accelerator resource, decided per pool).
CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
_BINARY_SUFFIXES = (
    ("Ei", 2**60),
    ("Pi", 2**50),
    ("Ti", 2**40),
    ("Gi", 2**30),
    ("Mi", 2**20),
    ("Ki", 2**10),
)
_BYTE_RESOURCES = frozenset({MEMORY, EPHEMERAL_STORAGE})


def kube_name(name: str) -> str:
    """The Kubernetes object name for `name`: lowercase, `_` -> `-`."""
    return name.lower().replace("_", "-")


def kube_name_problem(name: Any) -> str | None:
    """Why `name` can't name Kubernetes objects (after mapping), or None when it can."""
    if not isinstance(name, str) or not name:
        return f"{name!r} must be a non-empty string"
    mapped = kube_name(name)
    if len(mapped) > DNS_LABEL_MAX or not DNS_LABEL.fullmatch(mapped):
        return (
            f"{name!r} can't name Kubernetes objects: it maps to {mapped!r} (lowercase, '_' "
            "-> '-'), which is not a DNS label (1 to 63 lowercase letters, digits and '-', "
            "starting and ending with a letter or digit)"
        )
    return None


def _check_name(value: Any) -> str:
    problem = kube_name_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _check_dns_label(value: Any) -> str:
    if not isinstance(value, str) or len(value) > DNS_LABEL_MAX or not DNS_LABEL.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a DNS label (1 to 63 lowercase letters, digits and '-', "
            "starting and ending with a letter or digit)"
        )
    return value


def _check_object_name(value: Any) -> str:
    if problem := object_name_problem(value):
        raise ValueError(problem)
    return value


# The name of a Kubernetes object, used as it is.
KubeObjectName = Annotated[str, BeforeValidator(_check_object_name)]
# A user-facing name (pool, department, project, platform, role) that maps to a DNS label.
ObjectName = Annotated[str, BeforeValidator(_check_name)]
# A name used as it is (a namespace): it must already be a DNS label.
DnsLabel = Annotated[str, BeforeValidator(_check_dns_label)]


def parse_amount(value: Any) -> Fraction:
    """A non-negative quantity as an exact Fraction; ValueError quoting the value otherwise."""
    if isinstance(value, Fraction):
        amount = value
    else:
        try:
            amount = parse_quantity(value)
        except InvalidQuantity:
            raise ValueError(
                f"{value!r} is not a Kubernetes quantity (e.g. 8, '500m', '64Gi')"
            ) from None
    if amount < 0:
        raise ValueError(f"{value!r} is negative; quantities are at least 0")
    return amount


def _serialize_amount(value: Fraction) -> int | str:
    return format_quantity(value)


# A non-negative resource quantity (`96`, `"500m"`, `"768Gi"`), held exactly.
Amount = Annotated[Fraction, BeforeValidator(parse_amount), PlainSerializer(_serialize_amount)]


def format_quantity(value: Fraction, resource: str = "") -> int | str:
    """One canonical spelling per amount: whole numbers as ints (bytes of memory and
    storage with the largest exact binary suffix), fractions in millis ("500m")."""
    if value.denominator == 1:
        whole = int(value)
        if resource in _BYTE_RESOURCES and whole:
            for suffix, size in _BINARY_SUFFIXES:
                if whole % size == 0:
                    return f"{whole // size}{suffix}"
        return whole
    millis = value * 1000
    if millis.denominator == 1:
        return f"{int(millis)}m"
    nanos = value * 10**9
    if nanos.denominator == 1:
        return f"{int(nanos)}n"
    # Finer than the API server keeps (it rounds up to nano units); round up the same way.
    return f"{-(-nanos.numerator // nanos.denominator)}n"


def display_quantity(value: Fraction | None, resource: str = "") -> str:
    """For reports: `-` for unknown, else the canonical spelling."""
    return "-" if value is None else str(format_quantity(value, resource))
