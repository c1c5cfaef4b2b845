"""ROSA Classic machine pools, managed through the OpenShift Cluster Manager API.

There is no Pulumi provider for ROSA Classic, so a machine pool is a Pulumi *dynamic*
resource: ``OcmMachinePool`` registers the inputs, and ``OcmMachinePoolProvider`` runs
check/diff/create/read/update/delete against OCM with ``OcmClient``. ``MachinePool`` and
``GpuSpotPool`` on a ``RosaCluster`` come here through ``build_pool`` (end of the module):
the resolved pool becomes an OCM body (``machine_pool_body``) and one ``OcmMachinePool``
child named ``<name>-machine-pool``, whose ``token`` input is the cluster's token.

How the OCM token stays secret
------------------------------
Pulumi pickles the provider object (with dill) into the resource's ``__provider`` input, so
the provider holds no token and no client: every method builds its own ``OcmClient`` from
the properties it is handed, uses it, and closes it.

The token reaches the provider as the ``token`` input, which ``OcmMachinePool`` wraps in
``pulumi.Output.secret``: the engine encrypts it in the state and strips the secret marker
only on the way into the provider process. ``create``/``update`` return it among the
outputs so that ``read`` and ``delete``, which receive only the stored outputs, can still
authenticate; it stays a secret there twice over: the resource declares
``additional_secret_outputs=["token"]``, and the engine copies the secret bit from an
input to the output of the same name for providers that do not take secrets (dynamic
providers do not). With no ``token`` (or an empty one), nothing is stored and every
operation, delete included, reads ``RHCS_TOKEN`` then ``OCM_TOKEN`` from the environment of
the ``pulumi`` process at that moment.

The resource id is ``"<cluster_id>,<pool_id>"`` (the form the rhcs Terraform provider
imports). Pulumi can't import it, though: the engine's import calls Read with the id alone,
no inputs and no state, and the Python dynamic provider host looks for the pickled provider
in those properties (``__provider``) before any code of ours runs, so ``pulumi import`` and
``ResourceOptions(import_=...)`` fail with ``KeyError: '__provider'`` (pulumi/pulumi#16175).
An existing pool is taken over only by ``create``'s adoption: one with the same id and the
same spec as the program's (see ``_create_or_adopt``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi.dynamic
from nodepools.backends import BuiltPool
from nodepools.backends.dynamic_support import (
    has_unknown,
    is_unknown,
    pickler_left_as_found,
    unwrap_secret,
)
from nodepools.backends.rosa.body_diff import (
    body_changes,
    describe_differences,
    live_view,
    normalize_body,
    patch_for,
)
from nodepools.backends.rosa.ocm_client import (
    DEFAULT_API_URL,
    DEFAULT_SSO_URL,
    OcmApiError,
    OcmAuthenticationError,
    OcmClient,
    OcmConnectionError,
    OcmError,
)
from nodepools.backends.rosa.request_body import Problem, body_problems, machine_pool_body
from nodepools.json_values import is_dict
from nodepools.specs.clusters.rosa import TOKEN_ENV_VARS, RosaCluster
from nodepools.specs.core.secret_inputs import url_problem
from nodepools.specs.pools.resolve import ResolvedPool
from pydantic import SecretStr

logger = logging.getLogger(__name__)

RESOURCE_TYPE = "ocm:clusters_mgmt/v1:MachinePool"
"""Marker input naming what the dynamic resource manages; policies key on it."""
INPUT_KEYS = ("resource_type", "cluster_id", "api_url", "sso_url", "multi_az", "body", "token")
SETTINGS_KEYS = ("api_url", "sso_url", "multi_az", "token")
"""Inputs that change how the provider talks to OCM but not the pool itself."""
BODY_FROM_OCM = "body_from_ocm"
"""Output set when ``read`` had no body to shape the state by (an import-like read): the
stored body then holds every zone, subnet and root volume OCM filled in, so their absence
from the program means keep them, not a replacement."""


class OcmMachinePoolConflictError(OcmError):
    """A machine pool with the wanted id exists and is not the pool this resource describes."""


# -- inputs --------------------------------------------------------------------------------


def input_problems(props: Mapping[str, Any]) -> list[Problem]:
    """Every problem with a resource's inputs; values still unknown (preview) are skipped."""
    problems: list[Problem] = []
    for key in sorted(set(props) - set(INPUT_KEYS) - {"__provider"}):
        problems.append(Problem(key, f"is not an input of {RESOURCE_TYPE} ({list(INPUT_KEYS)})"))
    if props.get("resource_type") != RESOURCE_TYPE:
        problems.append(
            Problem(
                "resource_type", f"must be {RESOURCE_TYPE!r}, got {props.get('resource_type')!r}"
            )
        )
    cluster_id = props.get("cluster_id")
    if not is_unknown(cluster_id) and (not isinstance(cluster_id, str) or not cluster_id.strip()):
        problems.append(
            Problem("cluster_id", f"is required (the OCM cluster id), got {cluster_id!r}")
        )
    elif isinstance(cluster_id, str) and "," in cluster_id:
        problems.append(Problem("cluster_id", f"{cluster_id!r} can't contain ','"))
    for key in ("api_url", "sso_url"):
        problem = _url_problem(key, props.get(key))
        if problem:
            problems.append(problem)
    multi_az = props.get("multi_az", False)
    if not is_unknown(multi_az) and not isinstance(multi_az, bool):
        problems.append(Problem("multi_az", f"must be true or false, got {multi_az!r}"))
    token = unwrap_secret(props.get("token"))
    if token is not None and not is_unknown(token) and not isinstance(token, str):
        problems.append(Problem("token", f"must be a string, got a {type(token).__name__}"))
    body = props.get("body")
    if not has_unknown(body) and not has_unknown(multi_az):
        problems.extend(body_problems(body, multi_az=multi_az is True))
    return problems


