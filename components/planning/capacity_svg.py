"""`capacity.svg`: accelerators per pool, min vs max, spot vs on-demand, as plain SVG.

One horizontal bar per accelerator pool: the full bar is the most accelerators its
autoscaling range allows, the solid part the fewest it always runs; blue is on-demand,
orange spot (a pool that may use both is drawn as spot: its capacity can be taken back).
A pool without an upper bound is drawn to the edge and marked "unbounded". No plotting
library: the picture is a few dozen elements, and plain text keeps it deterministic and
diffable (the same plan always writes the same bytes).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

WIDTH = 760
LABEL_WIDTH = 300
BAR_WIDTH = 360
ROW = 28
TOP = 48
COLOURS = {
    "on-demand": ("#1f6feb", "#a5c8ff"),  # (min, the rest up to max)
    "spot": ("#d1700f", "#ffd3a1"),
}


def _label(pool: dict[str, Any]) -> str:
    accelerator = pool["accelerator"]
    return f"{pool['name']} ({accelerator['model'] or accelerator['resource']})"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def capacity_svg(document: dict[str, Any]) -> str:
    pools = [p for p in document["pools"] if p["accelerators"] is not None]
    finite = [p["accelerators"]["max"] for p in pools if p["accelerators"]["max"] is not None]
    scale_max = max([*finite, 1])
    height = TOP + ROW * max(len(pools), 1) + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">',
        f"<title>Accelerators per pool: {escape(document['stack'])}</title>",
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        f'<text x="10" y="20" font-size="14" font-weight="bold">Accelerators per pool, stack '
        f"{escape(document['stack'])}</text>",
        '<text x="10" y="38" fill="#555">solid: always running (min); light: up to max; '
        "blue: on-demand, orange: spot</text>",
    ]
    if not pools:
        out.append(f'<text x="10" y="{TOP + 18}">No accelerator pools in this stack.</text>')
    for index, pool in enumerate(pools):
        y = TOP + index * ROW
        kind = "spot" if "spot" in pool["capacity_types"] else "on-demand"
        solid, light = COLOURS[kind]
        low, high = pool["accelerators"]["min"], pool["accelerators"]["max"]
        full = BAR_WIDTH if high is None else BAR_WIDTH * high / scale_max
        part = min(BAR_WIDTH * low / scale_max, BAR_WIDTH)
        text = f"{_fmt(low)}..{'unbounded' if high is None else _fmt(high)} {kind}"
        out += [
            f'<text x="10" y="{y + 17}">{escape(_label(pool))}</text>',
            f'<rect x="{LABEL_WIDTH}" y="{y + 4}" width="{full:.1f}" height="18" fill="{light}"/>',
            f'<rect x="{LABEL_WIDTH}" y="{y + 4}" width="{part:.1f}" height="18" fill="{solid}"/>',
            f'<text x="{LABEL_WIDTH + full + 6:.1f}" y="{y + 17}" fill="#333">{escape(text)}</text>'
            if high is not None
            else f'<text x="{LABEL_WIDTH + BAR_WIDTH - 4}" y="{y + 17}" text-anchor="end" '
            f'fill="#333">{escape(text)}</text>',
        ]
    axis_y = TOP + ROW * max(len(pools), 1) + 6
    out += [
        f'<line x1="{LABEL_WIDTH}" y1="{axis_y}" x2="{LABEL_WIDTH + BAR_WIDTH}" y2="{axis_y}" stroke="#999"/>',
        f'<text x="{LABEL_WIDTH}" y="{axis_y + 16}" fill="#555">0</text>',
        f'<text x="{LABEL_WIDTH + BAR_WIDTH}" y="{axis_y + 16}" text-anchor="end" fill="#555">'
        f"{_fmt(scale_max)} accelerators</text>",
        "</svg>",
    ]
    return "\n".join(out) + "\n"
