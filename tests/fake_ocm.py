"""A fake OpenShift Cluster Manager on loopback: SSO token endpoint + machine-pool API.

It is an independent oracle for the OCM client and the dynamic provider: it enforces the
documented machine-pool rules itself (it shares no code with ``components``) and answers
with OCM-shaped error bodies. Faults can be scripted per request to exercise the retry
paths: throttling with ``Retry-After``, 5xx, an answer slower than the client's timeout
(the request is still applied: the duplicate-create hazard), and a dropped connection.

Everything is bounded: the server listens on 127.0.0.1 on an ephemeral port, idle
connections time out, a slow answer waits at most its delay (and not at all once the
server stops), and ``stop()`` ends it all.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

SSO_PATH = "/auth/realms/redhat-external/protocol/openid-connect/token"
POOLS_PATH = re.compile(r"^/api/clusters_mgmt/v1/clusters/([^/]+)/machine_pools(?:/([^/]+))?$")
CLUSTER_PATH = re.compile(r"^/api/clusters_mgmt/v1/clusters/([^/]+)$")
POOL_ID = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
EFFECTS = {"NoSchedule", "PreferNoSchedule", "NoExecute"}
IMMUTABLE_IN_PATCH = ("id", "instance_type", "root_volume", "subnets", "availability_zones")
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]


@dataclass(frozen=True)
class Fault:
    """What to do to one request instead of (or on top of) answering it normally."""

    kind: str  # "status" | "slow" | "drop"
    status: int = 503
    retry_after: str | None = None
    delay: float = 0.0
    apply: bool = False  # for "drop": act on the request before dropping the connection

    @classmethod
    def throttle(cls, retry_after: float | str = 1) -> Fault:
        return cls("status", status=429, retry_after=str(retry_after))

    @classmethod
    def unavailable(cls, status: int = 503) -> Fault:
        return cls("status", status=status)

    @classmethod
    def slow(cls, delay: float) -> Fault:
        """Apply the request, then answer only after ``delay`` seconds."""
        return cls("slow", delay=delay)

    @classmethod
    def drop(cls, *, apply: bool = False) -> Fault:
        """Close the connection without any answer (optionally after applying the request)."""
        return cls("drop", apply=apply)


@dataclass
class _FaultRule:
    method: str
    path: re.Pattern[str]
    faults: deque[Fault]


@dataclass
class Recorded:
    method: str
    path: str
    status: int | None  # None when the connection was dropped
    fault: str | None
    body: Any  # the decoded JSON body sent (None for none, or for the SSO form)


@dataclass
class _Cluster:
    multi_az: bool
    pools: dict[str, dict[str, Any]] = field(default_factory=dict)
    # A BYO-VPC cluster's subnets (rhcs refuses a pool subnet outside them); () = any.
    subnets: tuple[str, ...] = ()


class OcmRejection(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class LoopbackFake:
    """A fake HTTP service on 127.0.0.1 (ephemeral port) with scripted faults: subclasses
    set `handler` (a `_Handler` subclass) and answer requests in `handle`."""

    handler: type[BaseHTTPRequestHandler]

    def __init__(self) -> None:
        self._rules: list[_FaultRule] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self):
        handler = type("BoundHandler", (self.handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def inject(self, method: str, path_pattern: str, *faults: Fault) -> None:
        """Apply ``faults`` in order to the next requests matching method and path regex."""
        with self._lock:
            self._rules.append(_FaultRule(method.upper(), re.compile(path_pattern), deque(faults)))

    def _next_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for rule in self._rules:
                if rule.faults and rule.method in (method, "*") and rule.path.fullmatch(path):
                    return rule.faults.popleft()
        return None


class FakeOcm(LoopbackFake):
    """The fake server. Use as a context manager (or ``start()``/``stop()``)."""

    def __init__(self, *, offline_token: str, access_token_ttl: int = 900) -> None:
        super().__init__()
        self.offline_token = offline_token
        self.access_token_ttl = access_token_ttl
        self.requests: list[Recorded] = []
        self.token_exchanges = 0
        self._clusters: dict[str, _Cluster] = {}
        self._access_tokens: dict[str, float] = {}

    @property
    def api_url(self) -> str:
        return self.base_url

    @property
    def sso_url(self) -> str:
        return self.base_url + SSO_PATH

    # -- scripting -----------------------------------------------------------------------

    def add_cluster(
        self, cluster_id: str, *, multi_az: bool = False, subnets: tuple[str, ...] = ()
    ) -> None:
        with self._lock:
            self._clusters[cluster_id] = _Cluster(multi_az=multi_az, subnets=tuple(subnets))

    def revoke_access_tokens(self) -> None:
        with self._lock:
            self._access_tokens.clear()

    def pools(self, cluster_id: str) -> dict[str, dict[str, Any]]:
        with self._lock:
            return json.loads(json.dumps(self._clusters[cluster_id].pools))

    def put_pool(self, cluster_id: str, pool: dict[str, Any]) -> None:
        """Create a pool behind the API's back (someone else's pool, a console click)."""
        with self._lock:
            cluster = self._clusters[cluster_id]
            cluster.pools[pool["id"]] = _stored(cluster_id, pool, cluster.multi_az)

    def count(self, method: str, path_pattern: str = ".*") -> int:
        pattern = re.compile(path_pattern)
        with self._lock:
            return sum(1 for r in self.requests if r.method == method and pattern.fullmatch(r.path))

    def _record(
        self, method: str, path: str, raw: bytes, status: int | None, fault: Fault | None
    ) -> None:
        body = None
        if raw and path != SSO_PATH:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode(errors="replace")
        with self._lock:
            self.requests.append(
                Recorded(method, path, status, fault.kind if fault else None, body)
            )

    def bodies(self, method: str, path_pattern: str = ".*") -> list[Any]:
        """The JSON bodies of the recorded requests with this method and path."""
        pattern = re.compile(path_pattern)
        with self._lock:
            return [
                r.body for r in self.requests if r.method == method and pattern.fullmatch(r.path)
            ]

    # -- behaviour -----------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, list[str]], headers, raw: bytes):
        """(status, headers, body) for one request, faults aside."""
        if path == SSO_PATH:
            return self._token(method, raw)
        cluster_match = CLUSTER_PATH.match(path)
        match = POOLS_PATH.match(path)
        if not match and not cluster_match:
            return _error(404, f"No such resource '{path}'")
        if not self._authenticated(headers.get("Authorization", "")):
            return _error(401, "Request is not authenticated: missing or expired access token")
        if cluster_match:
            return self._cluster(method, cluster_match.group(1))
        cluster_id, pool_id = match.group(1), match.group(2)
        try:
            with self._lock:
                cluster = self._clusters.get(cluster_id)
                if cluster is None:
                    raise OcmRejection(404, f"Cluster '{cluster_id}' not found")
                if pool_id is None:
                    if method == "GET":
                        return 200, {}, _page(cluster, query)
                    if method == "POST":
                        return 201, {}, _create(cluster_id, cluster, _json(raw))
                    raise OcmRejection(405, f"Method {method} not allowed on machine pools")
                pool = cluster.pools.get(pool_id)
                if pool is None:
                    raise OcmRejection(
                        404, f"Machine pool with id '{pool_id}' not found on cluster '{cluster_id}'"
                    )
                if method == "GET":
                    return 200, {}, pool
                if method == "PATCH":
                    return 200, {}, _patch(cluster, pool, _json(raw))
                if method == "DELETE":
                    del cluster.pools[pool_id]
                    return 204, {}, None
                raise OcmRejection(405, f"Method {method} not allowed on a machine pool")
        except OcmRejection as rejection:
            return _error(rejection.status, rejection.reason)

    def _cluster(self, method: str, cluster_id: str):
        """GET /clusters/{id}: the fields of OCM's Cluster object the provider reads."""
        if method != "GET":
            return _error(405, f"Method {method} not allowed on a cluster")
        with self._lock:
            cluster = self._clusters.get(cluster_id)
            if cluster is None:
                return _error(404, f"Cluster '{cluster_id}' not found")
            return (
                200,
                {},
                {
                    "kind": "Cluster",
                    "id": cluster_id,
                    "href": f"/api/clusters_mgmt/v1/clusters/{cluster_id}",
                    "multi_az": cluster.multi_az,
                    "state": "ready",
                },
            )

    def _token(self, method: str, raw: bytes):
        if method != "POST":
            return 405, {}, {"error": "invalid_request", "error_description": "POST only"}
        form = {key: values[0] for key, values in parse_qs(raw.decode()).items()}
        with self._lock:
            self.token_exchanges += 1
        if form.get("client_id") != "cloud-services":
            return 401, {}, {"error": "unauthorized_client", "error_description": "Invalid client"}
        if form.get("grant_type") != "refresh_token":
            return 400, {}, {"error": "unsupported_grant_type", "error_description": "Bad grant"}
        if form.get("refresh_token") != self.offline_token:
            # What Keycloak answers for a revoked, expired or mistyped offline token.
            return 400, {}, {"error": "invalid_grant", "error_description": "Invalid refresh token"}
        access_token = "access-" + secrets.token_urlsafe(24)
        with self._lock:
            self._access_tokens[access_token] = time.monotonic() + self.access_token_ttl
        return (
            200,
            {},
            {
                "access_token": access_token,
                "expires_in": self.access_token_ttl,
                "refresh_token": self.offline_token,
                "token_type": "Bearer",
            },
        )

    def _authenticated(self, authorization: str) -> bool:
        scheme, _, token = authorization.partition(" ")
        with self._lock:
            expiry = self._access_tokens.get(token)
        return scheme == "Bearer" and expiry is not None and expiry > time.monotonic()


