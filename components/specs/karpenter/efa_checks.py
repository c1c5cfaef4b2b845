"""EFA pools that could never launch: the instance types and the node class's network
interfaces must offer the EFA devices the pool's pods request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nodepools.specs.core.base import Issue

if TYPE_CHECKING:
    from nodepools.specs.karpenter.args import KarpenterNodePoolArgs


def efa_issues(args: KarpenterNodePoolArgs, origin: dict[str, str], issues: list[Issue]) -> None:
    """An EFA pool's pinned instance types must carry EFA (the catalog's `efa_interfaces`,
    from Karpenter's instance-type list), and as many as the node class's `efa-only`
    interfaces: Karpenter skips a type with fewer, so a pool of only such types never
    launches."""
    from nodepools.specs.catalog.instance_types import instance_type

    listed = args.node_class.network_interfaces if args.node_class else None
    interfaces = listed or []
    wanted = sum(1 for i in interfaces if i.interface_type == "efa-only")
    if args.efa and listed is not None and not wanted:
        # Karpenter's efas() (pkg/providers/instancetype/types.go): a NodeClass that lists
        # its network interfaces overrides the EFAs the instance type supports with the
        # number of its `efa-only` entries, so every type then offers 0.
        issues.append(
            Issue(
                "node_class.network_interfaces",
                f"lists no 'efa-only' interface "
                f"({[i.interface_type for i in interfaces]!r}) but `efa` is true: when the "
                "node class lists its network interfaces, Karpenter counts only its "
                "'efa-only' ones as a node's vpc.amazonaws.com/efa devices, so every instance "
                "type offers 0 and pods requesting EFA stay Pending; add an 'efa-only' "
                "interface per network card to use, remove `network_interfaces` (EFA as the "
                "instance type offers), or set `efa` false",
            )
        )
    types = args.instance_types
    if not types:
        return
    path = origin.get("instance_types", "instance_types")
    offered = {t: info.efa_interfaces for t in types if (info := instance_type(t)) is not None}
    if args.efa:
        without = sorted(t for t, count in offered.items() if count == 0)
        if without:
            issues.append(
                Issue(
                    path,
                    f"`efa` is true but {without!r} offer no EFA interface (Karpenter's "
                    "instance-type list): their pods' vpc.amazonaws.com/efa request could "
                    "never be met; list EFA-capable types only, or set `efa` false",
                )
            )
    if wanted and len(offered) == len(types):
        short = sorted(t for t, count in offered.items() if count is not None and count < wanted)
        if short and len(short) == len(types):
            issues.append(
                Issue(
                    "node_class.network_interfaces",
                    f"{wanted} efa-only interfaces, but {short!r} carry at most "
                    f"{max(offered[t] or 0 for t in short)}: Karpenter launches no type with "
                    "fewer EFA interfaces than the class asks for",
                )
            )
