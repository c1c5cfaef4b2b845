"""Constraints a cloud API enforces late (at apply time, or when nodes boot) checked up front."""

from __future__ import annotations

from nodepools.policies.engine_values import config_number, fmt, mapping, number
from nodepools.policies.resources import is_rosa_machine_pool, pool_view
from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

# OKE's own floor for a boot volume; bare-metal GPU images plus container and model caches
# outgrow it quickly, which is why the size must be chosen rather than defaulted.
DEFAULT_MIN_BOOT_VOLUME_GB = 50
# Multi-AZ ROSA clusters spread every machine pool over three availability zones.
_MULTI_AZ_ZONES = 3


def _validate_boot_volume(args: ResourceValidationArgs, report: ReportViolation) -> None:
    pool = pool_view(args.resource_type, args.props, args.name)
    if pool is None or not pool.bare_metal:
        return
    minimum = config_number(args, "minBootVolumeGb", DEFAULT_MIN_BOOT_VOLUME_GB)
    shape = ", ".join(pool.instance_types)
    if pool.boot_volume_gb is None:
        report(
            f"`{pool.path('boot_volume_gb')}`: bare-metal pool '{pool.name}' ({shape}) declares "
            f"no boot volume; set at least {fmt(minimum)} GB",
            None,
        )
    elif pool.boot_volume_gb < minimum:
        report(
            f"`{pool.path('boot_volume_gb')}`: bare-metal pool '{pool.name}' ({shape}) has a "
            f"{fmt(pool.boot_volume_gb)} GB boot volume, below the minimum of {fmt(minimum)} GB "
            "(policy config `minBootVolumeGb`)",
            None,
        )


def _validate_multi_az_replicas(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if not is_rosa_machine_pool(args.resource_type, args.props):
        return
    if args.props.get("multi_az") is not True:
        return
    body = mapping(args.props.get("body"))
    autoscaling = mapping(body.get("autoscaling"))
    sizes = {
        "body.replicas": body.get("replicas"),
        "body.autoscaling.min_replicas": autoscaling.get("min_replicas"),
        "body.autoscaling.max_replicas": autoscaling.get("max_replicas"),
    }
    for path, raw in sizes.items():
        value = number(raw)
        if value is not None and value % _MULTI_AZ_ZONES != 0:
            report(
                f"`{path}`: machine pool '{body.get('id', args.name)}' is on a multi-AZ cluster, "
                f"so `{path}` must be a multiple of {_MULTI_AZ_ZONES}; got {fmt(value)}",
                None,
            )


bare_metal_boot_volume = ResourceValidationPolicy(
    name="bare-metal-boot-volume",
    description="Bare-metal OCI node pools (BM.* shapes) declare a boot volume size.",
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "minBootVolumeGb": {
                "type": "number",
                "minimum": DEFAULT_MIN_BOOT_VOLUME_GB,
                "default": DEFAULT_MIN_BOOT_VOLUME_GB,
                "description": "Smallest boot volume, in GB, a bare-metal pool may declare.",
            }
        }
    ),
    validate=_validate_boot_volume,
)

rosa_multi_az_replicas = ResourceValidationPolicy(
    name="rosa-multi-az-replicas",
    description="ROSA machine pools on multi-AZ clusters size replicas and autoscaling bounds in multiples of 3.",
    enforcement_level=EnforcementLevel.MANDATORY,
    validate=_validate_multi_az_replicas,
)
