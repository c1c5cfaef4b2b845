"""Plan sections for governance: the quota table of each PoolQuotas and the platforms of
each PoolPlatforms, read from what the components registered as their inputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nodepools.offline import Capture
from nodepools.planning.report import Section
from nodepools.planning.sections import compact

QUOTAS_TYPE = "nodepools:index:PoolQuotas"
PLATFORMS_TYPE = "nodepools:index:PoolPlatforms"
RESOURCE_ORDER = ("gpu", "cpu", "memory")


def _text(value: Any) -> str:
    return "-" if value is None else compact(value)


def _table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _resources(rows: list[dict[str, Any]]) -> list[str]:
    found = {resource for row in rows for resource in row["nominal"]}
    # Accelerators first: they are what the quotas are about.
    plain = [r for r in ("cpu", "memory") if r in found]
    return sorted(found - set(plain)) + plain


def quotas_section(capture: Capture) -> Section | None:
    components = capture.components(QUOTAS_TYPE)
    if not components:
        return None
    section = Section("Quotas (Kueue)")
    for component in components:
        spec: dict[str, Any] = component.inputs.get("spec") or {}
        rows: list[dict[str, Any]] = spec.get("quotas") or []
        section.lines.append(
            f"{component.name}: nominal quota / borrowing limit per project and pool"
        )
        resources = _resources(rows)
        header = ["department", "project", "queue", "pool"]
        header += [f"{r} nominal/borrow" for r in resources]
        table = [header]
        for row in rows:
            cells = [
                row["department"],
                row["project"],
                f"{row['namespace']}/{row['queue']}",
                row["pool"],
            ]
            for resource in resources:
                limit = row["borrowingLimit"].get(resource)
                cells.append(
                    f"{_text(row['nominal'].get(resource))}/{'unlimited' if limit is None else _text(limit)}"
                )
            table.append(cells)
        section.lines += _table(table)
        section.lines.append("Department totals (nominal quota per pool):")
        department_rows = [["department", "pool", *RESOURCE_ORDER]]
        for department, pools in sorted((spec.get("departments") or dict[str, Any]()).items()):
            for pool, amounts in sorted(pools.items()):
                department_rows.append(
                    [department, pool, *(_text(amounts.get(r)) for r in RESOURCE_ORDER)]
                )
        section.lines += _table(department_rows)
        section.lines.append("Pools: capacity vs total nominal quota:")
        pool_rows = [["pool", *(f"{r} capacity/nominal" for r in RESOURCE_ORDER)]]
        for pool, summary in sorted((spec.get("pools") or dict[str, Any]()).items()):
            capacity: dict[str, Any] = summary.get("capacity") or {}
            nominal: dict[str, Any] = summary.get("nominal") or {}
            pool_rows.append(
                [
                    pool,
                    *(f"{_text(capacity.get(r))}/{_text(nominal.get(r))}" for r in RESOURCE_ORDER),
                ]
            )
        section.lines += _table(pool_rows)
    return section


def platforms_section(capture: Capture) -> Section | None:
    components = capture.components(PLATFORMS_TYPE)
    if not components:
        return None
    section = Section("Platforms")
    for component in components:
        spec: dict[str, Any] = component.inputs.get("spec") or {}
        namespaces = ", ".join(spec.get("namespaces") or ())
        section.lines.append(
            f"{component.name}: pool {spec.get('pool')} (namespaces: {namespaces})"
        )
        for platform in spec.get("platforms") or ():
            default = " (default)" if platform.get("default") else ""
            section.lines.append(
                f"  {platform['name']}{default}: PodTemplate {platform['podTemplate']}"
            )
            section.lines.append(f"    node selector: {_text(platform.get('nodeSelector') or {})}")
            section.lines.append(f"    tolerations: {_text(platform.get('tolerations') or [])}")
            variables: dict[str, Any] = platform.get("defaultVariables") or {}
            shown = " ".join(f"{k}={_text(v)}" for k, v in sorted(variables.items())) or "-"
            section.lines.append(f"    default variables: {shown}")
            policy = platform.get("policy")
            checks = "; ".join(platform.get("validations") or ()) or "-"
            section.lines.append(f"    validations ({policy or 'no policy'}): {checks}")
        for role in spec.get("roles") or ():
            section.lines.append(
                f"  role {role['name']} (pools {role['pools']}): groups {', '.join(role['groups'])}"
            )
        for document in spec.get("osmo") or ():
            section.lines.append(
                f"  OSMO {document['type']} {document['name']}: {document['file']}"
            )
            for line in document.get("translation") or ():
                section.lines.append(f"    legacy action {line}")
    return section