def _url_problem(key: str, value: Any) -> Problem | None:
    if value is None or is_unknown(value):
        return None
    if not isinstance(value, str):
        return Problem(key, f"must be a URL string, got {value!r}")
    problem = url_problem(value)
    return Problem(key, problem) if problem else None


@dataclass(frozen=True)
class _Target:
    """Where and how to reach one pool; ``token`` is None when the environment provides it."""

    cluster_id: str
    api_url: str
    sso_url: str
    multi_az: bool
    token: str | None

    def __repr__(self) -> str:
        return f"_Target(cluster_id={self.cluster_id!r}, api_url={self.api_url!r})"


def _target(props: Mapping[str, Any], cluster_id: str | None = None) -> _Target:
    token = unwrap_secret(props.get("token"))
    return _Target(
        cluster_id=cluster_id if cluster_id is not None else props["cluster_id"],
        api_url=(props.get("api_url") or DEFAULT_API_URL).rstrip("/"),
        sso_url=props.get("sso_url") or DEFAULT_SSO_URL,
        multi_az=props.get("multi_az") is True,
        token=token if isinstance(token, str) and token else None,
    )


def resolve_token(explicit: str | None) -> str:
    """The explicit token, else RHCS_TOKEN, else OCM_TOKEN; read when a request needs it."""
    if explicit:
        return explicit
    for name in TOKEN_ENV_VARS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    raise OcmAuthenticationError(
        "No OCM token: give the RosaCluster a `token` (a Pulumi secret), or export "
        f"{' or '.join(TOKEN_ENV_VARS)} in the environment that runs `pulumi`."
    )


def parse_resource_id(resource_id: str) -> tuple[str, str]:
    """``"<cluster_id>,<pool_id>"`` -> (cluster_id, pool_id)."""
    cluster_id, sep, pool_id = (resource_id or "").partition(",")
    if not sep or not cluster_id or not pool_id or "," in pool_id:
        raise ValueError(
            f"OCM machine pool id {resource_id!r} must be '<cluster_id>,<pool_id>' "
            f"(e.g. '2a8lld2m7drto9rj0c6umn9tb4d6f291,gpu')"
        )
    return cluster_id, pool_id


