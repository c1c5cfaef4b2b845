"""Bottlerocket user data: TOML `[settings]` (bottlerocket.dev, "settings.kubernetes").

On an EKS-optimized Bottlerocket AMI, EKS merges its own bootstrap settings (cluster name,
API server, certificate, labels, taints) into the launch template's TOML, so the pool gives
only `node_config.max_pods` (`kubernetes.max-pods`) and `node_config.bottlerocket`. A custom
Bottlerocket AMI (`ami_id` with `ami_family: bottlerocket`) gets nothing from EKS: its TOML
names the cluster (`cluster-name`, `api-server`, `cluster-certificate`, `cluster-dns-ip`,
the 10th address of the service CIDR as EKS and terraform-aws-eks derive it) and the
pool's `node-labels` and `node-taints` (`key = ["value:Effect"]`, as Karpenter writes them).
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any

from nodepools.json_values import is_dict, is_list
from nodepools.specs.pools.node_settings import NodeConfig
from nodepools.specs.pools.resolve import ResolvedPool

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if is_list(value):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string


def toml_document(settings: dict[str, Any]) -> str:
    """`settings` as the TOML of a `[settings]` table and its sub-tables, in their order."""
    lines: list[str] = []

    def table(path: list[str], entries: dict[str, Any]) -> None:
        values = [(k, v) for k, v in entries.items() if not is_dict(v)]
        if values or not entries:
            lines.append("[" + ".".join(_key(part) for part in path) + "]")
            lines.extend(f"{_key(k)} = {_value(v)}" for k, v in values)
            lines.append("")
        for key, sub in entries.items():
            if is_dict(sub):
                table([*path, key], dict[str, Any](sub))

    table(["settings"], settings)
    return "\n".join(lines)


def merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` merged into `base`, tables key by key."""
    result = dict(base)
    for key, value in over.items():
        below = result.get(key)
        if is_dict(value) and is_dict(below):
            result[key] = merged(dict[str, Any](below), dict[str, Any](value))
        else:
            result[key] = value
    return result


def cluster_dns_ip(service_cidr: str) -> str:
    """The cluster DNS service's address: the 10th of the service CIDR (`10.100.0.10`)."""
    return str(ipaddress.ip_network(service_cidr, strict=False)[10])


def pool_settings(config: NodeConfig | None) -> dict[str, Any]:
    """The settings of the pool's own: `max-pods` and `node_config.bottlerocket`."""
    if config is None:
        return {}
    own: dict[str, Any] = {}
    if config.max_pods is not None:
        own["kubernetes"] = {"max-pods": config.max_pods}
    return merged(own, config.bottlerocket)


def custom_ami_settings(
    pool: ResolvedPool,
    labels: dict[str, str],
    cluster_name: str | None,
    endpoint: str | None,
    certificate_authority: str | None,
    service_cidr: str | None,
) -> dict[str, Any]:
    """A custom Bottlerocket AMI's settings: the cluster's coordinates, the pool's labels
    and taints, then its own settings. A detail nothing computed (mocks) is left out."""
    kubernetes: dict[str, Any] = {
        key: value
        for key, value in (
            ("cluster-name", cluster_name),
            ("api-server", endpoint),
            ("cluster-certificate", certificate_authority),
            ("cluster-dns-ip", cluster_dns_ip(service_cidr) if service_cidr else None),
        )
        if value is not None
    }
    if labels:
        kubernetes["node-labels"] = dict(sorted(labels.items()))
    taints: dict[str, list[str]] = {}
    for taint in pool.taints:
        taints.setdefault(taint.key, []).append(f"{taint.value or ''}:{taint.effect}")
    if taints:
        kubernetes["node-taints"] = dict(sorted(taints.items()))
    return merged({"kubernetes": kubernetes}, pool_settings(pool.node_config))
