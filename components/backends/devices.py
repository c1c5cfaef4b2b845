"""AcceleratorStack's resources: a `kubernetes:helm.sh/v3:Release` per chart
(provider_resource.HelmRelease) and, on OKE, an `oci:ContainerEngine/addon:Addon` per GPU
plugin add-on (provider_resource.OkeAddon)."""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.backends.provider_resource import HelmRelease, OkeAddon
from nodepools.specs.devices.args import AcceleratorStackArgs
from nodepools.specs.devices.releases import AddonPlan, ReleasePlan


def _release(plan: ReleasePlan, spec: AcceleratorStackArgs, parent: pulumi.Resource) -> HelmRelease:
    oci = plan.repository.startswith("oci://")
    return HelmRelease(
        plan.name,
        {
            "name": plan.name,
            # An OCI chart is named by its full reference, with no repository.
            "chart": f"{plan.repository}/{plan.chart}" if oci else plan.chart,
            "version": plan.version,
            "namespace": plan.namespace,
            "createNamespace": spec.create_namespace,
            "repositoryOpts": None if oci else {"repo": plan.repository},
            "values": plan.values,
        },
        opts=pulumi.ResourceOptions(parent=parent),
    )


def _addon(plan: AddonPlan, spec: AcceleratorStackArgs, parent: pulumi.Resource) -> Any:
    return OkeAddon(
        f"{plan.name}-addon",
        {
            "addonName": plan.addon_name,
            "clusterId": spec.oke_cluster_id,
            "version": plan.version,
            # The add-on's DaemonSet goes with it.
            "removeAddonResourcesOnDelete": True,
            "configurations": [
                {"key": key, "value": value} for key, value in sorted(plan.configurations.items())
            ],
        },
        opts=pulumi.ResourceOptions(parent=parent),
    )


def build_releases(
    plans: list[ReleasePlan], spec: AcceleratorStackArgs, parent: pulumi.Resource
) -> list[Any]:
    """One Release per plan, chart and version pinned, values as planned."""
    return [_release(plan, spec, parent) for plan in plans]


def build_addons(
    plans: list[AddonPlan], spec: AcceleratorStackArgs, parent: pulumi.Resource
) -> list[Any]:
    """One OKE add-on per plan, on the stack's OKE cluster."""
    return [_addon(plan, spec, parent) for plan in plans]
