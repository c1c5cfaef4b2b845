"""What an instance costs per hour: the packaged price table, read on first use.

`data/prices.json` is written by `scripts/instance_prices.py`, which says where each figure
comes from (AWS: Karpenter's generated on-demand table and the Spot Instance Advisor's
savings, for one region; OCI: Oracle's price pages, where a figure could be checked). Plans
and the policy pack's budget policy read prices only through `node_price`, so both show the
same numbers. A type without a figure has no price: callers say "unknown price", never zero.
A figure whose source has no date (`as_of` null, e.g. the OCI prices nobody could check
against Oracle's list) is used but marked unverified.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "prices.json"
HOURS_PER_MONTH = 730  # 365 * 24 / 12, the month cloud price lists use


@dataclass(frozen=True)
class NodePrice:
    """USD per node-hour of one pool's nodes, and where the figure comes from."""

    hourly: float
    basis: str  # "on-demand" | "spot (typical)" | "preemptible"
    source: str  # URL
    as_of: str | None
    region: str | None


@cache
def _table() -> dict[str, Any]:
    return json.loads(DATA.read_text())


def price_sources() -> dict[str, dict[str, str | None]]:
    """Every source of the table by key: url, as_of (None: unverified), region, note."""
    return dict(_table()["sources"])


def node_price(
    instance_type: str,
    *,
    spot: bool,
    ocpus: float | None = None,
    memory_gb: float | None = None,
) -> NodePrice | None:
    """The hourly price of one node of `instance_type` (on spot/preemptible capacity when
    `spot`), or None when the table has no figure: unknown type, a type without a price,
    a spot price the feeds do not give, or a flexible OCI shape without its OCPUs and memory."""
    table = _table()
    entry: dict[str, Any] | None = table["prices"].get(instance_type)
    if entry is None:
        return None
    source_key: str | None = entry["spot_source"] if spot else entry["source"]
    if source_key is None:
        return None
    if "per_ocpu" in entry:
        if ocpus is None or memory_gb is None:
            return None
        hourly = entry["per_ocpu"] * ocpus + entry["per_gb"] * memory_gb
        if spot:
            hourly *= table["oci_preemptible_discount"]
    else:
        hourly = entry["spot"] if spot else entry["on_demand"]
        if hourly is None:
            return None
    source = table["sources"][source_key]
    if not spot:
        basis = "on-demand"
    else:
        basis = "preemptible" if entry["source"].startswith("oci-") else "spot (typical)"
    return NodePrice(
        hourly=round(float(hourly), 4),
        basis=basis,
        source=source["url"],
        as_of=source.get("as_of"),
        region=source.get("region"),
    )
