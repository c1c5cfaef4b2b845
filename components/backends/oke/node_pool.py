"""Oracle Kubernetes Engine node pools (`pulumi_oci.containerengine.NodePool`), taints
through cloud-init user data."""

from __future__ import annotations

import base64

import pulumi
from nodepools.backends import BuiltPool
from nodepools.specs.catalog.accelerators import is_flex
from nodepools.specs.clusters.capabilities import cloud_node_taints
from nodepools.specs.core.labels import MAX_NODES_TAG, MIN_NODES_TAG, POOL_LABEL
from nodepools.specs.core.taints import Taint
from nodepools.specs.pools.node_settings import OKE_SCRIPT_EOF
from nodepools.specs.pools.resolve import ResolvedPool
from pulumi_oci import containerengine

# OKE's documented custom cloud-init: fetch the node init script from instance metadata
# and run it, here with extra kubelet arguments. NodePool has no taint field, so this
# is the only way a node registers already tainted (no window where pods slip in).
OKE_INIT = (
    'curl --fail -H "Authorization: Bearer Oracle" -L0 '
    "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script "
    "| base64 --decode >/var/run/oke-init.sh"
)


# A boot volume larger than the image is unused until the root filesystem grows into it
# (Oracle A-Team, "OKE node sizing for very large container images"); before the kubelet
# starts, so images never land on the small one. Oracle Linux images ship the tool.
GROW_ROOT = "if [ -x /usr/libexec/oci-growfs ]; then /usr/libexec/oci-growfs -y; fi"


# The heredoc delimiter of a `node_config.user_data` script (refused inside it by the spec).
USER_SCRIPT_EOF = OKE_SCRIPT_EOF


# Runs the pool's own `node_config.user_data` beside the bootstrap, never in its way: before
# OKE's init script (so what it sets up is there when the kubelet starts, as EKS runs user
# data parts before nodeadm starts the kubelet), and a failure is reported on stderr (the
# cloud-init log) while the node still joins the cluster, as a failed part does on EKS.
RUN_USER_SCRIPT = (
    "bash /var/run/nodepools-user-data.sh || echo \"nodepools: the pool's node_config.user_data "
    'script exited with status $?; bootstrapping the node anyway" >&2'
)


def kubelet_flags(taints: tuple[Taint, ...], max_pods: int | None = None) -> str:
    """The kubelet flags the node starts with: `--register-with-taints` and `--max-pods`,
    each when there is something to say ("" for neither)."""
    flags: list[str] = []
    if taints:
        flags.append(f"--register-with-taints={','.join(str(t) for t in taints)}")
    if max_pods is not None:
        flags.append(f"--max-pods={max_pods}")
    return " ".join(flags)


def cloud_init(
    taints: tuple[Taint, ...],
    grow_root: bool = False,
    max_pods: int | None = None,
    user_script: str | None = None,
) -> str:
    """The user-data script that registers the node with `taints` (after growing the root
    filesystem into a custom-sized boot volume when `grow_root`), with `--max-pods` when
    given, after running the pool's own `user_script` when given (whose failure does not
    stop the node from joining)."""
    script = (
        f"cat >/var/run/nodepools-user-data.sh <<'{USER_SCRIPT_EOF}'\n"
        f"{user_script.rstrip(chr(10))}\n{USER_SCRIPT_EOF}\n"
        f"{RUN_USER_SCRIPT}\n"
        if user_script is not None
        else ""
    )
    flags = kubelet_flags(taints, max_pods)
    extra = f' --kubelet-extra-args "{flags}"' if flags else ""
    return (
        "#!/bin/bash\n"
        "set -euo pipefail\n" + (f"{GROW_ROOT}\n" if grow_root else "") + script + f"{OKE_INIT}\n"
        f"bash /var/run/oke-init.sh{extra}\n"
    )


