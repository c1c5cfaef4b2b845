"""The rules of a managed pool's args beyond each field's own: between fields, and the
cloud's limits, read from the cluster's `ClusterCapabilities` (never from its `kind`).

Each rule is a plain function `(value, cluster, fields) -> list[Issue]`: the field's value,
the pool's cluster target (None when it is unknown) and the args' fields that validated (a
field that failed is absent, and a rule reading it stays silent). Every Issue's path starts
at the args. `MACHINE_POOL_CHECKS`, `GPU_SPOT_POOL_CHECKS` and `SHARED_POOL_CHECKS` say which
rule runs on which field; the args models run them all in one model validator
(`pools.checked_args`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from nodepools.specs.catalog.accelerator_agreement import declared_accelerator_issues
from nodepools.specs.catalog.accelerators import (
    flex_bounds_problem,
    flex_size_problem,
    is_bare_metal,
    lookup_accelerator,
)
from nodepools.specs.catalog.eks_ami import ami_family, ami_volume_problem
from nodepools.specs.catalog.instance_checks import (
    instance_type_problem,
    missing_accelerator_problem,
)
from nodepools.specs.clusters.capabilities import capabilities_for
from nodepools.specs.core.base import Issue
from nodepools.specs.pools.capacity_reservation import reservation_issues
from nodepools.specs.pools.checked_args import Check
from nodepools.specs.pools.eks_checks import (
    EKS_SETTINGS_CHECKS,
    check_identity_label,
    check_shared_identity_label,
)
from nodepools.specs.pools.instance_mix import mix_issues
from nodepools.specs.pools.network import network_issues
from nodepools.specs.pools.refusals import field_refusal, part_refusals, quoted, refusals

Fields = Mapping[str, Any]

REPLICAS_AND_AUTOSCALING = "only one of `replicas` or `autoscaling` can be provided"
REPLICAS_OR_AUTOSCALING = "one of `replicas` or `autoscaling` is required"

_AMAZON_LINUX_RELEASE = re.compile(r"^\d+\.\d+\.\d+-\d{8}$")
# The nodeadm NodeConfig of a custom AMI needs these of the cluster (DescribeCluster).
CUSTOM_AMI_CLUSTER_FIELDS = ("endpoint", "certificate_authority", "service_cidr")


# -- limits ----------------------------------------------------------------------------------


def node_count_problem(count: int, cluster: object, *, single_zone: bool = False) -> str | None:
    """Why `count` nodes can't be asked of `cluster`: more than its cloud allows, or not the
    multiple it needs (multi-AZ ROSA: 3), unless the pool is pinned to one zone
    (`single_zone`)."""
    caps = capabilities_for(cluster)
    if caps is None:
        return None
    if count > caps.max_nodes:
        return (
            f"{count} is more than the {caps.max_nodes:,} nodes {caps.title} allow: "
            f"{caps.max_nodes_why}"
        )
    multiple = 1 if single_zone else caps.replicas_multiple
    if count % multiple == 0:
        return None
    why = f": {caps.replicas_multiple_why}" if caps.replicas_multiple_why else ""
    return f"{count} must be a multiple of {multiple} for {caps.title}{why}"


def boot_volume_problem(size: int, cluster: object, fields: Fields | None = None) -> str | None:
    """Why `size` GiB is not a boot volume `cluster` can take, or None: outside the
    cloud's range, or (EKS) smaller than the snapshot of the AMI the pool boots, unless
    `fields` give a custom `ami_id` (its snapshot is unknown here)."""
    caps = capabilities_for(cluster)
    if caps is None:
        return None
    low, high = caps.boot_volume_gb
    if not low <= size <= high:
        return f"{size} is outside {low}..{high} GiB for {caps.title}"
    if not caps.eks_ami_volumes or (fields or {}).get("ami_id") is not None:
        return None
    ami_type = getattr(cluster, "ami_type", None)
    what = f"the {ami_type} AMI" if ami_type else "the EKS-optimized AMI"
    return ami_volume_problem(size, ami_family(ami_type), what)


# -- the pool's instance type ----------------------------------------------------------------


def pool_type(fields: Fields) -> str | None:
    """The pool's instance type as validated: a MachinePool's `instance_type` (a mix's
    smallest), a SharedNodePool's `shape`."""
    return fields.get("instance_type") or fields.get("shape")


def pool_types(fields: Fields) -> list[str]:
    """Every instance type the pool may launch: a mix's, else its one type."""
    types: list[str | None] = fields.get("instance_types") or [pool_type(fields)]
    return [t for t in types if t]


