"""A fake NVIDIA OSMO service on loopback: the token exchange and the config API.

An independent oracle for the OSMO client and the `OsmoConfig` provider: it shares no code
with `components` and enforces OSMO's rules itself, written from OSMO's sources
(`src/service/core/config/config_service.py`, `objects.py`, `src/utils/connectors/
postgres.py`, `src/lib/utils/role.py`): config names match `CONFIG_NAME_REGEX`; a pool
needs `backend`, its pod templates and resource validations must exist when it is written
(built-ins installed at start, as the service does); resource assertions have exactly
`operator` (GT, GE, LT, LE, EQ), `left_operand`, `right_operand`, `assert_message`
(strings); a role has `name`, `description` and `policies` of semantic actions (a role with only the
legacy `actions` of OSMO's pool documentation is refused, as OSMO's `Role` refuses it). Errors are OSMO-shaped:
`{"message", "error_code"}` with 400, FastAPI's `{"detail"}` with 422.

Faults are `tests.fake_ocm.Fault`s (throttling, 5xx, a dropped connection), scripted per
request. Bounded like the OCM fake: 127.0.0.1, ephemeral port, `stop()` ends it all.
"""

from __future__ import annotations

import copy
import json
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.fake_ocm import LoopbackFake, _Handler

TOKEN_PATH = "/api/auth/jwt/access_token"
CONFIG_PATH = re.compile(
    r"^/api/configs/(pod_template|resource_validation|pool|role)(?:/([^/]+))?$"
)
NAME = re.compile(r"^[a-zA-Z]([a-zA-Z0-9_.-]*[a-zA-Z0-9])?$")
OPERATORS = {"GT", "GE", "LT", "LE", "EQ"}
SEMANTIC_ACTION = re.compile(r"^(\*|[a-z]+):(\*|[A-Z][a-zA-Z]*)$")
SYNC_MODES = {"force", "import", "ignore"}
EFFECTS = {"Allow", "Deny"}
BUILTIN_TEMPLATES = {
    "default_ctrl": {"spec": {"containers": [{"name": "osmo-ctrl"}]}},
    "default_user": {"spec": {"containers": [{"name": "{{USER_CONTAINER_NAME}}"}]}},
}
BUILTIN_VALIDATIONS = {
    name: [
        {
            "operator": "LE",
            "left_operand": f"{{{{USER_{resource}}}}}",
            "right_operand": f"{{{{K8_{resource}}}}}",
            "assert_message": f"Value {{{{USER_{resource}}}}} too high",
        }
    ]
    for name, resource in (
        ("default_cpu", "CPU"),
        ("default_memory", "MEMORY"),
        ("default_storage", "STORAGE"),
    )
}
POOL_FIELDS = {
    "name", "description", "status", "download_type", "enable_maintenance", "backend",
    "default_platform", "default_exec_timeout", "default_queue_timeout", "max_exec_timeout",
    "max_queue_timeout", "default_exit_actions", "resources", "topology_keys",
    "common_default_variables", "common_resource_validations", "common_pod_template",
    "common_group_templates", "platforms",
}  # fmt: skip


