"""The instance metadata service (IMDS) of an EC2NodeClass's instances: `metadataOptions`,
each field written as set, the CRD's defaults for the rest."""

from __future__ import annotations

from typing import Any, Literal

from nodepools.specs.core.base import SpecModel
from pydantic import Field


class InstanceMetadataOptions(SpecModel):
    """`metadataOptions`: the instances' metadata service (IMDS), written as set; a field left
    out takes the CRD's default (enabled, IPv6 disabled, hop limit 1, tokens required)."""

    http_endpoint: Literal["enabled", "disabled"] | None = Field(
        default=None, description="`httpEndpoint`. Default None (the CRD's: enabled)."
    )
    http_protocol_ipv6: Literal["enabled", "disabled"] | None = Field(
        default=None, description="`httpProtocolIPv6`. Default None (the CRD's: disabled)."
    )
    http_put_response_hop_limit: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="`httpPutResponseHopLimit`, 1..64 (2 lets containers off the host network "
        "reach IMDS). Default None (the CRD's: 1).",
    )
    http_tokens: Literal["required", "optional"] | None = Field(
        default=None,
        description="`httpTokens` (IMDSv2 when required). Default None (the CRD's: required).",
    )

    def to_manifest(self) -> dict[str, Any]:
        keys = {
            "http_endpoint": "httpEndpoint",
            "http_protocol_ipv6": "httpProtocolIPv6",
            "http_put_response_hop_limit": "httpPutResponseHopLimit",
            "http_tokens": "httpTokens",
        }
        return {out: getattr(self, f) for f, out in keys.items() if getattr(self, f) is not None}