def pinned_to_one_zone(fields: Fields) -> bool:
    """A pool with a zone or subnet of its own: multi-AZ multiples don't apply to it."""
    return fields.get("availability_zone") is not None or fields.get("subnet_id") is not None


def check_instance_type(name: str | None, cluster: Any, fields: Fields) -> list[Issue]:
    if not name or fields.get("instance_types"):  # a mix: `check_instance_types` has each
        return []
    problem = instance_type_problem(name, cluster)
    return [Issue("instance_type", problem)] if problem else []


def check_shape(shape: str, cluster: Any, fields: Fields) -> list[Issue]:
    problem = instance_type_problem(shape, cluster)
    return [Issue("shape", problem)] if problem else []


def check_instance_types(names: list[str] | None, cluster: Any, fields: Fields) -> list[Issue]:
    if names is None:
        return []
    return refusals("instance_types", names, cluster) or mix_issues(names, cluster)


def check_accelerator(accelerator: Any, cluster: Any, fields: Fields) -> list[Issue]:
    """Every pool's: an accelerated type's accelerator is known or given, and one given
    agrees with what the catalog knows of each type the pool may launch."""
    if accelerator is not None:
        return declared_accelerator_issues(pool_types(fields), accelerator)
    problem = missing_accelerator_problem(pool_type(fields), accelerator)
    return [Issue("accelerator", problem)] if problem else []


def check_gpu_accelerator(accelerator: Any, cluster: Any, fields: Fields) -> list[Issue]:
    """A GpuSpotPool's: an accelerator, from the catalog or given."""
    if issues := check_accelerator(accelerator, cluster, fields):
        return issues
    name = pool_type(fields)
    if accelerator is None and name and lookup_accelerator(name) is None:
        return [
            Issue(
                "accelerator",
                f"instance type {name!r} has no accelerator in the catalog; give "
                "`accelerator` (resource, count) or use a GPU instance type",
            )
        ]
    return []


def _flex_issues(name: str, value: float | None, fields: Fields) -> list[Issue]:
    shape = pool_type(fields)
    if not shape:
        return []
    if problem := flex_size_problem(shape, name, value):
        return [Issue(name, problem)]
    ocpus = fields.get("ocpus") if name == "memory_gb" else None
    if value is not None and (problem := flex_bounds_problem(shape, name, value, ocpus)):
        return [Issue(name, problem)]
    return []


def check_ocpus(ocpus: float | None, cluster: Any, fields: Fields) -> list[Issue]:
    return _flex_issues("ocpus", ocpus, fields)


def check_memory_gb(memory_gb: float | None, cluster: Any, fields: Fields) -> list[Issue]:
    return _flex_issues("memory_gb", memory_gb, fields)


# -- size ------------------------------------------------------------------------------------


def check_replicas(replicas: int | None, cluster: Any, fields: Fields) -> list[Issue]:
    if replicas is None:
        return []
    problem = node_count_problem(replicas, cluster, single_zone=pinned_to_one_zone(fields))
    return [Issue("replicas", problem)] if problem else []


def check_size(size: int, cluster: Any, fields: Fields) -> list[Issue]:
    problem = node_count_problem(size, cluster, single_zone=pinned_to_one_zone(fields))
    return [Issue("size", problem)] if problem else []


