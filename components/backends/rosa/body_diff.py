"""How two OCM MachinePool bodies differ: the canonical form, the live view, the changes
that replace a pool or patch it, and the PATCH itself (rules and the body we send:
nodepools.backends.rosa.request_body). Pure functions over plain dicts; values may be
floats for integers or the preview's unknown sentinel, as a dynamic provider gets them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from nodepools.json_values import is_dict, is_list


def as_int(value: Any) -> int | None:
    """An integer, or an integral float (Pulumi sends numbers as floats); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


# -- canonical form ------------------------------------------------------------------------


def normalize_body(body: dict[str, Any]) -> dict[str, Any]:
    """The body as it is sent to OCM: whole numbers as ints, taints in a stable order.

    Expects a body without problems. Two bodies that mean the same thing normalize to the
    same dict, so state written from either never shows a spurious diff.
    """
    out: dict[str, Any] = {"id": body["id"], "instance_type": body["instance_type"]}
    if body.get("replicas") is not None:
        out["replicas"] = _int_or_raw(body["replicas"])
    else:
        autoscaling = body["autoscaling"]
        out["autoscaling"] = {
            "min_replicas": _int_or_raw(autoscaling["min_replicas"]),
            "max_replicas": _int_or_raw(autoscaling["max_replicas"]),
        }
    if body.get("labels") is not None:
        out["labels"] = dict(sorted(body["labels"].items()))
    if body.get("taints") is not None:
        out["taints"] = [_normalize_taint(taint) for taint in _sorted_taints(body["taints"])]
    aws = _aws_view(body)
    if aws:
        out["aws"] = aws
    if body.get("root_volume") is not None:
        out["root_volume"] = {"aws": {"size": _int_or_raw(body["root_volume"]["aws"]["size"])}}
    for key in ("subnets", "availability_zones"):
        if body.get(key) is not None:
            out[key] = list(body[key])
    return out


def live_view(live: dict[str, Any], desired: dict[str, Any] | None) -> dict[str, Any]:
    """The fields of a live OCM pool that this provider manages, in the shape of ``desired``.

    Optional fields that OCM fills in by itself (root volume, subnets, zones) are kept only
    when ``desired`` sets them, so that the stored state compares cleanly with the program;
    with no ``desired`` (a read without the program's body, as an import would be) every
    managed field is kept, and ``body_changes`` is then told ``imported``.
    """
    view: dict[str, Any] = {"id": live.get("id"), "instance_type": live.get("instance_type")}
    if live.get("autoscaling") is not None:
        autoscaling = live["autoscaling"]
        view["autoscaling"] = {
            "min_replicas": _int_or_raw(autoscaling.get("min_replicas")),
            "max_replicas": _int_or_raw(autoscaling.get("max_replicas")),
        }
    else:
        view["replicas"] = _int_or_raw(live.get("replicas", 0))
    wants = desired if desired is not None else {}
    labels: dict[str, Any] = live.get("labels") or {}
    if labels or "labels" in wants or desired is None:
        view["labels"] = dict(sorted(labels.items()))
    taints: list[Any] = live.get("taints") or []
    if taints or "taints" in wants or desired is None:
        view["taints"] = [_normalize_taint(taint) for taint in _sorted_taints(taints)]
    # Security groups are kept even when `desired` has none: OCM adds none by itself, so
    # groups there that the program does not want are a difference (a replacement).
    aws = _aws_view(live)
    if aws:
        view["aws"] = aws
    size = (live.get("root_volume") or dict[str, Any]()).get("aws", {}).get("size")
    if size is not None and ("root_volume" in wants or desired is None):
        view["root_volume"] = {"aws": {"size": _int_or_raw(size)}}
    for key in ("subnets", "availability_zones"):
        if live.get(key) and (key in wants or desired is None):
            view[key] = list(live[key])
    return view