# -- the rules, written from the OCM documentation (shared/ocm/README.md) -------------------


def _json(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw or b"null")
    except ValueError as exc:
        raise OcmRejection(400, f"Body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise OcmRejection(400, "Body must be a JSON object")
    return body


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise OcmRejection(400, f"Attribute '{name}' must be a non-negative integer, got {value!r}")
    return value


def _check_scaling(pool: dict[str, Any], multi_az: bool) -> None:
    has_replicas, has_autoscaling = "replicas" in pool, "autoscaling" in pool
    if has_replicas == has_autoscaling:
        raise OcmRejection(400, "Exactly one of 'replicas' or 'autoscaling' must be specified")
    pinned = any(len(pool.get(key) or []) == 1 for key in ("subnets", "availability_zones"))
    counts = (
        {"replicas": _whole(pool["replicas"], "replicas")}
        if has_replicas
        else {
            f"autoscaling.{key}": _whole((pool["autoscaling"] or {}).get(key), key)
            for key in ("min_replicas", "max_replicas")
        }
    )
    if has_autoscaling and counts["autoscaling.min_replicas"] > counts["autoscaling.max_replicas"]:
        raise OcmRejection(400, "Autoscaling min_replicas must not exceed max_replicas")
    if multi_az and not pinned:
        for name, count in counts.items():
            if count % 3:
                raise OcmRejection(
                    400, f"Multi-AZ clusters require '{name}' to be a multiple of 3, got {count}"
                )


def _check_taints(taints: Any) -> None:
    if not isinstance(taints, list):
        raise OcmRejection(400, "Attribute 'taints' must be a list")
    for taint in taints:
        if not isinstance(taint, dict) or not taint.get("key"):
            raise OcmRejection(400, f"Invalid taint {taint!r}: a key is required")
        if taint.get("effect") not in EFFECTS:
            raise OcmRejection(
                400,
                f"Invalid taint effect '{taint.get('effect')}', expected one of {sorted(EFFECTS)}",
            )


def _check_labels(labels: Any) -> None:
    if not isinstance(labels, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
    ):
        raise OcmRejection(400, "Attribute 'labels' must map strings to strings")


SECURITY_GROUP = re.compile(r"^sg-[0-9a-f]+$")
AWS_FIELDS = {"spot_market_options", "additional_security_group_ids", "tags"}


def _check_placement(pool: dict[str, Any], cluster: _Cluster) -> None:
    zones, subnets = pool.get("availability_zones"), pool.get("subnets")
    for name, value in (("availability_zones", zones), ("subnets", subnets)):
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(v, str) and v for v in value)
        ):
            raise OcmRejection(400, f"Attribute '{name}' must be a list of strings")
    for zone in zones or []:
        if zone not in ZONES:
            raise OcmRejection(
                400, f"Availability zone '{zone}' is not one of the cluster's zones {ZONES}"
            )
    for subnet in subnets or []:
        if cluster.subnets and subnet not in cluster.subnets:
            raise OcmRejection(400, f"Subnet '{subnet}' is not one of the cluster's subnets")
    aws = pool.get("aws")
    if aws is None:
        return
    if not isinstance(aws, dict):
        raise OcmRejection(400, "Attribute 'aws' must be an object")
    unknown = sorted(set(aws) - AWS_FIELDS)
    if unknown:
        raise OcmRejection(400, f"Unknown AWS machine pool attributes {unknown}")
    groups = aws.get("additional_security_group_ids")
    if groups is not None and (
        not isinstance(groups, list)
        or not all(isinstance(g, str) and SECURITY_GROUP.match(g) for g in groups)
    ):
        raise OcmRejection(
            400, f"Additional security group ids {groups!r} must be a list of 'sg-' ids"
        )


