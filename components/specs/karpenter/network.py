"""Where an EC2NodeClass's instances sit on the network: the placement group they join and
the network interfaces (ENIs) Karpenter gives each, e.g. the EFA-only ones of an EFA node.

Rules mirror the `karpenter.k8s.aws/v1` EC2NodeClass CRD (v1.14.1) so that mistakes are
reported with their arg path; the rendered manifest is validated against the CRD as well.
"""

from __future__ import annotations

from typing import Any, Literal

from nodepools.specs.core.base import PathError, SpecModel
from pydantic import Field, model_validator


class PlacementGroup(SpecModel):
    """`placementGroupSelector`: the placement group every instance of the class goes to."""

    id: str | None = Field(
        default=None, pattern=r"^pg-[0-9a-z]+$", description="Placement group id. Default None."
    )
    name: str | None = Field(
        default=None, min_length=1, description="Placement group name. Default None."
    )

    @model_validator(mode="after")
    def _one(self) -> PlacementGroup:
        if (self.id is None) == (self.name is None):
            given = {k: v for k, v in (("id", self.id), ("name", self.name)) if v is not None}
            raise ValueError(
                f"give exactly one of `id` or `name` of the placement group (got {given})"
            )
        return self

    def to_manifest(self) -> dict[str, str]:
        return {"id": self.id} if self.id is not None else {"name": self.name or ""}


class NetworkInterface(SpecModel):
    """`networkInterfaces[]`: an ENI Karpenter puts in the launch template, e.g. the EFA-only
    interfaces of an EFA node."""

    network_card_index: int = Field(ge=0, description="Network card index. Required.")
    device_index: int = Field(ge=0, description="Device index on that card. Required.")
    interface_type: Literal["interface", "efa-only"] = Field(
        description="`interface` (an ENA interface, with an IP) or `efa-only`. Required."
    )

    def to_manifest(self) -> dict[str, Any]:
        return {
            "deviceIndex": self.device_index,
            "interfaceType": self.interface_type,
            "networkCardIndex": self.network_card_index,
        }


def network_interfaces(interfaces: list[NetworkInterface]) -> list[NetworkInterface]:
    """The CRD's two rules on the list, in its words, each with the entries it is about."""
    if interfaces and not any(
        i.device_index == 0 and i.network_card_index == 0 and i.interface_type == "interface"
        for i in interfaces
    ):
        listed = ", ".join(
            f"card {i.network_card_index} device {i.device_index} {i.interface_type!r}"
            for i in interfaces
        )
        raise ValueError(
            "networkInterfaces must include a primary interface with interfaceType='interface' "
            f"(network card 0, device 0); got {listed}"
        )
    seen: set[tuple[int, int]] = set()
    efa_cards: set[int] = set()
    for index, i in enumerate(interfaces):
        pair = (i.network_card_index, i.device_index)
        if pair in seen or (i.interface_type == "efa-only" and i.network_card_index in efa_cards):
            raise PathError(
                f"[{index}]",
                "networkInterfaces must not have duplicate networkCardIndex and deviceIndex "
                f"pairs, and can have at most one efa device per network card (card {pair[0]}, "
                f"device {pair[1]})",
            )
        seen.add(pair)
        if i.interface_type == "efa-only":
            efa_cards.add(i.network_card_index)
    return interfaces