class Rejected(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Written:
    """One accepted write: method, path and the JSON body."""

    method: str
    path: str
    body: Any


class FakeOsmo(LoopbackFake):
    """The fake service. Use as a context manager (or ``start()``/``stop()``)."""

    def __init__(self, *, access_token: str) -> None:
        super().__init__()
        self.access_token = access_token
        self.writes: list[Written] = []
        self.requests: list[tuple[str, str, int | None]] = []
        self.raw_requests: list[bytes] = []
        self.token_exchanges = 0
        self.configs: dict[str, dict[str, Any]] = {
            "pod_template": copy.deepcopy(BUILTIN_TEMPLATES),
            "resource_validation": copy.deepcopy(BUILTIN_VALIDATIONS),
            "pool": {},
            "role": {},
        }
        self._jwts: set[str] = set()

    @property
    def url(self) -> str:
        return self.base_url

    def revoke_sessions(self) -> None:
        with self._lock:
            self._jwts.clear()

    # -- behaviour -------------------------------------------------------------------------

    def handle(self, method: str, path: str, headers: Any, raw: bytes) -> tuple[int, Any]:
        if path == TOKEN_PATH:
            return self._exchange(method, raw)
        match = CONFIG_PATH.match(path)
        if match is None:
            return 404, {"detail": "Not Found"}
        scheme, _, jwt = (headers.get("Authorization") or "").partition(" ")
        with self._lock:
            known = jwt in self._jwts
        if scheme != "Bearer" or not known:
            return 401, {"message": "Unauthorized", "error_code": "CREDENTIAL"}
        kind, name = match.group(1), match.group(2)
        name = unquote(name) if name else None
        try:
            with self._lock:
                return self._config(method, kind, name, raw, path)
        except Rejected as rejection:
            if rejection.status == 422:
                return 422, {"detail": [{"msg": rejection.message}]}
            return rejection.status, {"message": rejection.message, "error_code": "USER"}

    def _exchange(self, method: str, raw: bytes) -> tuple[int, Any]:
        with self._lock:
            self.token_exchanges += 1
        body = _json(raw) if method == "POST" else None
        if not isinstance(body, dict) or body.get("token") != self.access_token:
            return 401, {"message": "Invalid token", "error_code": "CREDENTIAL"}
        jwt = "jwt-" + secrets.token_urlsafe(24)
        with self._lock:
            self._jwts.add(jwt)
        return 200, {"token": jwt}

    def _config(self, method: str, kind: str, name: str | None, raw: bytes, path: str):
        store = self.configs[kind]
        if method == "GET":
            if name is None:
                return 200, copy.deepcopy(store)
            if name not in store:
                raise Rejected(400, f"{kind.replace('_', ' ').title()} {name} does not exist.")
            return 200, copy.deepcopy(store[name])
        body = _json(raw)
        if not isinstance(body, dict):
            raise Rejected(422, "body must be an object")
        if method == "DELETE":
            if name is None:
                raise Rejected(405, "Method Not Allowed")
            store.pop(name, None)  # OSMO deletes silently
            self.writes.append(Written(method, path, body))
            return 200, None
        if method != "PUT":
            raise Rejected(405, "Method Not Allowed")
        _only(body, {"configs", "configs_dict", "description", "tags"})
        if kind == "pod_template":
            configs = _need(body, "configs")
            items = configs if name is None else {name: configs}
            for key, template in _mapping(items).items():
                _name(key, "Pod template")
                if not isinstance(template, dict):
                    raise Rejected(422, f"pod template {key} must be an object")
            store.update(copy.deepcopy(items))
        elif kind == "resource_validation":
            items = _need(body, "configs_dict") if name is None else {name: _need(body, "configs")}
            for key, rules in _mapping(items).items():
                _name(key, "Resource validation")
                _rules(rules)
            store.update(copy.deepcopy(items))
        elif kind == "pool":
            if name is None:
                raise Rejected(405, "whole-pool writes are not modelled")
            pool = _mapping(_need(body, "configs"))
            _name(name, "Pool")
            self._pool(pool)
            store[name] = copy.deepcopy(pool)
        else:
            if name is None:
                raise Rejected(405, "whole-role writes are not modelled")
            role = _mapping(_need(body, "configs"))
            _role(role)
            store[role["name"]] = copy.deepcopy(role)
        self.writes.append(Written(method, path, body))
        return 200, None

    def _pool(self, pool: dict[str, Any]) -> None:
        if "backend" not in pool or not isinstance(pool["backend"], str):
            raise Rejected(422, "configs.backend: Field required (a string)")
        # OSMO's Pool model ignores keys outside POOL_FIELDS (extra='ignore'): so does this.
        for key in ("common_pod_template", "common_resource_validations"):
            if not isinstance(pool.get(key, []), list):
                raise Rejected(422, f"configs.{key}: must be a list")
        platforms = _mapping(pool.get("platforms", {}))
        templates = list(pool.get("common_pod_template", []))
        validations = list(pool.get("common_resource_validations", []))
        for platform_name, platform in platforms.items():
            _name(platform_name, "Platform")
            platform = _mapping(platform)
            templates += platform.get("override_pod_template", [])
            validations += platform.get("resource_validations", [])
        for template in templates:
            if template not in self.configs["pod_template"]:
                raise Rejected(400, f"Pod template {template} does not exist!")
        for validation in validations:
            if validation not in self.configs["resource_validation"]:
                raise Rejected(400, f"Resource validation {validation} does not exist!")


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw or b"null")
    except ValueError:
        raise Rejected(422, "body is not JSON") from None