def _validate_new(pool: dict[str, Any], multi_az: bool) -> None:
    pool_id = pool.get("id")
    if not isinstance(pool_id, str) or not POOL_ID.match(pool_id):
        raise OcmRejection(
            400, f"Machine pool id '{pool_id}' is invalid: it must match {POOL_ID.pattern}"
        )
    if not isinstance(pool.get("instance_type"), str) or not pool["instance_type"]:
        raise OcmRejection(400, "Attribute 'instance_type' is required")
    _check_scaling(pool, multi_az)
    size = ((pool.get("root_volume") or {}).get("aws") or {}).get("size")
    if "root_volume" in pool and (not isinstance(size, int) or not 128 <= size <= 16384):
        raise OcmRejection(400, f"Root volume size {size!r} GiB must be between 128 and 16384")
    spot = (pool.get("aws") or {}).get("spot_market_options")
    if spot is not None and "max_price" in spot:
        price = spot["max_price"]
        if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
            raise OcmRejection(400, f"Spot max price {price!r} must be greater than 0")
    if pool.get("subnets") and pool.get("availability_zones"):
        raise OcmRejection(400, "Subnets and availability zones are mutually exclusive")
    if pool.get("availability_zones") and not multi_az:
        raise OcmRejection(400, "Availability zones can only be chosen on a multi-AZ cluster")
    if "taints" in pool:
        _check_taints(pool["taints"])
    if "labels" in pool:
        _check_labels(pool["labels"])