def _state(target: _Target, body: dict[str, Any]) -> dict[str, Any]:
    """The inputs as stored: the token only when it was given explicitly."""
    state = {
        "resource_type": RESOURCE_TYPE,
        "cluster_id": target.cluster_id,
        "api_url": target.api_url,
        "sso_url": target.sso_url,
        "multi_az": target.multi_az,
        "body": body,
    }
    if target.token is not None:
        state["token"] = target.token
    return state


def _outputs(
    target: _Target, desired: dict[str, Any] | None, live: dict[str, Any]
) -> dict[str, Any]:
    outs = _state(target, live_view(live, desired))
    outs["pool_id"] = live.get("id")
    outs["href"] = live.get("href") or ""
    return outs


# -- provider ------------------------------------------------------------------------------


class OcmMachinePoolProvider(pulumi.dynamic.ResourceProvider):
    """Manages one OCM machine pool. Holds no credentials (it is pickled into the state).

    ``client_options`` are passed to every ``OcmClient`` it builds (timeouts, attempts, an
    injected ``sleep`` in tests); they must not contain secrets.
    """

    def __init__(self, client_options: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self._client_options = dict(client_options or {})

    def _client(self, target: _Target) -> OcmClient:
        explicit = target.token
        return OcmClient(
            target.api_url,
            target.sso_url,
            lambda: resolve_token(explicit),
            **self._client_options,
        )

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> pulumi.dynamic.CheckResult:
        problems = input_problems(news)
        if problems:
            failures = [pulumi.dynamic.CheckFailure(p.path, p.reason) for p in problems]
            return pulumi.dynamic.CheckResult(news, failures)
        if has_unknown(news.get("body")) or has_unknown(news.get("cluster_id")):
            return pulumi.dynamic.CheckResult(news, [])
        checked = _state(_target(news), normalize_body(news["body"]))
        return pulumi.dynamic.CheckResult(checked, [])

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        old_body, new_body = olds.get("body"), news.get("body")
        if not is_dict(old_body) or not is_dict(new_body):
            return pulumi.dynamic.DiffResult(
                changes=True, replaces=["body"], delete_before_replace=True
            )
        replaces = ["cluster_id"] if olds.get("cluster_id") != news.get("cluster_id") else []
        changes = body_changes(old_body, new_body, imported=olds.get(BODY_FROM_OCM) is True)
        replaces += [f"body.{path}" for path in changes.replace]
        settings_changed = any(_setting(olds, key) != _setting(news, key) for key in SETTINGS_KEYS)
        if not replaces:
            return pulumi.dynamic.DiffResult(changes=bool(changes) or settings_changed)
        # A replacement that keeps the pool id must delete first: OCM refuses two pools
        # with one id on a cluster, so create-before-delete would collide with itself.
        same_id = "cluster_id" not in replaces and "body.id" not in replaces
        return pulumi.dynamic.DiffResult(
            changes=True, replaces=replaces, delete_before_replace=same_id
        )

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        _raise_on_problems(props)
        target = _target(props)
        body = normalize_body(props["body"])
        logger.info("creating OCM machine pool %s on cluster %s", body["id"], target.cluster_id)
        with self._client(target) as client:
            check_cluster_topology(client, target.cluster_id, target.multi_az)
            live = _create_or_adopt(client, target.cluster_id, body)
        return pulumi.dynamic.CreateResult(
            f"{target.cluster_id},{body['id']}", _outputs(target, body, live)
        )

    def read(self, id_: str, props: dict[str, Any]) -> pulumi.dynamic.ReadResult:
        cluster_id, pool_id = parse_resource_id(id_)
        stated = props.get("cluster_id")
        if stated not in (None, "", cluster_id):
            raise ValueError(
                f"`cluster_id` {stated!r} does not match the cluster {cluster_id!r} of id {id_!r}"
            )
        target = _target(props, cluster_id)
        with self._client(target) as client:
            live = client.get_machine_pool(cluster_id, pool_id)
        if live is None:
            logger.info("OCM machine pool %s on cluster %s is gone", pool_id, cluster_id)
            return pulumi.dynamic.ReadResult("", {})
        desired = props.get("body") if is_dict(props.get("body")) else None
        outs = _outputs(target, desired, live)
        if desired is None or props.get(BODY_FROM_OCM) is True:
            outs[BODY_FROM_OCM] = True  # a refresh keeps the mark until an update reshapes it
        inputs = {key: outs[key] for key in INPUT_KEYS if key in outs}
        return pulumi.dynamic.ReadResult(id_, outs, inputs)

    def update(
        self, id_: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.UpdateResult:
        _raise_on_problems(news)
        cluster_id, pool_id = parse_resource_id(id_)
        target = _target(news, cluster_id)
        body = normalize_body(news["body"])
        patch = patch_for(olds.get("body") or {}, body)
        with self._client(target) as client:
            check_cluster_topology(client, cluster_id, target.multi_az)
            if patch:
                logger.info(
                    "updating OCM machine pool %s on cluster %s: %s",
                    pool_id,
                    cluster_id,
                    ", ".join(sorted(patch)),
                )
                live = client.update_machine_pool(cluster_id, pool_id, patch)
            else:
                # Only settings changed (a rotated token, say): prove they work on the pool.
                live = client.get_machine_pool(cluster_id, pool_id)
                if live is None:
                    raise OcmError(
                        f"OCM machine pool {pool_id!r} on cluster {cluster_id!r} no longer "
                        f"exists; run `pulumi refresh` to drop it from the state"
                    )
        return pulumi.dynamic.UpdateResult(_outputs(target, body, live))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        cluster_id, pool_id = parse_resource_id(id_)
        with self._client(_target(props, cluster_id)) as client:
            if not client.delete_machine_pool(cluster_id, pool_id):
                logger.info(
                    "OCM machine pool %s on cluster %s was already gone", pool_id, cluster_id
                )


def check_cluster_topology(client: OcmClient, cluster_id: str, declared_multi_az: bool) -> None:
    """Fail before any change when the cluster is not what `multi_az` declares.

    The declaration decides the replica rule checked offline (multiples of 3 on a multi-AZ
    cluster, which spreads each pool over its three zones); a wrong one would let OCM
    refuse a valid-looking plan half-way, or a single-AZ pool be sized for three zones.
    OCM's Cluster object (GET /api/clusters_mgmt/v1/clusters/{id}) carries `multi_az`.
    """
    cluster = client.get_cluster(cluster_id)
    live = cluster.get("multi_az")
    if isinstance(live, bool) and live != declared_multi_az:
        actual = "multi-AZ (3 zones)" if live else "single-AZ"
        raise OcmError(
            f"ROSA cluster {cluster_id!r} is {actual} in OCM (multi_az: {str(live).lower()}) "
            f"but the stack declares `cluster.multi_az: {str(declared_multi_az).lower()}`; "
            f"set `multi_az: {str(live).lower()}` on the cluster"
            + (" (replicas and autoscaling bounds then go in multiples of 3)" if live else "")
            + ". Nothing was changed."
        )


def _setting(props: Mapping[str, Any], key: str) -> Any:
    value = unwrap_secret(props.get(key))
    if key == "api_url" and isinstance(value, str):
        return value.rstrip("/") or None
    if key == "multi_az":
        return value is True if not is_unknown(value) else value
    return value or None


def _raise_on_problems(props: Mapping[str, Any]) -> None:
    problems = input_problems(props)
    if problems:
        raise ValueError(
            "invalid OCM machine pool inputs:\n" + "\n".join(f"  - {p}" for p in problems)
        )


def _create_or_adopt(client: OcmClient, cluster_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST the pool; when it may already exist, adopt it if it is ours, else fail clearly.

    Two ways to get here: OCM says the id is taken (409), or a POST attempt timed out or
    lost its connection and OCM may have created the pool before the retry. Either way the
    live pool decides: the same spec means it is this pool (adopt it), another spec means
    someone else's pool (never touch it).
    """
    pool_id = body["id"]
    try:
        return client.create_machine_pool(cluster_id, body)
    except (OcmApiError, OcmConnectionError) as error:
        conflict = isinstance(error, OcmApiError) and error.status_code == 409
        if not conflict and not error.may_have_been_applied:
            raise
        failure = error
    existing = client.get_machine_pool(cluster_id, pool_id)
    if existing is None:
        raise failure
    differences = describe_differences(live_view(existing, body), body)
    if differences:
        raise OcmMachinePoolConflictError(
            f"OCM machine pool {pool_id!r} already exists on cluster {cluster_id!r} and is not "
            f"this one: " + "; ".join(differences) + ". Pulumi can't import it (dynamic "
            f"resources can't be imported, pulumi/pulumi#16175): delete it (`rosa delete "
            f"machinepool --cluster={cluster_id} {pool_id}`), give this pool another name "
            f"(`pool_name`, the OCM id), or declare it exactly as it is, which adopts it."
        )
    logger.info("adopting existing OCM machine pool %s on cluster %s", pool_id, cluster_id)
    return existing


# -- resource ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OcmMachinePoolArgs:
    """Inputs of ``OcmMachinePool``. ``token`` is wrapped as a secret before registration."""

    cluster_id: pulumi.Input[str]
    """OCM id of the ROSA Classic cluster. Required."""
    body: pulumi.Input[dict[str, Any]]
    """The OCM MachinePool body (id, instance_type, replicas xor autoscaling, ...). Required."""
    multi_az: pulumi.Input[bool] = False
    """Whether the cluster spans three zones (replicas in multiples of 3). Default False."""
    api_url: pulumi.Input[str] = DEFAULT_API_URL
    """OCM API root. Default https://api.openshift.com."""
    sso_url: pulumi.Input[str] = DEFAULT_SSO_URL
    """Token endpoint of Red Hat SSO. Default the production endpoint."""
    token: pulumi.Input[str] | None = None
    """OCM offline token. Default None: RHCS_TOKEN, then OCM_TOKEN, at deploy time."""


class OcmMachinePool(pulumi.dynamic.Resource, module="ocm", name="MachinePool"):
    """One ROSA Classic machine pool (type ``pulumi-python:dynamic/ocm:MachinePool``)."""

    pool_id: pulumi.Output[str]
    href: pulumi.Output[str]
    cluster_id: pulumi.Output[str]
    body: pulumi.Output[dict[str, Any]]

    def __init__(
        self,
        name: str,
        args: OcmMachinePoolArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        provider: OcmMachinePoolProvider | None = None,
    ) -> None:
        if not isinstance(args, OcmMachinePoolArgs):
            args = OcmMachinePoolArgs(**args)
        props: dict[str, Any] = {
            "resource_type": RESOURCE_TYPE,
            "cluster_id": args.cluster_id,
            "api_url": args.api_url,
            "sso_url": args.sso_url,
            "multi_az": args.multi_az,
            "body": args.body,
            "token": None if args.token is None else pulumi.Output.secret(args.token),
            # Outputs only: declared so that Pulumi exposes them as attributes.
            "pool_id": None,
            "href": None,
        }
        secret_opts = pulumi.ResourceOptions(additional_secret_outputs=["token"])
        with pickler_left_as_found():
            super().__init__(
                provider or OcmMachinePoolProvider(),
                name,
                props,
                pulumi.ResourceOptions.merge(opts, secret_opts),
            )


# -- the pool components' backend ----------------------------------------------------------


def token_input(cluster: RosaCluster) -> Any:
    """The cluster's token as a resource input (plain or Output), or None for the env."""
    token = cluster.token
    return token.get_secret_value() if isinstance(token, SecretStr) else token


def build_pool(name: str, pool: ResolvedPool, parent: pulumi.Resource) -> BuiltPool:
    cluster = pool.cluster
    body = machine_pool_body(pool)
    machine_pool = OcmMachinePool(
        f"{name}-machine-pool",
        OcmMachinePoolArgs(
            cluster_id=cluster.cluster_id,
            body=body,
            multi_az=cluster.multi_az,
            api_url=cluster.api_url,
            sso_url=cluster.sso_url,
            token=token_input(cluster),
        ),
        pulumi.ResourceOptions(parent=parent),
    )
    return BuiltPool(pool_id=machine_pool.pool_id, resource=machine_pool)