def _aws_view(body: dict[str, Any]) -> dict[str, Any]:
    """The `aws` fields we manage: spot options and additional security groups (sorted)."""
    aws: dict[str, Any] = {}
    spot = _spot(body)
    if spot is not None:
        aws["spot_market_options"] = {} if spot[1] is None else {"max_price": spot[1]}
    groups = _security_groups(body)
    if groups:
        aws["additional_security_group_ids"] = list(groups)
    return aws


def _security_groups(body: dict[str, Any]) -> Any:
    aws = body.get("aws")
    groups = aws.get("additional_security_group_ids") if is_dict(aws) else None
    if is_list(groups):
        return tuple(sorted(str(g) for g in groups)) or None
    return groups


def _sorted_taints(taints: list[Any]) -> list[Any]:
    return sorted(taints, key=lambda t: _taint_key(t) if is_dict(t) else ("", "", ""))


def _normalize_taint(taint: dict[str, Any]) -> dict[str, Any]:
    out = {"key": taint.get("key"), "effect": taint.get("effect")}
    if taint.get("value") not in (None, ""):
        out["value"] = taint["value"]
    return out


def _taint_key(taint: dict[str, Any]) -> tuple[str, str, str]:
    # OCM may leave out an empty value; a missing value and "" are the same taint.
    return (str(taint.get("key")), str(taint.get("effect")), str(taint.get("value") or ""))


def _int_or_raw(value: Any) -> Any:
    number = as_int(value)
    return value if number is None else number


# -- comparison ----------------------------------------------------------------------------


AbsentMeans = Literal["compare", "keep", "keep-if-imported"]


@dataclass(frozen=True)
class _Facet:
    """One comparable aspect of a body: its public path, how to read it, and what its
    absence from the new body means.

    `keep`: whatever the pool has (a root volume OCM sized is as good as any).
    `keep-if-imported`: compared (a pool pinned to a zone or a subnet, then unpinned, is
    wanted elsewhere: on a multi-AZ cluster an unpinned pool spans all three zones), unless
    the old body was read from OCM without the program's (an import), which records the
    zones and subnets OCM filled in for every pool.
    """

    path: str
    read: Callable[[dict[str, Any]], Any]
    immutable: bool
    absent_means: AbsentMeans = "compare"

    def skipped(self, new_value: Any, imported: bool) -> bool:
        """Whether the new body leaves this facet to whatever the pool has."""
        if new_value is not None:
            return False
        return self.absent_means == "keep" or (self.absent_means == "keep-if-imported" and imported)


def _spot(body: dict[str, Any]) -> tuple[str, Any] | None:
    aws = body.get("aws")
    if not is_dict(aws) or aws.get("spot_market_options") is None:
        return None
    options = aws["spot_market_options"]
    price = options.get("max_price") if is_dict(options) else options
    return ("spot", price)


def _scaling(body: dict[str, Any]) -> tuple[Any, ...]:
    if body.get("autoscaling") is not None:
        autoscaling = body["autoscaling"]
        if not is_dict(autoscaling):
            return ("autoscaling", autoscaling)
        return (
            "autoscaling",
            _int_or_raw(autoscaling.get("min_replicas")),
            _int_or_raw(autoscaling.get("max_replicas")),
        )
    return ("replicas", _int_or_raw(body.get("replicas")))


def _labels(body: dict[str, Any]) -> Any:
    labels: dict[str, Any] = body.get("labels") or {}
    return tuple(sorted(labels.items())) if is_dict(labels) else labels


def _taints(body: dict[str, Any]) -> Any:
    taints: list[Any] = body.get("taints") or []
    if not is_list(taints):
        return taints
    return tuple(sorted(_taint_key(t) if is_dict(t) else ("?", repr(t), "") for t in taints))


def _root_volume(body: dict[str, Any]) -> Any:
    root_volume = body.get("root_volume")
    if root_volume is None:
        return None
    if not is_dict(root_volume) or not is_dict(root_volume.get("aws")):
        return root_volume
    return _int_or_raw(root_volume["aws"].get("size"))


def _zones(key: str) -> Callable[[dict[str, Any]], Any]:
    def read(body: dict[str, Any]) -> Any:
        value = body.get(key)
        return tuple(sorted(value)) if is_list(value) else value

    return read


