"""Checks of an instance type or shape against the cluster it is meant for.

Shared by every pool spec: the name must be of the cluster's cloud (an OCI shape on EKS, or
an EC2 type on OKE, is refused with what the cluster takes), an EKS cluster's `ami_type`
must boot the type's architecture, and a type of an accelerated family must have a known
accelerator or be given one. Karpenter's instance types, families and categories must
have an EC2 name's form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nodepools.specs.catalog.ec2_families import category_problem, family_problem
from nodepools.specs.catalog.eks_ami import ami_type_problem
from nodepools.specs.catalog.instance_types import (
    CLUSTER_CLOUDS,
    name_problem,
    unknown_accelerated_problem,
)
from nodepools.specs.core.base import PathError
from nodepools.specs.core.labels import label_value_problem


def instance_type_problem(name: str, cluster: Any) -> str | None:
    """Why `name` can't be the instance type (shape) of a pool on `cluster`, or None."""
    kind = getattr(cluster, "kind", None)
    cloud = CLUSTER_CLOUDS.get(kind) if isinstance(kind, str) else None
    if cloud is None:
        return None
    if problem := name_problem(name, cloud):
        return problem
    if kind == "eks":
        return ami_type_problem(getattr(cluster, "ami_type", None), name)
    return None


def missing_accelerator_problem(name: str | None, accelerator: Any) -> str | None:
    """Why a pool of `name` without an `accelerator` can't be built (see
    `unknown_accelerated_problem`), or None."""
    if accelerator is not None or not name:
        return None
    return unknown_accelerated_problem(name)


def ec2_instance_types(values: list[str]) -> list[str]:
    """A Karpenter `instance_types` list: each one an EC2 instance type (Karpenter is AWS)."""
    for index, value in enumerate(values):
        if problem := name_problem(value, "aws"):
            raise PathError(f"[{index}]", problem)
    return values


def _names(values: list[str], problem_of: Callable[[str], str | None]) -> list[str]:
    for index, value in enumerate(values):
        if not value or label_value_problem(value):
            continue  # no label value at all: the requirement's own check says so
        if problem := problem_of(value):
            raise PathError(f"[{index}]", problem)
    return values


def ec2_instance_families(values: list[str]) -> list[str]:
    """A Karpenter `instance_families` list: each one of an EC2 family's form."""
    return _names(values, family_problem)


def ec2_instance_categories(values: list[str]) -> list[str]:
    """A Karpenter `instance_categories` list: each one of an EC2 category's form."""
    return _names(values, category_problem)
