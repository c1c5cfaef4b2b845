"""The volumes of an EC2NodeClass's instances (`blockDeviceMappings`), written exactly as
the user sets them: nothing is added, `encrypted` included.

Rules mirror the `karpenter.k8s.aws/v1` EC2NodeClass CRD (v1.14.1) so that mistakes are
reported with their arg path; the rendered manifest is validated against the CRD as well.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from nodepools.specs.catalog.ebs_limits import ebs_volume_issues
from nodepools.specs.core.base import NestedIssues, PathError, SpecModel
from pydantic import BeforeValidator, Field, field_validator, model_validator

# The CRD's blockDeviceMappings[].ebs.volumeSize pattern: up to 64 TB in G/Gi/T/Ti.
_VOLUME_SIZE = re.compile(
    r"^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|"
    r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|"
    r"([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$"
)


_UNITS = {"Gi": 2**30, "G": 10**9, "Ti": 2**40, "T": 10**12}
_SIZE = re.compile(r"^(?P<number>\d+)(?P<unit>Gi|G|Ti|T)$")


def volume_size_gib(size: str) -> int:
    """GiB of a `volume_size` the CRD's pattern admits (`100Gi`, `1Ti`, `500G`), rounded up
    as Karpenter rounds it."""
    found = _SIZE.fullmatch(size)
    assert found is not None, size
    return math.ceil(int(found["number"]) * _UNITS[found["unit"]] / 2**30)


class EbsVolume(SpecModel):
    """`blockDeviceMappings[].ebs`, written as the user sets it (nothing added)."""

    volume_size: Annotated[
        str | None,
        BeforeValidator(
            lambda v: f"{v}Gi" if isinstance(v, int) and not isinstance(v, bool) else v
        ),
    ] = Field(
        default=None,
        description="Size such as `100Gi` or `1Ti` (a bare number is GiB). Default None "
        "(the snapshot's size).",
    )
    volume_type: Literal["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"] | None = Field(
        default=None, description="EBS volume type. Default None (EC2's: gp2)."
    )
    iops: int | None = Field(default=None, ge=0, description="IOPS (io1, io2, gp3). Default None.")
    throughput: int | None = Field(
        default=None, ge=0, description="Throughput in MiB/s (gp3). Default None."
    )
    encrypted: bool | None = Field(
        default=None, description="Encrypt the volume. Default None (the account's default)."
    )
    kms_key_id: str | None = Field(
        default=None, description="KMS key for encryption. Default None."
    )
    delete_on_termination: bool | None = Field(
        default=None, description="Delete with the instance. Default None (EC2's: true)."
    )
    snapshot_id: str | None = Field(default=None, description="Snapshot to restore. Default None.")
    volume_initialization_rate: int | None = Field(
        default=None,
        ge=100,
        le=300,
        description="MiB/s to hydrate a volume from `snapshot_id`, 100..300. Default None.",
    )

    @field_validator("volume_size")
    @classmethod
    def _size(cls, size: str | None) -> str | None:
        if size is not None and not _VOLUME_SIZE.fullmatch(size):
            raise ValueError(f"{size!r} is not a volume size such as '100Gi' or '1Ti' (max 64T)")
        return size

    @model_validator(mode="after")
    def _crd_rules(self) -> EbsVolume:
        # The CRD's rules, in its words.
        if self.snapshot_id is None and self.volume_size is None:
            raise PathError("volume_size", "snapshotID or volumeSize must be defined")
        if self.volume_initialization_rate is not None and not self.snapshot_id:
            raise PathError(
                "snapshot_id",
                "snapshotID must be set when volumeInitializationRate is set "
                f"({self.volume_initialization_rate!r})",
            )
        # EBS's own rules, the same as a managed pool's boot volume is held to.
        issues = ebs_volume_issues(
            self.volume_type,
            self.size_gib,
            self.iops,
            self.throughput,
            encrypted=self.encrypted,
            kms_key_id=self.kms_key_id,
        )
        if issues:
            raise NestedIssues(issues)
        return self

    @property
    def size_gib(self) -> int | None:
        """The volume's size in GiB as Karpenter asks EC2 for it (v1.14.1 `volumeSize`:
        the quantity in GiB, rounded up), or None without `volume_size`."""
        return None if self.volume_size is None else volume_size_gib(self.volume_size)

    def to_manifest(self) -> dict[str, Any]:
        keys = {
            "delete_on_termination": "deleteOnTermination",
            "encrypted": "encrypted",
            "iops": "iops",
            "kms_key_id": "kmsKeyID",
            "snapshot_id": "snapshotID",
            "throughput": "throughput",
            "volume_initialization_rate": "volumeInitializationRate",
            "volume_size": "volumeSize",
            "volume_type": "volumeType",
        }
        return {out: getattr(self, f) for f, out in keys.items() if getattr(self, f) is not None}


class BlockDeviceMapping(SpecModel):
    """One `blockDeviceMappings[]` entry of the EC2NodeClass."""

    device_name: str = Field(description="Device, e.g. `/dev/xvda`. Required.")
    ebs: EbsVolume = Field(description="The EBS volume. Required.")
    root_volume: bool | None = Field(
        default=None, description="This is the root volume (at most one). Default None."
    )

    def to_manifest(self) -> dict[str, Any]:
        mapping: dict[str, Any] = {"deviceName": self.device_name, "ebs": self.ebs.to_manifest()}
        if self.root_volume is not None:
            mapping["rootVolume"] = self.root_volume
        return mapping


def one_root_volume(mappings: list[BlockDeviceMapping]) -> list[BlockDeviceMapping]:
    """The CRD's rule on the list: at most one root volume."""
    roots = [index for index, mapping in enumerate(mappings) if mapping.root_volume]
    if len(roots) > 1:
        devices = ", ".join(repr(mappings[index].device_name) for index in roots)
        raise PathError(
            f"[{roots[1]}].root_volume",
            f"must have only one blockDeviceMappings with rootVolume ({devices} have it)",
        )
    return mappings
