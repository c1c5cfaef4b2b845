"""The live cluster, read once and read only: nodes, pods, DaemonSets, Karpenter NodePools
and NodeClaims, Kueue's queues and Workloads, and the scheduler's FailedScheduling events,
as plain JSON objects (the API's own camelCase), so every check is a pure function of a
snapshot and the tests can build one by hand.

The maintained Kubernetes client (`kubernetes`) reads the kubeconfig exactly as kubectl
does (file, context, exec credential plugins). Its API client is wrapped so that any
request other than GET raises before it is sent: doctor never writes to a cluster.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nodepools.doctor.fields import Obj, entries

# Kinds that are absent on a cluster without Karpenter or Kueue: their lists are then
# empty (a 404 from the API server), not an error. Versions newest first: Kueue 0.15+
# serves v1beta2 and still serves v1beta1.
KARPENTER_GROUP, KARPENTER_VERSIONS = "karpenter.sh", ("v1",)
KUEUE_GROUP, KUEUE_VERSIONS = "kueue.x-k8s.io", ("v1beta2", "v1beta1")
REQUEST_TIMEOUT_SECONDS = 15
# The reason of Karpenter's event on a NodeClaim it deleted because no instance type had
# capacity (the NodeClaim is gone: the event is all that is left of it).
INSUFFICIENT_CAPACITY = "InsufficientCapacityError"


class ClusterError(Exception):
    """The cluster can't be read: one line naming the kubeconfig and context."""


@dataclass
class LiveCluster:
    """What doctor read. Every object is the API's JSON (camelCase keys)."""

    nodes: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    pods: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    daemonsets: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    nodepools: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    nodeclaims: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    cluster_queues: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    local_queues: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    workloads: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    events: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    # Karpenter's Warning events on NodeClaims it deleted because the cloud had no capacity.
    capacity_events: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    # Which optional APIs the cluster serves (a missing one is reported, not an error).
    has_karpenter: bool = False
    has_kueue: bool = False


def _read_only_client(kubeconfig: Path | None, context: str | None) -> tuple[Any, Any, str]:
    import kubernetes.client
    import kubernetes.config
    from kubernetes.config.config_exception import ConfigException

    # The client's modules carry no type information: say so once.
    client: Any = kubernetes.client
    config: Any = kubernetes.config
    where = f"kubeconfig {str(kubeconfig) if kubeconfig else '(default)'}" + (
        f", context {context!r}" if context else ""
    )
    try:
        api: Any = config.new_client_from_config(
            config_file=str(kubeconfig) if kubeconfig else None, context=context
        )
    except (ConfigException, FileNotFoundError, OSError, TypeError, ValueError) as exc:
        raise ClusterError(f"{where}: {exc}") from None

    rest: Any = api.rest_client
    request: Any = rest.request

    def get_only(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if method.upper() != "GET":
            raise PermissionError(f"doctor is read-only: refused {method} {url}")
        return request(method, url, *args, **kwargs)

    rest.request = get_only
    # One attempt: an unreachable server is reported at once, not after urllib3's retries.
    api.configuration.retries = 0
    return client, api, where


def _items(response: Any) -> list[Obj]:
    return entries(json.loads(response.data), "items")


def _list(call: Any, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    return _items(
        call(*args, _preload_content=False, _request_timeout=REQUEST_TIMEOUT_SECONDS, **kwargs)
    )


def _custom(
    custom: Any, group: str, versions: Iterable[str], plural: str
) -> list[dict[str, Any]] | None:
    """Every object of a custom kind in all namespaces; None when the cluster doesn't serve it."""
    from kubernetes.client.exceptions import ApiException

    for version in versions:
        try:
            return _list(custom.list_cluster_custom_object, group, version, plural)
        except ApiException as exc:
            if _status(exc) == 404:
                continue
            raise
    return None


def _status(exc: Exception) -> int | None:
    status: Any = getattr(exc, "status", None)
    return status if isinstance(status, int) else None


def read_cluster(kubeconfig: Path | None = None, context: str | None = None) -> LiveCluster:
    """Read the cluster of `kubeconfig`/`context` (its current context by default)."""
    import urllib3
    from kubernetes.client.exceptions import ApiException

    client, api, where = _read_only_client(kubeconfig, context)
    host: str = api.configuration.host
    if not api.configuration.verify_ssl:
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    custom = client.CustomObjectsApi(api)
    live = LiveCluster()
    try:
        live.nodes = _list(core.list_node)
        live.pods = _list(core.list_pod_for_all_namespaces)
        live.events = _list(
            core.list_event_for_all_namespaces, field_selector="reason=FailedScheduling"
        )
        live.capacity_events = _list(
            core.list_event_for_all_namespaces,
            field_selector=f"reason={INSUFFICIENT_CAPACITY},involvedObject.kind=NodeClaim",
        )
        live.daemonsets = _list(apps.list_daemon_set_for_all_namespaces)
        nodepools = _custom(custom, KARPENTER_GROUP, KARPENTER_VERSIONS, "nodepools")
        live.has_karpenter = nodepools is not None
        live.nodepools = nodepools or []
        live.nodeclaims = _custom(custom, KARPENTER_GROUP, KARPENTER_VERSIONS, "nodeclaims") or []
        cluster_queues = _custom(custom, KUEUE_GROUP, KUEUE_VERSIONS, "clusterqueues")
        live.has_kueue = cluster_queues is not None
        live.cluster_queues = cluster_queues or []
        live.local_queues = _custom(custom, KUEUE_GROUP, KUEUE_VERSIONS, "localqueues") or []
        live.workloads = _custom(custom, KUEUE_GROUP, KUEUE_VERSIONS, "workloads") or []
    except ApiException as exc:
        reason: Any = getattr(exc, "reason", None) or ""
        raise ClusterError(f"{where}: {host} answered {_status(exc)} {reason}".rstrip()) from None
    except urllib3.exceptions.HTTPError as exc:
        raise ClusterError(f"{where}: cannot reach {host} ({type(exc).__name__})") from None
    finally:
        api.close()
    return live