def _only(body: dict[str, Any], allowed: set[str]) -> None:
    # ConfigsRequest models ignore unknown keys, but a misnamed payload key means the
    # request carries no config at all: say so.
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise Rejected(422, f"unexpected body keys {unknown}")


def _need(body: dict[str, Any], key: str) -> Any:
    if key not in body:
        raise Rejected(422, f"{key}: Field required")
    return body[key]


def _mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Rejected(422, f"expected an object, got {value!r}")
    return value


def _name(name: str, what: str) -> None:
    if not NAME.fullmatch(name):
        raise Rejected(
            400,
            f'{what} name "{name}" is not valid! Name can only be alphanumeric and contain '
            "dash or underscore.",
        )


def _rules(rules: Any) -> None:
    if not isinstance(rules, list):
        raise Rejected(422, "resource validations must be a list")
    for rule in rules:
        rule = _mapping(rule)
        if set(rule) != {"operator", "left_operand", "right_operand", "assert_message"}:
            raise Rejected(422, f"resource assertion has fields {sorted(rule)}")
        if rule["operator"] not in OPERATORS:
            raise Rejected(422, f"operator {rule['operator']!r} is not one of {sorted(OPERATORS)}")
        if not all(isinstance(rule[k], str) for k in rule):
            raise Rejected(422, "resource assertion operands and message must be strings")


def _role(role: dict[str, Any]) -> None:
    # OSMO's `Role` (src/lib/utils/role.py): `policies` is required, unknown keys (a legacy
    # `actions`) are ignored, so a legacy-only role is refused for lacking `policies`.
    for key in ("name", "description"):
        if not isinstance(role.get(key), str):
            raise Rejected(422, f"configs.{key}: Field required (a string)")
    if not isinstance(role.get("policies"), list):
        raise Rejected(422, "configs.policies: Field required (a list)")
    if role.get("sync_mode", "import") not in SYNC_MODES:
        raise Rejected(422, f"configs.sync_mode: {role['sync_mode']!r} is not a sync mode")
    for policy in role["policies"]:
        policy = _mapping(policy)
        if policy.get("effect", "Allow") not in EFFECTS:
            raise Rejected(422, f"policy effect {policy['effect']!r} is not Allow or Deny")
        if "actions" not in policy:
            raise Rejected(422, "configs.policies.actions: Field required")
        actions = policy["actions"]
        for action in [actions] if isinstance(actions, str) else actions:
            if not isinstance(action, str) or not SEMANTIC_ACTION.match(action):
                raise Rejected(400, f"Invalid action format: {action}.")
        resources = policy.get("resources", [])
        if not isinstance(resources, list) or not all(isinstance(r, str) for r in resources):
            raise Rejected(422, "configs.policies.resources: must be a list of strings")


class _OsmoHandler(_Handler):
    fake: FakeOsmo  # type: ignore[assignment]

    def do_PUT(self) -> None:
        self._serve("PUT")

    def _serve(self, method: str) -> None:
        path = urlsplit(self.path).path
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        fake = self.fake
        with fake._lock:
            fake.raw_requests.append(raw + str(self.headers).encode())
        fault = fake._next_fault(method, path)
        if fault is not None and fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            self._record(method, path, fault.status)
            self._answer(fault.status, headers, {"message": f"Injected fault {fault.status}"})
            return
        if fault is not None and fault.kind == "drop" and not fault.apply:
            self._record(method, path, None)
            self._drop()
            return
        status, body = fake.handle(method, path, self.headers, raw)
        self._record(method, path, None if fault is not None else status)
        if fault is not None and fault.kind == "drop":
            self._drop()
            return
        self._answer(status, {}, body)

    def _record(self, method: str, path: str, status: int | None) -> None:
        with self.fake._lock:
            self.fake.requests.append((method, path, status))


@contextmanager
def running_fake_osmo(access_token: str) -> Iterator[FakeOsmo]:
    with FakeOsmo(access_token=access_token) as fake:
        yield fake


FakeOsmo.handler = _OsmoHandler
