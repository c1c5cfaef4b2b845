"""A pool's custom AMI (`ami_id`): the complete user data its launch template carries, a
nodeadm NodeConfig (AL2023) or Bottlerocket's TOML settings (`ami_family: bottlerocket`,
`backends.eks.bottlerocket`).

EKS merges its own bootstrap (cluster name, API server endpoint, certificate authority,
service CIDR) into the user data of EKS-optimized AMIs only; with a custom AMI the user data
must say all of it (awslabs/amazon-eks-ami, nodeadm `NodeConfig`: `spec.cluster.name`,
`apiServerEndpoint`, `certificateAuthority`, `cidr`), and the node group's labels and taints
reach the kubelet only as its flags. The cluster's details may be Outputs (another
resource's): the document is built once they resolve, and stays unknown in a preview that
does not know them.
"""

from __future__ import annotations

import base64
from typing import Any

import pulumi
from nodepools.backends.eks.bottlerocket import custom_ami_settings, pool_settings, toml_document
from nodepools.backends.eks.launch_template import mime_user_data, node_config_document
from nodepools.specs.pools.eks_settings import node_os
from nodepools.specs.pools.node_settings import NodeConfig
from nodepools.specs.pools.resolve import ResolvedPool


def kubelet_flags(labels: dict[str, str], taints: list[tuple[str, str | None, str]]) -> list[str]:
    """`--node-labels` and `--register-with-taints` for the kubelet, in a stable order."""
    flags: list[str] = []
    if labels:
        flags.append("--node-labels=" + ",".join(f"{k}={v}" for k, v in sorted(labels.items())))
    if taints:
        rendered = [
            f"{key}={value}:{effect}" if value else f"{key}:{effect}"
            for key, value, effect in taints
        ]
        flags.append("--register-with-taints=" + ",".join(sorted(rendered)))
    return flags


def custom_ami_node_config(
    pool: ResolvedPool,
    labels: dict[str, str],
    cluster_name: str | None,
    endpoint: str | None,
    certificate_authority: str | None,
    service_cidr: str | None,
) -> dict[str, Any]:
    """The NodeConfig of a custom AMI: the cluster's coordinates, the pool's kubelet
    settings and its labels and taints as kubelet flags."""
    document = node_config_document(pool.node_config or NodeConfig())
    details = {
        "name": cluster_name,
        "apiServerEndpoint": endpoint,
        "certificateAuthority": certificate_authority,
        "cidr": service_cidr,
    }
    # None only where nothing computed the value (a test's mocks echo inputs, and an
    # `aws.eks.Cluster`'s endpoint is computed): left out rather than written as "None".
    spec: dict[str, Any] = {
        "cluster": {key: value for key, value in details.items() if value is not None},
        **document["spec"],
    }
    flags = kubelet_flags(labels, [(t.key, t.value, t.effect) for t in pool.taints])
    if flags:
        spec["kubelet"] = {**spec.get("kubelet", {}), "flags": flags}
    return {**document, "spec": spec}


def _base64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def custom_ami_user_data(pool: ResolvedPool, labels: dict[str, str]) -> pulumi.Output[str]:
    """The launch template's base64 user data, once the cluster's details are known: a
    NodeConfig for an AL2023 AMI, TOML settings for a Bottlerocket one (`ami_family`)."""
    cluster = pool.cluster
    script = pool.node_config.user_data if pool.node_config is not None else None

    def render(values: list[Any]) -> str:
        name, endpoint, authority, cidr = (None if v is None else str(v) for v in values)
        if pool.ami_family == "bottlerocket":
            settings = custom_ami_settings(pool, labels, name, endpoint, authority, cidr)
            return _base64(toml_document(settings))
        document = custom_ami_node_config(pool, labels, name, endpoint, authority, cidr)
        return _base64(mime_user_data(document, script))

    return pulumi.Output.all(
        cluster.cluster_name, cluster.endpoint, cluster.certificate_authority, cluster.service_cidr
    ).apply(render)


def launch_template_user_data(
    pool: ResolvedPool, labels: dict[str, str]
) -> pulumi.Output[str] | str | None:
    """The user data of the pool's launch template: the complete user data of a custom AMI,
    the pool's part for EKS to merge with its own (a NodeConfig, or Bottlerocket TOML
    settings on a Bottlerocket `cluster.ami_type`), or none."""
    if pool.ami_id is not None:
        return custom_ami_user_data(pool, labels)
    if pool.node_config is None:
        return None
    if node_os(None, None, pool.cluster.ami_type) == "bottlerocket":
        return _base64(toml_document(pool_settings(pool.node_config)))
    document = node_config_document(pool.node_config)
    return _base64(mime_user_data(document, pool.node_config.user_data))
