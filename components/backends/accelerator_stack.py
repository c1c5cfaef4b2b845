"""AcceleratorStack's Helm releases (pulumi_kubernetes `helm.v3.Release`)."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from nodepools.specs.accelerator_stack import AcceleratorStackArgs, ReleasePlan


def _release(
    plan: ReleasePlan, spec: AcceleratorStackArgs, parent: pulumi.Resource
) -> k8s.helm.v3.Release:
    oci = plan.repository.startswith("oci://")
    return k8s.helm.v3.Release(
        plan.name,
        name=plan.name,
        # An OCI chart is named by its full reference, with no repository.
        chart=f"{plan.repository}/{plan.chart}" if oci else plan.chart,
        version=plan.version,
        namespace=plan.namespace,
        create_namespace=spec.create_namespace,
        repository_opts=None if oci else k8s.helm.v3.RepositoryOptsArgs(repo=plan.repository),
        values=plan.values,
        opts=pulumi.ResourceOptions(parent=parent),
    )


def build_releases(
    plans: list[ReleasePlan], spec: AcceleratorStackArgs, parent: pulumi.Resource
) -> list[k8s.helm.v3.Release]:
    """One Release per plan, chart and version pinned, values as planned."""
    return [_release(plan, spec, parent) for plan in plans]