def _stored(cluster_id: str, pool: dict[str, Any], multi_az: bool) -> dict[str, Any]:
    stored = json.loads(json.dumps(pool))
    stored["kind"] = "MachinePool"
    stored["href"] = f"/api/clusters_mgmt/v1/clusters/{cluster_id}/machine_pools/{pool['id']}"
    # Defaults OCM fills in by itself: the callers must not mistake them for changes.
    stored.setdefault("root_volume", {"aws": {"size": 300}})
    if not stored.get("subnets"):
        stored.setdefault("availability_zones", ZONES if multi_az else ZONES[:1])
    return stored


def _create(cluster_id: str, cluster: _Cluster, body: dict[str, Any]) -> dict[str, Any]:
    _validate_new(body, cluster.multi_az)
    _check_placement(body, cluster)
    if body["id"] in cluster.pools:
        raise OcmRejection(409, f"Machine pool with id '{body['id']}' already exists")
    cluster.pools[body["id"]] = _stored(cluster_id, body, cluster.multi_az)
    return cluster.pools[body["id"]]


def _patch(cluster: _Cluster, pool: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    for key in IMMUTABLE_IN_PATCH:
        if key in patch and patch[key] != pool.get(key):
            raise OcmRejection(400, f"Attribute '{key}' cannot be changed after creation")
    if "aws" in patch and patch["aws"] != pool.get("aws"):
        raise OcmRejection(
            400, "Attribute 'aws' (spot market options, security groups) cannot be changed"
        )
    if "replicas" in patch and "autoscaling" in patch:
        raise OcmRejection(400, "Exactly one of 'replicas' or 'autoscaling' must be specified")
    updated = json.loads(json.dumps(pool))
    # Setting one scaling mode drops the other, as OCM does.
    if "replicas" in patch:
        updated.pop("autoscaling", None)
        updated["replicas"] = patch["replicas"]
    if "autoscaling" in patch:
        updated.pop("replicas", None)
        updated["autoscaling"] = patch["autoscaling"]
    _check_scaling(updated, cluster.multi_az)
    if "labels" in patch:
        _check_labels(patch["labels"])
        updated["labels"] = patch["labels"]
    if "taints" in patch:
        _check_taints(patch["taints"])
        updated["taints"] = patch["taints"]
    pool.clear()
    pool.update(updated)
    return pool


def _page(cluster: _Cluster, query: dict[str, list[str]]) -> dict[str, Any]:
    try:
        page = int(query.get("page", ["1"])[0])
        size = min(int(query.get("size", ["100"])[0]), 100)
    except ValueError:
        raise OcmRejection(400, "Parameters 'page' and 'size' must be integers") from None
    if page < 1 or size < 1:
        raise OcmRejection(400, "Parameters 'page' and 'size' must be positive")
    pools = sorted(cluster.pools.values(), key=lambda p: p["id"])
    items = pools[(page - 1) * size : page * size]
    return {
        "kind": "MachinePoolList",
        "page": page,
        "size": len(items),
        "total": len(pools),
        "items": items,
    }


def _error(status: int, reason: str) -> tuple[int, dict[str, str], dict[str, Any]]:
    operation_id = str(uuid.uuid4())
    body = {
        "kind": "Error",
        "id": str(status),
        "href": f"/api/clusters_mgmt/v1/errors/{status}",
        "code": f"CLUSTERS-MGMT-{status}",
        "reason": reason,
        "operation_id": operation_id,
    }
    return status, {"X-Operation-Id": operation_id}, body


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOcm
    protocol_version = "HTTP/1.1"
    timeout = 5  # idle keep-alive connections end by themselves
    disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms stalls

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean; requests are in `fake.requests`

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        parts = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        fault = self.fake._next_fault(method, parts.path)
        if fault is not None and fault.kind == "status":
            status, headers, body = _error(fault.status, "Injected fault")
            if fault.retry_after is not None:
                headers["Retry-After"] = fault.retry_after
            self.fake._record(method, parts.path, raw, status, fault)
            self._answer(status, headers, body)
            return
        if fault is not None and fault.kind == "drop" and not fault.apply:
            self.fake._record(method, parts.path, raw, None, fault)
            self._drop()
            return
        status, headers, body = self.fake.handle(
            method, parts.path, parse_qs(parts.query), self.headers, raw
        )
        if fault is not None and fault.kind == "drop":
            self.fake._record(method, parts.path, raw, None, fault)
            self._drop()
            return
        self.fake._record(method, parts.path, raw, status, fault)
        if fault is not None and fault.kind == "slow":
            # The request is applied; only the answer is late (and then lost).
            self.fake._stopping.wait(fault.delay)
        self._answer(status, headers, body)

    def _answer(self, status: int, headers: dict[str, str], body: Any) -> None:
        payload = b"" if body is None else json.dumps(body).encode()
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if payload:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up waiting (a "slow" fault)

    def _drop(self) -> None:
        self.close_connection = True
        with suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


@contextmanager
def running_fake_ocm(offline_token: str, **clusters: bool) -> Iterator[FakeOcm]:
    """A started fake with the given clusters (name=multi_az), stopped on exit."""
    with FakeOcm(offline_token=offline_token) as fake:
        for cluster_id, multi_az in clusters.items():
            fake.add_cluster(cluster_id, multi_az=multi_az)
        yield fake


FakeOcm.handler = _Handler
