"""Write (or check) the price table, components/specs/catalog/data/prices.json.

nodepools reads only that JSON at run time (plan cost estimates, the policy pack's budget
policy). One entry per type of the instance catalog (components/specs/catalog/data/instance_types.json),
in USD per instance-hour, Linux, no reservations or savings plans:

- AWS on-demand: Karpenter's generated static price table
  (``pkg/providers/pricing/zz_generated.pricing_aws.go`` of
  https://github.com/aws/karpenter-provider-aws, itself generated from the AWS Price List
  API), for ``AWS_REGION``. Read as text from a checkout, a work tree or a bare git directory.
- AWS typical spot: the on-demand price less the "savings over on-demand" of the AWS Spot
  Instance Advisor feed (https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json,
  the average of the trailing 30 days, per region and OS) for the same region, Linux. Spot
  prices move hourly: this is a typical figure for a review, never a bill.
- OCI: ``OCI_GPU_HOUR`` and ``OCI_FLEX`` below, typed in by hand: GPU shapes are priced per
  GPU-hour, flexible shapes per OCPU-hour and per GB-hour of memory. Oracle's price pages
  render most prices with a script, so only the figures found in the published page text
  are verified (``OCI_VERIFIED``: source ``oci-price-list``, with the page and the date they
  were checked); every other OCI figure has source ``oci-unverified`` (no date), and plans
  mark it "unverified". OCI preemptible capacity is "always 50% off" the on-demand rate
  (Oracle's announcement, source ``oci-preemptible``), which is the "spot" figure here; on
  an unverified base price it is unverified too.

A type without a figure is ``null``: plans say "unknown price" for it rather than guess.

Layout::

    {"schema": 1, "currency": "USD", "unit": "instance-hour",
     "sources": {"<key>": {"url": ..., "as_of": "YYYY-MM-DD", "region": ...}},
     "prices": {"<type or shape>": null | {
         "on_demand": float | null, "spot": float | null,
         "per_ocpu": float, "per_gb": float,          # OCI flexible shapes only
         "source": "<key>", "spot_source": "<key>" | null}}}

Usage (from the repository root)::

    python scripts/instance_prices.py KARPENTER_CHECKOUT SPOT_ADVISOR_JSON [--rev HEAD]
    python scripts/instance_prices.py --check [--data FILE]  # exit 1 if not canonical or incomplete
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "components" / "specs" / "catalog" / "data" / "prices.json"
CATALOG = REPO / "components" / "specs" / "catalog" / "data" / "instance_types.json"
PRICING_GO = "pkg/providers/pricing/zz_generated.pricing_aws.go"
AWS_REGION = "us-east-1"
OCI_PREEMPTIBLE_DISCOUNT = 0.5

# Per GPU-hour for GPU shapes (the price of a shape is that times its GPU count), per OCPU
# and per GB-hour for flexible shapes. Unverified except OCI_VERIFIED (see the module doc);
# a third-party summary of Oracle's list (not Oracle's own page, so not used) agreed on
# A100-v2.8 and H100.8 but gave about 1.27 per A10 GPU-hour and about 98 per H200.8 hour,
# so treat the A10 and H200 figures with particular care. Shapes Oracle lists without a public per-hour price
# (or that this table has not been checked for) are absent and plan as "unknown price".
OCI_GPU_HOUR: dict[str, float] = {
    "BM.GPU.H100.8": 10.0,
    "BM.GPU.H200.8": 10.0,
    "BM.GPU.A100-v2.8": 4.0,
    "BM.GPU4.8": 3.05,
    "BM.GPU.L40S.4": 3.5,
    "BM.GPU.MI300X.8": 6.0,
    "BM.GPU.A10.4": 2.0,
    "VM.GPU.A10.1": 2.0,
    "VM.GPU.A10.2": 2.0,
    "BM.GPU3.8": 2.95,
    "VM.GPU3.1": 2.95,
    "VM.GPU3.2": 2.95,
    "VM.GPU3.4": 2.95,
    "BM.GPU2.2": 1.275,
    "VM.GPU2.1": 1.275,
}
OCI_FLEX: dict[str, tuple[float, float]] = {  # (per OCPU-hour, per GB-hour)
    "VM.Standard.E3.Flex": (0.025, 0.0015),
    "VM.Standard.E4.Flex": (0.025, 0.0015),
    "VM.Standard.E5.Flex": (0.03, 0.002),
    "VM.Standard3.Flex": (0.04, 0.0015),
    "VM.Standard.A1.Flex": (0.01, 0.0015),
}
# Figures read in the text of Oracle's own price page (the date is when they were checked):
# "Compute - Ampere A1 - OCPU $0.01 ... Memory $0.0015 Gigabyte per hour".
OCI_VERIFIED = frozenset({"VM.Standard.A1.Flex"})
OCI_CHECKED_ON = "2026-11-25"
SOURCES: dict[str, dict[str, str | None]] = {
    "aws-karpenter": {
        "url": "https://github.com/aws/karpenter-provider-aws/blob/{rev}/" + PRICING_GO,
        "region": AWS_REGION,
    },
    "aws-spot-advisor": {
        "url": "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json",
        "region": AWS_REGION,
    },
    "oci-price-list": {
        "url": "https://www.oracle.com/ae/cloud/compute/pricing.html",
        "as_of": OCI_CHECKED_ON,
        "region": "all commercial regions (OCI prices are global)",
    },
    "oci-unverified": {
        "url": "https://www.oracle.com/cloud/price-list/",
        "as_of": None,
        "region": "all commercial regions (OCI prices are global)",
        "note": "unverified: typed in by hand; Oracle's pages render these prices with a "
        "script, and no published text confirming them was found",
    },
    "oci-preemptible": {
        "url": "https://blogs.oracle.com/cloud-infrastructure/announcing-ga-of-oracle-preemptible-instances-vm-shapes",
        "as_of": OCI_CHECKED_ON,
        "region": "all commercial regions",
        "note": "preemptible instances are always 50% off the on-demand rate",
    },
}


def _git_text(checkout: Path, rev: str, path: str) -> tuple[str, str, str]:
    """(text, commit, commit date) of `path` at `rev` of a checkout or bare git directory."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", str(_git_dir(checkout)), *args],
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    commit = git("rev-parse", rev).strip()
    date = git("show", "-s", "--format=%cs", commit).strip()
    return git("show", f"{commit}:{path}"), commit, date