def check_autoscaling(autoscaling: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if autoscaling is None:
        return []
    if fields.get("replicas") is not None:
        return [Issue("autoscaling", REPLICAS_AND_AUTOSCALING)]
    pinned = pinned_to_one_zone(fields)
    return [
        Issue(f"autoscaling.{bound}", problem)
        for bound in ("min_replicas", "max_replicas")
        if (problem := node_count_problem(getattr(autoscaling, bound), cluster, single_zone=pinned))
    ]


def check_replicas_or_autoscaling(autoscaling: Any, cluster: Any, fields: Fields) -> list[Issue]:
    """A MachinePool's: one of them (a GpuSpotPool has default bounds)."""
    if autoscaling is None and "replicas" in fields and fields["replicas"] is None:
        return [Issue("autoscaling", REPLICAS_OR_AUTOSCALING)]
    return []


def check_spot(spot: Any, cluster: Any, fields: Fields) -> list[Issue]:
    caps = capabilities_for(cluster)
    if spot is None or caps is None:
        return []
    issues: list[Issue] = []
    if spot.max_price is not None and not caps.spot_max_price:
        issues.append(
            Issue(
                "spot.max_price",
                f"{spot.max_price!r} can't be used: {caps.title} can't cap the spot price "
                f"({caps.spot_max_price_why}); remove `max_price`",
            )
        )
    shape = pool_type(fields)
    if shape and is_bare_metal(shape) and not caps.spot_bare_metal:
        issues.append(
            Issue(
                "spot",
                f"{quoted(spot)} can't be used on {caps.title} with the bare-metal shape "
                f"{shape!r}: {caps.spot_bare_metal_why}",
            )
        )
    return issues


def check_boot_volume_gb(size: int | None, cluster: Any, fields: Fields) -> list[Issue]:
    problem = boot_volume_problem(size, cluster, fields) if size is not None else None
    return [Issue("boot_volume_gb", problem)] if problem else []


def check_shared_boot_volume_gb(size: int | None, cluster: Any, fields: Fields) -> list[Issue]:
    """A SharedNodePool's: also required on bare metal, whose images need more room than
    the clouds' default boot volume (the seed system requires it for the same reason)."""
    shape = pool_type(fields)
    if size is None and shape and is_bare_metal(shape):
        return [Issue("boot_volume_gb", f"`boot_volume_gb` is required when `shape` is bare metal ({shape})")]  # fmt: skip
    return check_boot_volume_gb(size, cluster, fields)


# -- settings --------------------------------------------------------------------------------


def check_node_config(config: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if config is None:
        return []
    if issues := refusals("node_config", config, cluster):
        return issues
    ami_type = getattr(cluster, "ami_type", None)
    if ami_type and ami_type.startswith(("AL2_", "WINDOWS_")):
        return [
            Issue(
                "node_config",
                f"`cluster.ami_type` {ami_type!r} can't take `node_config`: it becomes a "
                "nodeadm NodeConfig (AL2023) or TOML settings (Bottlerocket), and AL2 "
                "bootstraps with bootstrap.sh; use an AL2023 or Bottlerocket "
                "`cluster.ami_type` (or none)",
            )
        ]
    return []


def check_metadata_options(options: Any, cluster: Any, fields: Fields) -> list[Issue]:
    return refusals("metadata_options", options, cluster)


def check_boot_volume(volume: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if volume is None:
        return []
    issues = refusals("boot_volume", volume, cluster)
    size_gb = fields.get("boot_volume_gb")
    if size_gb is not None and volume.size_gb is not None:
        issues.append(
            Issue(
                "boot_volume",
                f"give `boot_volume.size_gb` or `boot_volume_gb`, not both (size_gb "
                f"{volume.size_gb!r}, boot_volume_gb {size_gb!r})",
            )
        )
    elif volume.size_gb is not None and (
        problem := boot_volume_problem(volume.size_gb, cluster, fields)
    ):
        issues.append(Issue("boot_volume.size_gb", problem))
    return issues


def check_update(update: Any, cluster: Any, fields: Fields) -> list[Issue]:
    return refusals("update", update, cluster)


def check_auto_repair(repair: bool | None, cluster: Any, fields: Fields) -> list[Issue]:
    return refusals("auto_repair", repair, cluster)


def check_release_version(release: str | None, cluster: Any, fields: Fields) -> list[Issue]:
    if release is None or cluster is None:
        return []
    if issues := refusals("release_version", release, cluster):
        return issues
    ami_type = getattr(cluster, "ami_type", None) or ""
    if not ami_type.startswith("BOTTLEROCKET") and not _AMAZON_LINUX_RELEASE.fullmatch(release):
        return [
            Issue(
                "release_version",
                f"{release!r} is a Bottlerocket release, but the pool runs an Amazon Linux AMI "
                f"type ({ami_type or 'the default for its instance type'}): those are "
                "`<Kubernetes version>-<YYYYMMDD>`, e.g. `1.33.0-20250704`",
            )
        ]
    return []


def check_ami_id(ami_id: str | None, cluster: Any, fields: Fields) -> list[Issue]:
    if ami_id is None:
        return []
    if issues := refusals("ami_id", ami_id, cluster):
        return issues
    problems: list[str] = []
    ami_type = getattr(cluster, "ami_type", None)
    if ami_type is not None and ami_family(ami_type) not in ("al2023", "bottlerocket"):
        problems.append(
            f"{ami_id!r} can't be used with `cluster.ami_type` {ami_type!r}: a custom AMI "
            "boots AL2023 (nodeadm) or Bottlerocket (`ami_family`), and the node group's AMI "
            "type becomes CUSTOM; remove `cluster.ami_type`, or use an AL2023 or Bottlerocket "
            "one"
        )
    release = fields.get("release_version")
    if release is not None:
        problems.append(
            f"{ami_id!r} can't be used with `release_version` {release!r}: a release pins an "
            "EKS-optimized AMI, not a custom one; remove one of them"
        )
    missing = [
        f"`cluster.{name}`"
        for name in CUSTOM_AMI_CLUSTER_FIELDS
        if getattr(cluster, name, None) is None
    ]
    if cluster is not None and missing:
        problems.append(
            f"{ami_id!r} needs {', '.join(missing)}: a custom AMI's user data (nodeadm "
            "NodeConfig, Bottlerocket settings) must name the cluster's API server endpoint, "
            "certificate authority and service CIDR (EKS merges no bootstrap into it)"
        )
    return [Issue("ami_id", problem) for problem in problems]


def check_availability_zone(zone: str | None, cluster: Any, fields: Fields) -> list[Issue]:
    return refusals("availability_zone", zone, cluster)


def check_subnet_id(subnet: str | None, cluster: Any, fields: Fields) -> list[Issue]:
    if subnet is None:
        return []
    if issues := refusals("subnet_id", subnet, cluster):
        return issues
    zone = fields.get("availability_zone")
    if zone is not None:
        return [
            Issue(
                "subnet_id",
                f"give `subnet_id` or `availability_zone`, not both (OCM and rhcs refuse the "
                f"pair; subnet_id {subnet!r}, availability_zone {zone!r})",
            )
        ]
    return []


def check_additional_security_group_ids(
    groups: list[str] | None, cluster: Any, fields: Fields
) -> list[Issue]:
    return refusals("additional_security_group_ids", groups, cluster)


def check_network(network: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if network is None or cluster is None:  # whether the cloud takes it at all is unknown
        return []
    return refusals("network", network, cluster) or network_issues(
        network, cluster, pool_types(fields)
    )


def check_capacity_reservation(reservation: Any, cluster: Any, fields: Fields) -> list[Issue]:
    if reservation is None:
        return []
    if refusal := field_refusal("capacity_reservation", reservation, cluster):
        return [refusal]
    caps = capabilities_for(cluster)
    system = caps.capacity_reservations if caps is not None else None
    return [
        *part_refusals("capacity_reservation", reservation, cluster),
        *reservation_issues(reservation, system, fields),
    ]


# -- which rule runs on which field, in the order of the args' fields ------------------------

SETTINGS_CHECKS: tuple[tuple[str, Check], ...] = (
    ("node_config", check_node_config),
    ("metadata_options", check_metadata_options),
    ("boot_volume", check_boot_volume),
    ("update", check_update),
    ("auto_repair", check_auto_repair),
    ("release_version", check_release_version),
    ("ami_id", check_ami_id),
    ("network", check_network),
    ("capacity_reservation", check_capacity_reservation),
    *EKS_SETTINGS_CHECKS,
)
PLACEMENT_CHECKS: tuple[tuple[str, Check], ...] = (
    ("availability_zone", check_availability_zone),
    ("subnet_id", check_subnet_id),
    ("additional_security_group_ids", check_additional_security_group_ids),
)


def _managed_pool_checks(accelerator: Check, *scaling: Check) -> tuple[tuple[str, Check], ...]:
    return (
        ("instance_type", check_instance_type),
        ("instance_types", check_instance_types),
        *PLACEMENT_CHECKS,
        ("replicas", check_replicas),
        ("autoscaling", check_autoscaling),
        *(("autoscaling", check) for check in scaling),
        ("spot", check_spot),
        ("boot_volume_gb", check_boot_volume_gb),
        ("ocpus", check_ocpus),
        ("memory_gb", check_memory_gb),
        ("accelerator", accelerator),
        ("identity_label", check_identity_label),
        *SETTINGS_CHECKS,
    )


POOL_CHECKS = _managed_pool_checks(check_accelerator)
MACHINE_POOL_CHECKS = _managed_pool_checks(check_accelerator, check_replicas_or_autoscaling)
GPU_SPOT_POOL_CHECKS = _managed_pool_checks(check_gpu_accelerator)
SHARED_POOL_CHECKS: tuple[tuple[str, Check], ...] = (
    ("shape", check_shape),
    *PLACEMENT_CHECKS,
    ("size", check_size),
    ("boot_volume_gb", check_shared_boot_volume_gb),
    ("ocpus", check_ocpus),
    ("memory_gb", check_memory_gb),
    ("accelerator", check_accelerator),
    ("spot", check_spot),
    ("identity_label", check_shared_identity_label),
    *SETTINGS_CHECKS,
)
