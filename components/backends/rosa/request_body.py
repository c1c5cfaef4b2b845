"""The OCM MachinePool body: its rules and the body we send (how two bodies differ:
nodepools.backends.rosa.body_diff).

Pure functions over plain dicts (the JSON OCM speaks), shared by the dynamic provider's
check, diff, create (adoption) and update. Values may arrive as Pulumi hands them to a
dynamic provider: integers as floats, and (during preview) the "unknown" sentinel string in
place of any value; both are tolerated here, an unknown simply never equals a known value.

Which fields are which (OCM facts, see ../shared/ocm/README.md):
- immutable after create, a change means replacing the pool: ``id``, ``instance_type``,
  ``aws.spot_market_options`` (spot on/off and its max price), ``root_volume``, ``subnets``,
  ``availability_zones``, ``aws.additional_security_group_ids``;
- updated in place by PATCH: ``replicas`` / ``autoscaling``, ``labels``, ``taints`` (the
  whole set is replaced).
``root_volume``, ``subnets`` and ``availability_zones`` are optional and OCM picks a value
when they are left out. Leaving ``root_volume`` out later means "keep what OCM has", not a
change; leaving out ``subnets`` or ``availability_zones`` that the pool was created with
unpins it (on a multi-AZ cluster an unpinned pool spans all three zones), a replacement
(nodepools.backends.rosa.body_diff ``FACETS``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nodepools.backends.rosa.body_diff import as_int, normalize_body
from nodepools.json_values import is_dict, is_list
from nodepools.specs.core.base import Issue, SpecError
from nodepools.specs.pools.checks import REPLICAS_AND_AUTOSCALING
from nodepools.specs.pools.resolve import ResolvedPool

POOL_ID_PATTERN = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
ROOT_VOLUME_MIN_GIB = 128
ROOT_VOLUME_MAX_GIB = 16384
MULTI_AZ_MULTIPLE = 3
SECURITY_GROUP_ID = re.compile(r"^sg-[0-9a-f]+$")
AWS_KEYS = ("spot_market_options", "additional_security_group_ids")

BODY_KEYS = frozenset(
    {
        "id",
        "instance_type",
        "replicas",
        "autoscaling",
        "labels",
        "taints",
        "aws",
        "root_volume",
        "subnets",
        "availability_zones",
    }
)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: where (a dotted path) and why (quoting the value)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"`{self.path}`: {self.reason}"


# -- validation ----------------------------------------------------------------------------


def body_problems(body: Any, *, multi_az: bool, path: str = "body") -> list[Problem]:
    """Every rule OCM enforces on a new machine pool that can be checked offline."""
    if not is_dict(body):
        return [Problem(path, f"must be an object (the OCM MachinePool body), got {body!r}")]
    problems: list[Problem] = []

    def add(field: str, reason: str) -> None:
        problems.append(Problem(f"{path}.{field}", reason))

    for key in sorted(set(body) - BODY_KEYS):
        add(
            key, f"is not a machine-pool field this provider manages (allowed: {sorted(BODY_KEYS)})"
        )

    pool_id = body.get("id")
    if not isinstance(pool_id, str) or not pool_id:
        add("id", f"is required (a string), got {pool_id!r}")
    elif not POOL_ID_PATTERN.match(pool_id):
        add(
            "id",
            f"{pool_id!r} must match {POOL_ID_PATTERN.pattern} (lower-case letters, digits "
            f"and '-', starting with a letter and not ending with '-')",
        )

    instance_type = body.get("instance_type")
    if not isinstance(instance_type, str) or not instance_type.strip():
        add("instance_type", f"is required (e.g. 'g4dn.xlarge'), got {instance_type!r}")

    pinned_to_one_zone = _pinned_to_one_zone(body)
    needs_multiple = multi_az and not pinned_to_one_zone
    has_replicas = body.get("replicas") is not None
    has_autoscaling = body.get("autoscaling") is not None
    if has_replicas and has_autoscaling:
        add("replicas", REPLICAS_AND_AUTOSCALING)
    elif not has_replicas and not has_autoscaling:
        add("replicas", "One of `replicas` or `autoscaling` is required.")
    if has_replicas:
        _check_count(body["replicas"], "replicas", needs_multiple, add)
    if has_autoscaling:
        _check_autoscaling(body["autoscaling"], needs_multiple, add)

    _check_labels(body.get("labels"), add)
    _check_taints(body.get("taints"), add)
    _check_aws(body.get("aws"), add)
    _check_root_volume(body.get("root_volume"), add)

    for key in ("subnets", "availability_zones"):
        value = body.get(key)
        if value is not None and (
            not is_list(value)
            or not value
            or not all(isinstance(item, str) and item for item in value)
        ):
            add(key, f"must be a non-empty list of strings, got {value!r}")
    if body.get("subnets") and body.get("availability_zones"):
        add("availability_zones", "can't be given together with `subnets` (pick one)")
    if body.get("availability_zones") and not multi_az:
        add(
            "availability_zones",
            f"{body['availability_zones']!r} can only be chosen on a multi-AZ cluster",
        )
    return problems


def _pinned_to_one_zone(body: dict[str, Any]) -> bool:
    """A pool placed in one zone of a multi-AZ cluster is exempt from the multiple-of-3 rule."""
    for key in ("subnets", "availability_zones"):
        value = body.get(key)
        if is_list(value) and len(value) == 1:
            return True
    return False


def _check_count(
    value: Any, field: str, needs_multiple: bool, add: Callable[[str, str], None]
) -> None:
    count = as_int(value)
    if count is None:
        add(field, f"must be a whole number, got {value!r}")
    elif count < 0:
        add(field, f"{count} can't be negative")
    elif needs_multiple and count % MULTI_AZ_MULTIPLE:
        add(field, f"{count} must be a multiple of 3 on a multi-AZ cluster")


def _check_autoscaling(value: Any, needs_multiple: bool, add: Callable[[str, str], None]) -> None:
    if not is_dict(value):
        add("autoscaling", f"must be an object with min_replicas and max_replicas, got {value!r}")
        return
    for key in sorted(set(value) - {"min_replicas", "max_replicas"}):
        add(f"autoscaling.{key}", "is not an autoscaling field (min_replicas, max_replicas)")
    for key in ("min_replicas", "max_replicas"):
        if value.get(key) is None:
            add(f"autoscaling.{key}", "is required when `autoscaling` is given")
        else:
            _check_count(value[key], f"autoscaling.{key}", needs_multiple, add)
    low, high = as_int(value.get("min_replicas")), as_int(value.get("max_replicas"))
    if low is not None and high is not None and low > high:
        add(
            "autoscaling.min_replicas",
            f"{low} can't be greater than `max_replicas` {high}",
        )
    if high == 0:
        add("autoscaling.max_replicas", "0 would never run a node; use at least 1")


def _check_labels(labels: Any, add: Callable[[str, str], None]) -> None:
    if labels is None:
        return
    if not is_dict(labels):
        add("labels", f"must be an object of string keys and values, got {labels!r}")
        return
    for key, value in labels.items():
        if not isinstance(key, str) or not key:
            add("labels", f"key {key!r} must be a non-empty string")
        elif not isinstance(value, str):
            add(f"labels.{key}", f"must be a string, got {value!r}")


def _check_taints(taints: Any, add: Callable[[str, str], None]) -> None:
    if taints is None:
        return
    if not is_list(taints):
        add("taints", f"must be a list of {{key, value, effect}}, got {taints!r}")
        return
    seen: set[tuple[str, str]] = set()
    for index, taint in enumerate(taints):
        where = f"taints[{index}]"
        if not is_dict(taint):
            add(where, f"must be an object {{key, value, effect}}, got {taint!r}")
            continue
        for key in sorted(set(taint) - {"key", "value", "effect"}):
            add(f"{where}.{key}", "is not a taint field (key, value, effect)")
        key, effect, value = taint.get("key"), taint.get("effect"), taint.get("value")
        if not isinstance(key, str) or not key:
            add(f"{where}.key", f"is required (a string), got {key!r}")
        if value is not None and not isinstance(value, str):
            add(f"{where}.value", f"must be a string, got {value!r}")
        if effect not in TAINT_EFFECTS:
            add(f"{where}.effect", f"{effect!r} must be one of {', '.join(TAINT_EFFECTS)}")
        if isinstance(key, str) and isinstance(effect, str):
            if (key, effect) in seen:
                add(where, f"duplicates the taint {key!r} with effect {effect!r}")
            seen.add((key, effect))


def _check_aws(aws: Any, add: Callable[[str, str], None]) -> None:
    if aws is None:
        return
    if not is_dict(aws):
        add("aws", f"must be an object, got {aws!r}")
        return
    for key in sorted(set(aws) - set(AWS_KEYS)):
        add(f"aws.{key}", f"is not managed by this provider (only {', '.join(AWS_KEYS)})")
    groups = aws.get("additional_security_group_ids")
    if groups is not None and (
        not is_list(groups)
        or not groups
        or not all(isinstance(g, str) and SECURITY_GROUP_ID.match(g) for g in groups)
    ):
        add(
            "aws.additional_security_group_ids",
            f"must be a non-empty list of security group ids (sg-...), got {groups!r}",
        )
    spot = aws.get("spot_market_options")
    if spot is None:
        return
    if not is_dict(spot):
        add("aws.spot_market_options", f"must be an object (possibly empty), got {spot!r}")
        return
    for key in sorted(set(spot) - {"max_price"}):
        add(f"aws.spot_market_options.{key}", "is not a spot option (max_price)")
    price = spot.get("max_price")
    if price is None:
        return
    if isinstance(price, bool) or not isinstance(price, int | float) or not math.isfinite(price):
        add("aws.spot_market_options.max_price", f"must be a number, got {price!r}")
    elif price <= 0:
        add(
            "aws.spot_market_options.max_price",
            f"{price} must be greater than 0 (leave it out to cap at the on-demand price)",
        )


def _check_root_volume(root_volume: Any, add: Callable[[str, str], None]) -> None:
    if root_volume is None:
        return
    size = root_volume.get("aws", {}).get("size") if is_dict(root_volume) else None
    if not is_dict(root_volume) or set(root_volume) != {"aws"} or size is None:
        add("root_volume", f"must be {{'aws': {{'size': <GiB>}}}}, got {root_volume!r}")
        return
    gib = as_int(size)
    if gib is None:
        add("root_volume.aws.size", f"must be a whole number of GiB, got {size!r}")
    elif not ROOT_VOLUME_MIN_GIB <= gib <= ROOT_VOLUME_MAX_GIB:
        add(
            "root_volume.aws.size",
            f"{gib} must be between {ROOT_VOLUME_MIN_GIB} and {ROOT_VOLUME_MAX_GIB} GiB",
        )


def machine_pool_body(pool: ResolvedPool) -> dict[str, Any]:
    """The OCM MachinePool body of a resolved pool, in the provider's canonical form.

    `availability_zone` / `subnet_id` become one-element `availability_zones` / `subnets`
    and `additional_security_group_ids` goes under `aws`. Taints keep their Kubernetes effect names (OCM takes them as they are). Spot without a
    price is ``spot_market_options: {}``: OCM then caps at the on-demand price. The root
    volume is sent only when the pool sets one, leaving OCM's default (300 GiB) otherwise.
    """
    body: dict[str, Any] = {"id": pool.pool_name, "instance_type": pool.instance_type}
    if pool.autoscaled:
        body["autoscaling"] = {"min_replicas": pool.min_nodes, "max_replicas": pool.max_nodes}
    else:
        body["replicas"] = pool.min_nodes
    body["labels"] = dict(pool.labels)
    body["taints"] = [
        {"key": t.key, "value": t.value, "effect": t.effect}
        if t.value is not None
        else {"key": t.key, "effect": t.effect}
        for t in pool.taints
    ]
    aws: dict[str, Any] = {}
    if pool.spot is not None:
        options = {} if pool.spot.max_price is None else {"max_price": pool.spot.max_price}
        aws["spot_market_options"] = options
    if pool.additional_security_group_ids:
        aws["additional_security_group_ids"] = list(pool.additional_security_group_ids)
    if aws:
        body["aws"] = aws
    if pool.boot_volume_gb is not None:
        body["root_volume"] = {"aws": {"size": pool.boot_volume_gb}}
    # A single-AZ pool: one zone of a multi-AZ cluster, or one subnet (rhcs `availability_zone`
    # and `subnet_id` send these one-element lists).
    if pool.availability_zone is not None:
        body["availability_zones"] = [pool.availability_zone]
    if pool.subnet_id is not None:
        body["subnets"] = [pool.subnet_id]
    # The spec rules and the provider's are written twice (pydantic vs plain dicts); a
    # pool that passed one and not the other must fail here, before registration, not at
    # `pulumi up`.
    problems = body_problems(body, multi_az=pool.cluster.multi_az is True)
    if problems:
        raise SpecError(
            f"pool {pool.component_name!r}",
            [Issue(problem.path, problem.reason) for problem in problems],
        )
    return normalize_body(body)