FACETS: tuple[_Facet, ...] = (
    _Facet("id", lambda b: b.get("id"), immutable=True),
    _Facet("instance_type", lambda b: b.get("instance_type"), immutable=True),
    _Facet("aws.spot_market_options", _spot, immutable=True),
    _Facet("root_volume", _root_volume, immutable=True, absent_means="keep"),
    _Facet("subnets", _zones("subnets"), immutable=True, absent_means="keep-if-imported"),
    _Facet(
        "availability_zones",
        _zones("availability_zones"),
        immutable=True,
        absent_means="keep-if-imported",
    ),
    _Facet("aws.additional_security_group_ids", _security_groups, immutable=True),
    _Facet("scaling", _scaling, immutable=False),
    _Facet("labels", _labels, immutable=False),
    _Facet("taints", _taints, immutable=False),
)


@dataclass(frozen=True)
class BodyChanges:
    """What differs between an old and a new body, by facet path."""

    replace: tuple[str, ...]
    update: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.replace or self.update)


def body_changes(
    old: dict[str, Any], new: dict[str, Any], *, imported: bool = False
) -> BodyChanges:
    """Compare the pool that exists (``old``) with the one wanted (``new``); ``imported``:
    ``old`` was read from OCM without the program's body (see ``live_view``)."""
    replace: list[str] = []
    update: list[str] = []
    for facet in FACETS:
        new_value = facet.read(new)
        if facet.skipped(new_value, imported):
            continue
        if facet.read(old) != new_value:
            (replace if facet.immutable else update).append(facet.path)
    return BodyChanges(tuple(replace), tuple(update))


def describe_differences(live: dict[str, Any], desired: dict[str, Any]) -> list[str]:
    """Human-readable lines ``path: live X, wanted Y`` for every facet that differs
    (``live`` in the shape of ``desired``: ``live_view(live, desired)``)."""
    lines: list[str] = []
    for facet in FACETS:
        wanted = facet.read(desired)
        if facet.skipped(wanted, imported=False):
            continue
        actual = facet.read(live)
        if actual != wanted:
            lines.append(f"{facet.path}: has {_show(actual)}, wanted {_show(wanted)}")
    return lines


def _is_tuple_of(item: Any, size: int) -> bool:
    return isinstance(item, tuple) and len(cast("tuple[Any, ...]", item)) == size


def _show(value: Any) -> str:
    """Facet values read back as the fields they came from."""
    if value is None or value == ():
        return "none"
    if isinstance(value, tuple):
        value = cast("tuple[Any, ...]", value)
        match value:
            case ("replicas", count):
                return f"replicas {count!r}"
            case ("autoscaling", low, high):
                return f"autoscaling {low!r}..{high!r}"
            case ("spot", None):
                return "spot (no max price)"
            case ("spot", price):
                return f"spot (max_price {price!r})"
            case _:
                pass
        if all(_is_tuple_of(item, 2) for item in value):
            return repr(dict(value))  # labels
        if all(_is_tuple_of(item, 3) for item in value):
            return "[" + ", ".join(f"{k}={v}:{e}" for k, e, v in value) + "]"  # taints
    return repr(value)


def patch_for(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The PATCH body that turns ``old`` into ``new``: only the mutable fields that changed.

    Scaling is sent as the new mode alone (``replicas`` or ``autoscaling``): OCM drops the
    other mode itself, which is how the rhcs Terraform provider switches a pool between them.
    Labels and taints go as whole sets (an empty one clears them).
    """
    changes = body_changes(old, new)
    wanted = normalize_body(new)
    patch: dict[str, Any] = {}
    if "scaling" in changes.update:
        if "autoscaling" in wanted:
            patch["autoscaling"] = wanted["autoscaling"]
        else:
            patch["replicas"] = wanted["replicas"]
    if "labels" in changes.update:
        patch["labels"] = wanted.get("labels", {})
    if "taints" in changes.update:
        patch["taints"] = wanted.get("taints", [])
    return patch
