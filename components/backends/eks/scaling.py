"""An autoscaled EKS node group's desired size: the autoscaler's, unless new bounds exclude it.

The cluster autoscaler owns `desiredSize` once a group exists, so the node group ignores
changes to it (otherwise every `up` would reset it to the minimum). But an update that
raises `minSize` above the live desired size (or lowers `maxSize` below it) then sends the
old desired size with the new bounds, and EKS refuses the whole update: "Minimum capacity
X can't be greater than desired size Y" (terraform-aws-eks #748, #3306). So at each
`preview` and `up` the pool reads its group's live scaling config from EKS
(ListNodegroups and DescribeNodegroup, through pulumi_aws's `eks.get_node_groups` and
`eks.get_node_group`) and, only when the new bounds exclude the live desired size, sends
the desired size clamped into them (and stops ignoring it for that update); otherwise it
keeps following the autoscaler.

Nothing is read when there is nothing to read: a pool that is not autoscaled, a cluster
whose name is not known yet (an Output: the cluster is created in the same stack), or a
group that does not exist yet. A read that fails (permissions, network) is reported as a
warning and the pool falls back to following the autoscaler, as before.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws
from nodepools.specs.core.labels import POOL_LABEL

DESIRED_SIZE_PATH = "scalingConfig.desiredSize"
# The provider's unique suffix after a name prefix: 26 characters (terraform-plugin-sdk
# `id.PrefixedUniqueId`, `%s%s%08x`): an 18-digit UTC timestamp to the ten-thousandth of a
# second, then a counter in 8 lowercase hex digits (`...0000000a` is the tenth name).
_UNIQUE_SUFFIX = r"\d{18}[0-9a-f]{8}"


@dataclass(frozen=True)
class DesiredSize:
    """What the node group gets: the desired size to send, and whether to ignore it."""

    value: int
    follow_autoscaler: bool  # True: ignore changes to desiredSize (the autoscaler owns it)


@dataclass(frozen=True)
class GroupIdentity:
    """How the pool's existing node group is told from others: its exact name, or a name
    `prefix` and a unique suffix; and the identity tag with the pool's name (None: the pool
    has none, `identity_label: false`)."""

    prefix: str
    exact_name: str | None = None
    tag_value: str | None = None

    def name_pattern(self) -> re.Pattern[str]:
        if self.exact_name is not None:
            return re.compile(re.escape(self.exact_name))
        return re.compile(re.escape(self.prefix) + _UNIQUE_SUFFIX)


def desired_size(
    cluster_name: Any, identity: GroupIdentity, min_nodes: int, max_nodes: int
) -> DesiredSize:
    """The desired size an autoscaled pool's node group should be registered with."""
    live = live_desired_size(cluster_name, identity)
    if live is None:
        return DesiredSize(min_nodes, follow_autoscaler=True)
    clamped = min(max(live, min_nodes), max_nodes)
    return DesiredSize(clamped, follow_autoscaler=clamped == live)


# The node groups of each cluster, listed once per program run (not once per pool). Keyed by
# the run's root stack resource, weakly: nothing outlives the run that listed it.
_GROUP_NAMES: weakref.WeakKeyDictionary[Any, dict[str, list[str]]] = weakref.WeakKeyDictionary()


def _group_names(cluster_name: str) -> list[str]:
    root = pulumi.runtime.get_root_resource()
    listed = _GROUP_NAMES.setdefault(root, {}) if root is not None else {}
    if cluster_name not in listed:
        listed[cluster_name] = list(aws.eks.get_node_groups(cluster_name=cluster_name).names or [])
    return listed[cluster_name]


def live_desired_size(cluster_name: Any, identity: GroupIdentity) -> int | None:
    """The desired size of the pool's existing node group in EKS, or None (see above)."""
    if not isinstance(cluster_name, str):
        return None
    pattern = identity.name_pattern()
    name_prefix = identity.exact_name or identity.prefix
    try:
        names = _group_names(cluster_name)
        for group_name in sorted(n for n in names if pattern.fullmatch(n)):
            group = aws.eks.get_node_group(cluster_name=cluster_name, node_group_name=group_name)
            # The prefix may be shared by a longer pool name cut to fit; the tag is ours
            # (a pool without one has its exact name, or the first group of its prefix).
            tags = group.tags or {}
            if identity.tag_value is not None and tags.get(POOL_LABEL) != identity.tag_value:
                continue
            configs = group.scaling_configs or []
            size: Any = configs[0].desired_size if configs else None
            # Whole numbers arrive as floats from a protobuf Struct.
            if isinstance(size, int | float) and not isinstance(size, bool) and size == int(size):
                return int(size)
    except Exception as exc:
        pulumi.log.warn(
            f"could not read the live size of EKS node group(s) {name_prefix}"
            f"{'' if identity.exact_name else '*'} in cluster "
            f"{cluster_name!r} ({type(exc).__name__}: {exc}); the desired size is left to "
            "the autoscaler, and raising `min_replicas` above it would be refused by EKS"
        )
    return None