def _git_dir(checkout: Path) -> Path:
    return checkout / ".git" if (checkout / ".git").exists() else checkout


def aws_on_demand(text: str, region: str = AWS_REGION) -> tuple[dict[str, float], str]:
    """Prices of `region` in Karpenter's generated Go map, and the date it was generated."""
    generated = re.search(r"// generated at (\d{4}-\d{2}-\d{2})", text)
    block = re.search(rf'\n\t"{re.escape(region)}": \{{(.*?)\n\t\}}', text, re.S)
    if block is None or generated is None:
        raise SystemExit(f"{PRICING_GO}: no price block for {region} (has the layout changed?)")
    prices = {
        name: float(value)
        for name, value in re.findall(r'"([a-z0-9.-]+)": ([0-9.]+)', block.group(1))
    }
    return prices, generated.group(1)


def spot_savings(advisor: dict[str, Any], region: str = AWS_REGION) -> dict[str, int]:
    """Percent saved over on-demand per type (Linux) in the Spot Advisor feed."""
    linux: dict[str, dict[str, int]] = advisor["spot_advisor"][region]["Linux"]
    return {name: int(entry["s"]) for name, entry in linux.items()}


def _cents(value: float) -> float:
    # Four decimals: the feeds' own precision is finer, but a plan shows cents per hour and
    # rounding here keeps the file stable when a feed re-renders the same price.
    return round(value, 4)


def oci_entry(name: str, entry: dict[str, Any]) -> dict[str, Any] | None:
    """The price entry of an OCI shape of the catalog, or None when the table has none."""
    verified = name in OCI_VERIFIED
    source = "oci-price-list" if verified else "oci-unverified"
    # A discount of a figure nobody checked is no better than the figure.
    spot_source = "oci-preemptible" if verified else "oci-unverified"
    if name in OCI_FLEX:
        per_ocpu, per_gb = OCI_FLEX[name]
        return {
            "on_demand": None,
            "spot": None,
            "per_ocpu": per_ocpu,
            "per_gb": per_gb,
            "source": source,
            "spot_source": spot_source,
        }
    if name in OCI_GPU_HOUR:
        count = (entry.get("accelerator") or {}).get("count") or 0
        price = _cents(OCI_GPU_HOUR[name] * count)
        return {
            "on_demand": price,
            "spot": _cents(price * OCI_PREEMPTIBLE_DISCOUNT),
            "source": source,
            "spot_source": spot_source,
        }
    return None