def node_metadata(pool: ResolvedPool) -> dict[str, str]:
    """The node pool's `nodeMetadata`, always with `user_data`: OCI's provider keeps a
    removed optional-and-computed `node_metadata` in state (pulumi-terraform-bridge#2152), so
    a pool that stopped sending it would keep registering its old taints; and every pool
    with a boot volume size needs the root filesystem grown into it.

    With kubelet flags, `kubelet-extra-args` holds them as well: the OCI cluster autoscaler
    reads the taints of an empty pool's node template only from that key (kubernetes/
    autoscaler cluster-autoscaler/cloudprovider/oci/nodepools/registered_taints.go), so
    without it a pending pod that does not tolerate them would scale the pool up from zero
    for nothing. It is the very string the init script passes the kubelet, so whether OKE's
    init reads the key too or not, the kubelet gets the same flags. Taints OKE adds itself
    (the preemptible taint) are in neither: the pool's taints minus `cloud_node_taints`."""
    config = pool.node_config
    added = cloud_node_taints(pool.cluster, pool.spot is not None)
    registered = tuple(t for t in pool.taints if t not in added)
    max_pods = config.max_pods if config else None
    script = cloud_init(
        registered,
        grow_root=pool.boot_volume_gb is not None,
        max_pods=max_pods,
        user_script=config.user_data if config else None,
    )
    metadata = {"user_data": base64.b64encode(script.encode()).decode()}
    if registered:
        metadata["kubelet-extra-args"] = kubelet_flags(registered, max_pods)
    return metadata


def build_pool(name: str, pool: ResolvedPool, parent: pulumi.Resource) -> BuiltPool:
    """One OKE node pool named after the pool. The name is a display name (OCI identifies
    node pools by OCID and does not require unique names), so a create-before-delete
    replacement may briefly have two pools of one name; the pool's identity for workloads
    is its `nodepools.dev/pool` node label. Reviewed with every other resource type in
    tests/engines/test_replacement_names.py."""
    cluster = pool.cluster
    # Preemptible capacity is OCI's spot: reclaimed at short notice, no bid price.
    preemptible = (
        containerengine.NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigArgs(
            preemption_action=containerengine.NodePoolNodeConfigDetailsPlacementConfigPreemptibleNodeConfigPreemptionActionArgs(
                type="TERMINATE", is_preserve_boot_volume=False
            )
        )
        if pool.spot is not None
        else None
    )
    reservations = pool.capacity_reservation.ids if pool.capacity_reservation else None
    node_pool = containerengine.NodePool(
        f"{name}-node-pool",
        cluster_id=cluster.cluster_id,
        compartment_id=cluster.compartment_id,
        name=pool.pool_name,
        node_shape=pool.instance_type,
        kubernetes_version=cluster.kubernetes_version,
        node_shape_config=containerengine.NodePoolNodeShapeConfigArgs(
            ocpus=pool.ocpus, memory_in_gbs=pool.memory_gb
        )
        if is_flex(pool.instance_type) and (pool.ocpus or pool.memory_gb)
        else None,
        node_config_details=containerengine.NodePoolNodeConfigDetailsArgs(
            size=pool.min_nodes,
            kms_key_id=pool.boot_volume.kms_key_id if pool.boot_volume else None,
            placement_configs=[
                containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs(
                    availability_domain=placement.availability_domain,
                    subnet_id=placement.subnet_id,
                    preemptible_node_config=preemptible,
                    # One reservation per placement (availability domain), in order.
                    capacity_reservation_id=reservations[index] if reservations else None,
                )
                for index, placement in enumerate(cluster.placements)
            ],
        ),
        node_source_details=containerengine.NodePoolNodeSourceDetailsArgs(
            source_type="IMAGE",
            image_id=cluster.image_id,
            # The OCI SDK types the size as a string.
            boot_volume_size_in_gbs=str(pool.boot_volume_gb) if pool.boot_volume_gb else None,
        ),
        node_pool_cycling_details=containerengine.NodePoolNodePoolCyclingDetailsArgs(
            is_node_cycling_enabled=True,
            # OKE takes a count or a percentage, as a string.
            maximum_unavailable=str(pool.update.max_unavailable)
            if pool.update.max_unavailable is not None
            else f"{pool.update.max_unavailable_percent}%",
        )
        if pool.update
        else None,
        initial_node_labels=[
            containerengine.NodePoolInitialNodeLabelArgs(key=key, value=value)
            for key, value in pool.labels.items()
        ],
        node_metadata=node_metadata(pool),
        # OKE pools have only a size; the bounds are kept where the cluster autoscaler's
        # configuration and our policies can read them.
        freeform_tags={
            **({POOL_LABEL: pool.pool_name} if pool.identity_label else {}),
            MIN_NODES_TAG: str(pool.min_nodes),
            MAX_NODES_TAG: str(pool.max_nodes),
        },
        opts=pulumi.ResourceOptions(
            parent=parent,
            ignore_changes=["nodeConfigDetails.size"] if pool.autoscaled else None,
        ),
    )
    return BuiltPool(pool_id=node_pool.id, resource=node_pool)
