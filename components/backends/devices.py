"""AcceleratorStack's resources: a `pulumi_kubernetes.helm.v3.Release` per chart and, on OKE,
a cluster add-on per GPU plugin add-on (`nodepools.backends.oke.addon`, imported only then)."""

from __future__ import annotations

from typing import Any

import pulumi
from nodepools.specs.devices.args import AcceleratorStackArgs
from nodepools.specs.devices.releases import AddonPlan, ReleasePlan


def build_releases(
    plans: list[ReleasePlan], spec: AcceleratorStackArgs, parent: pulumi.Resource
) -> list[Any]:
    """One Release per plan, chart and version pinned, values as planned."""
    if not plans:
        return []
    from pulumi_kubernetes.helm.v3 import Release, RepositoryOptsArgs

    releases: list[Any] = []
    for plan in plans:
        oci = plan.repository.startswith("oci://")
        if plan.chart_path is not None:
            # A chart on disk: its path, no repository, and the version it holds.
            chart, version, repository = plan.chart_path, None, None
        elif oci:
            # An OCI chart is named by its full reference, with no repository.
            chart, version, repository = f"{plan.repository}/{plan.chart}", plan.version, None
        else:
            chart, version = plan.chart, plan.version
            repository = RepositoryOptsArgs(repo=plan.repository)
        releases.append(
            Release(
                plan.name,
                name=plan.name,
                chart=chart,
                version=version,
                namespace=plan.namespace,
                create_namespace=spec.create_namespace,
                repository_opts=repository,
                values=plan.values,
                opts=pulumi.ResourceOptions(parent=parent),
            )
        )
    return releases


def build_addons(
    plans: list[AddonPlan], spec: AcceleratorStackArgs, parent: pulumi.Resource
) -> list[Any]:
    """One OKE add-on per plan, on the stack's OKE cluster."""
    if not plans:
        return []
    from nodepools.backends.oke.addon import build_addon

    return [
        build_addon(
            f"{plan.name}-addon",
            plan.addon_name,
            spec.oke_cluster_id,
            dict(sorted(plan.configurations.items())),
            parent,
            version=plan.version,
        )
        for plan in plans
    ]