def build(
    catalog: dict[str, Any],
    on_demand: dict[str, float],
    savings: dict[str, int],
    sources: dict[str, dict[str, str | None]],
) -> dict[str, Any]:
    prices: dict[str, Any] = {}
    for name, entry in sorted(catalog["instance_types"].items()):
        if entry["cloud"] == "aws":
            price = on_demand.get(name)
            if price is None:
                prices[name] = None
                continue
            saved = savings.get(name)
            prices[name] = {
                "on_demand": _cents(price),
                "spot": None if saved is None else _cents(price * (100 - saved) / 100),
                "source": "aws-karpenter",
                "spot_source": None if saved is None else "aws-spot-advisor",
            }
        else:
            prices[name] = oci_entry(name, entry)
    return {
        "schema": 1,
        "currency": "USD",
        "unit": "instance-hour",
        "oci_preemptible_discount": OCI_PREEMPTIBLE_DISCOUNT,
        "sources": sources,
        "prices": prices,
    }


def render(table: dict[str, Any]) -> str:
    """Canonical text: one type per line, so a regenerated file diffs by type."""
    head = {k: v for k, v in table.items() if k != "prices"}
    lines = json.dumps(head, indent=2, sort_keys=True)[:-2]
    rows = [
        f"    {json.dumps(name)}: {json.dumps(entry, sort_keys=True)}"
        for name, entry in sorted(table["prices"].items())
    ]
    return lines + ',\n  "prices": {\n' + ",\n".join(rows) + "\n  }\n}\n"


def check(path: Path = OUT) -> list[str]:
    problems: list[str] = []
    table = json.loads(path.read_text())
    catalog = json.loads(CATALOG.read_text())
    if path.read_text() != render(table):
        problems.append(f"{path}: not in canonical form (rerun the script)")
    missing = sorted(set(catalog["instance_types"]) - set(table["prices"]))
    if missing:
        problems.append(f"types of the catalog without an entry: {missing[:10]}")
    extra = sorted(set(table["prices"]) - set(catalog["instance_types"]))
    if extra:
        problems.append(f"entries for types the catalog does not have: {extra[:10]}")
    for name, entry in table["prices"].items():
        if entry is None:
            continue
        for key in ("source", "spot_source"):
            if entry[key] is not None and entry[key] not in table["sources"]:
                problems.append(f"{name}: unknown {key} {entry[key]!r}")
        if entry["source"] == "oci-price-list" and name not in OCI_VERIFIED:
            problems.append(f"{name}: source oci-price-list, but OCI_VERIFIED does not list it")
        for key in ("on_demand", "spot", "per_ocpu", "per_gb"):
            value = entry.get(key)
            if value is not None and not (isinstance(value, int | float) and value > 0):
                problems.append(f"{name}.{key}: {value!r} is not a positive price")
        spot, on_demand = entry["spot"], entry["on_demand"]
        if spot is not None and on_demand is not None and spot > on_demand:
            problems.append(f"{name}: spot {entry['spot']} above on-demand")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("karpenter", nargs="?", type=Path, help="karpenter-provider-aws checkout")
    parser.add_argument("spot_advisor", nargs="?", type=Path, help="spot-advisor-data.json")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--as-of", help="date the Spot Advisor feed was downloaded (YYYY-MM-DD)")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--data", type=Path, default=OUT, help="the table --check reads")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.data)
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    if args.karpenter is None or args.spot_advisor is None:
        parser.error("KARPENTER_CHECKOUT and SPOT_ADVISOR_JSON are needed to regenerate")
    text, commit, _ = _git_text(args.karpenter, args.rev, PRICING_GO)
    on_demand, generated = aws_on_demand(text)
    savings = spot_savings(json.loads(args.spot_advisor.read_text()))
    sources = json.loads(json.dumps(SOURCES))
    sources["aws-karpenter"]["url"] = sources["aws-karpenter"]["url"].format(rev=commit)
    sources["aws-karpenter"]["as_of"] = generated
    if args.as_of:
        sources["aws-spot-advisor"]["as_of"] = args.as_of
    elif OUT.exists():  # keep the recorded date of a feed that was not re-downloaded
        sources["aws-spot-advisor"]["as_of"] = json.loads(OUT.read_text())["sources"][
            "aws-spot-advisor"
        ]["as_of"]
    else:
        parser.error("--as-of is needed the first time (when was the feed downloaded?)")
    table = build(json.loads(CATALOG.read_text()), on_demand, savings, sources)
    OUT.write_text(render(table))
    known = sum(1 for entry in table["prices"].values() if entry)
    print(f"wrote {OUT.relative_to(REPO)}: {known} of {len(table['prices'])} types priced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
