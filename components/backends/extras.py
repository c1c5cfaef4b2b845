"""Which optional dependency ("extra") each cloud backend needs, and the one-line error when
it is missing.

`pip install nodepools` is the core: specs, scheduling info, Kubernetes objects (Karpenter,
Kueue, device software's Helm releases), governance, the plan, the policy pack and ROSA
(OCM's REST API over httpx). The cloud SDKs are extras: `nodepools[aws]` for EKS pools and
NodeRole (pulumi-aws), `nodepools[oci]` for OKE pools, the OKE autoscaler and add-ons
(pulumi-oci), `nodepools[all]` for both. A component that needs a missing one refuses
before it registers anything, with the `pip install` line that fixes it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class Extra:
    """An extra of the `nodepools` distribution and the module it brings."""

    name: str  # `nodepools[<name>]`
    module: str  # what the backend imports
    distribution: str  # what pip installs

    @property
    def install(self) -> str:
        return f"pip install 'nodepools[{self.name}]'"


AWS = Extra("aws", "pulumi_aws", "pulumi-aws")
OCI = Extra("oci", "pulumi_oci", "pulumi-oci")

# cluster kind -> the extra its backend needs; kinds not listed need none (karpenter, rosa).
EXTRAS_BY_KIND: dict[str, Extra] = {"eks": AWS, "oke": OCI}


class MissingExtra(ModuleNotFoundError):
    """A backend's SDK is not installed: the message names the `pip install` that fixes it."""

    def __init__(self, subject: str, needs: str, extra: Extra):
        super().__init__(
            f"{subject}: {needs} needs {extra.distribution}, which is not installed: "
            f"{extra.install}",
            name=extra.module,
        )
        self.extra = extra


def installed(extra: Extra) -> bool:
    """Whether `extra`'s module can be imported (found, not imported: importing
    pulumi_aws costs seconds)."""
    try:
        return importlib.util.find_spec(extra.module) is not None
    except (ImportError, ValueError):  # a None left in sys.modules, or a broken parent
        return False


def require(extra: Extra, subject: str, needs: str) -> None:
    """Raise MissingExtra unless `extra` is installed. `subject` names the component
    (`MachinePool 'gpu'`), `needs` what needs it (`cluster.kind 'eks'`)."""
    if not installed(extra):
        raise MissingExtra(subject, needs, extra)


def require_for_kind(kind: str, subject: str) -> None:
    """`require` for the extra of pools on clusters of `kind`, if it has one."""
    extra = EXTRAS_BY_KIND.get(kind)
    if extra is not None:
        require(extra, subject, f"cluster.kind {kind!r}")
