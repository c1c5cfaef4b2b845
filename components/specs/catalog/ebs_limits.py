"""What EBS accepts for a volume's provisioned performance, by volume type.

AWS's limits as of September 2025 (EC2 User Guide, Amazon EBS volume types): gp3
3,000-80,000 IOPS at most 500 per GiB, 125-2,000 MiB/s at most 0.25 MiB/s per provisioned
IOPS; io1 100-64,000 IOPS at most 50 per GiB; io2 100-256,000 IOPS at most 1,000 per GiB.
The per-GiB ratios are checked only when the size is given (else the AMI's root volume
size decides, unknown here).
"""

from __future__ import annotations

from dataclasses import dataclass

from nodepools.specs.core.base import Issue


@dataclass(frozen=True)
class IopsLimits:
    low: int
    high: int
    per_gib: int


IOPS_LIMITS = {
    "gp3": IopsLimits(3000, 80000, 500),
    "io1": IopsLimits(100, 64000, 50),
    "io2": IopsLimits(100, 256000, 1000),
}
GP3_BASELINE_IOPS = 3000
GP3_THROUGHPUT = (125, 2000)
GP3_THROUGHPUT_PER_IOPS = 0.25


# Which volume types take provisioned performance, and which need it (EC2 API,
# EbsBlockDevice: `Iops` is for io1, io2 and gp3 and required for io1 and io2;
# `Throughput` is for gp3 only).
IOPS_TYPES = ("gp3", "io1", "io2")
IOPS_REQUIRED = ("io1", "io2")
THROUGHPUT_TYPES = ("gp3",)


def ebs_volume_issues(
    volume_type: str | None,
    size_gb: float | None,
    iops: int | None,
    throughput: int | None,
    *,
    encrypted: bool | None = None,
    kms_key_id: str | None = None,
) -> list[Issue]:
    """Every way an EBS volume's settings break EBS's rules, one rule set for every volume
    we write (a pool's boot volume, a Karpenter node class's block devices); paths are the
    setting's name (`iops`, `throughput`, `kms_key_id`). A volume without a `volume_type`
    keeps the AMI's (or EC2's) type, unknown here: only what holds for every type is
    checked then."""
    if kms_key_id is not None and encrypted is False:
        return [
            Issue("kms_key_id", f"{kms_key_id!r} needs `encrypted: true` (got `encrypted: false`)")
        ]
    if volume_type is None:
        return []
    if iops is not None and volume_type not in IOPS_TYPES:
        return [Issue("iops", f"{iops!r}: only gp3, io1 and io2 take `iops`, not {volume_type!r}")]
    if volume_type in IOPS_REQUIRED and iops is None:
        return [Issue("iops", f"an {volume_type} volume needs `iops`")]
    if throughput is not None and volume_type not in THROUGHPUT_TYPES:
        return [
            Issue("throughput", f"{throughput!r}: only gp3 takes `throughput`, not {volume_type!r}")
        ]
    return ebs_performance_issues(volume_type, size_gb, iops, throughput)


def ebs_performance_issues(
    volume_type: str, size_gb: float | None, iops: int | None, throughput: int | None
) -> list[Issue]:
    """Every way `iops` and `throughput` fall outside what `volume_type` takes."""
    issues: list[Issue] = []
    limits = IOPS_LIMITS.get(volume_type)
    if iops is not None and limits is not None:
        if not limits.low <= iops <= limits.high:
            issues.append(
                Issue("iops", f"{iops} is outside {limits.low}..{limits.high} for {volume_type}")
            )
        elif size_gb is not None and iops > limits.per_gib * size_gb:
            most = int(limits.per_gib * size_gb)
            issues.append(
                Issue(
                    "iops",
                    f"{iops} is more than {limits.per_gib} IOPS per GiB of a {size_gb:g} GiB "
                    f"{volume_type} volume allow ({most}); grow the volume or lower `iops`",
                )
            )
    if throughput is not None and volume_type == "gp3":
        low, high = GP3_THROUGHPUT
        provisioned = iops if iops is not None else GP3_BASELINE_IOPS
        if not low <= throughput <= high:
            issues.append(
                Issue("throughput", f"{throughput} is outside {low}..{high} MiB/s for gp3")
            )
        elif throughput > GP3_THROUGHPUT_PER_IOPS * provisioned:
            issues.append(
                Issue(
                    "throughput",
                    f"{throughput} MiB/s is more than {GP3_THROUGHPUT_PER_IOPS} MiB/s per IOPS of "
                    f"{provisioned} IOPS allow ({int(GP3_THROUGHPUT_PER_IOPS * provisioned)}); "
                    "raise `iops`",
                )
            )
    return issues
