"""A fleet declared in stack config: clusters once by name, then components referring to them.

Stack config (`stacks/Pulumi.<stack>.yaml`)::

    config:
      nodepools:clusters:
        gpu-eks: {kind: eks, cluster_name: ml, node_role_arn: ..., subnet_ids: [...]}
      nodepools:pools:
        - {component: GpuSpotPool, name: gpu-spot, cluster: gpu-eks, instance_type: g4dn.xlarge}

Every entry of every section is validated (by the same models the components use)
before the first resource is registered, and all problems are raised at once with their
config paths: a stack with one bad pool creates nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from nodepools._lazy import deferred
from nodepools.fleet.context import FleetContext, FleetEntry, cluster_handle
from nodepools.fleet.devices import label_served_pools, prepare_devices
from nodepools.fleet.oke_autoscalers import build_oke_autoscalers
from nodepools.fleet.selectors import ClaimedLabels, shared_selector_problem
from nodepools.preflight import offer_preflights
from nodepools.specs.clusters.targets import ClusterTarget
from nodepools.specs.core.base import (
    Issue,
    SpecError,
    did_you_mean,
    format_path,
    issues_from_validation_error,
    join_path,
)
from nodepools.specs.pools.protocol import NodeClassPool, ResolvedPoolProtocol
from nodepools.specs.pools.resolve import ResolvedPool
from pydantic import BaseModel, TypeAdapter, ValidationError

PROJECT = "nodepools"
CLUSTERS_KEY = "clusters"


@dataclass(frozen=True)
class FleetKind:
    """A component a fleet entry can name: where it lives and how its references are
    looked up."""

    module: str
    class_name: str
    args_name: str
    # Turns references in an entry's raw args (e.g. `cluster: gpu-eks`) into values.
    prepare: Callable[[dict[str, Any], FleetContext, str], dict[str, Any]] | None = None

    def load(self) -> tuple[type[Any], type[BaseModel]]:
        module = importlib.import_module(self.module)
        return getattr(module, self.class_name), getattr(module, self.args_name)


def lookup_cluster(args: dict[str, Any], ctx: FleetContext, path: str) -> dict[str, Any]:
    """`cluster: <name>` refers to an entry of `nodepools:clusters`: the args with that
    entry's cluster in its place."""
    reference = args.get("cluster")
    if isinstance(reference, str):
        if reference in ctx.invalid_clusters:
            raise SpecError(
                "fleet",
                [
                    Issue(
                        f"{path}.cluster",
                        f"cluster {reference!r} is invalid (see {_config_key(CLUSTERS_KEY)}.{reference})",
                    )
                ],
            )
        if reference not in ctx.clusters:
            known = ", ".join(sorted(ctx.clusters)) or "none declared"
            raise SpecError(
                "fleet",
                [Issue(f"{path}.cluster", f"unknown cluster {reference!r} (known: {known})")],
            )
        return {**args, "cluster": ctx.clusters[reference]}
    return args


# section (config key) -> component name -> kind. Sections are built in this order, so
# later sections may refer to entries of earlier ones.
SECTIONS: dict[str, dict[str, FleetKind]] = {
    "pools": {
        "MachinePool": FleetKind(
            "nodepools.pools.machine_pool", "MachinePool", "MachinePoolArgs", lookup_cluster
        ),
        "GpuSpotPool": FleetKind(
            "nodepools.pools.gpu_spot_pool", "GpuSpotPool", "GpuSpotPoolArgs", lookup_cluster
        ),
        "KarpenterNodePool": FleetKind(
            "nodepools.pools.karpenter_node_pool",
            "KarpenterNodePool",
            "KarpenterNodePoolArgs",
        ),
        "SharedNodePool": FleetKind(
            "nodepools.pools.shared_node_pool",
            "SharedNodePool",
            "SharedNodePoolArgs",
            lookup_cluster,
        ),
    },
    # After `pools`: the device software of accelerator pools (names looked up for their
    # taints and accelerators; the labels it needs go onto those pools), before the
    # recipes and quotas that count what the pools then advertise.
    "devices": {
        "AcceleratorStack": FleetKind(
            "nodepools.devices.accelerator_stack",
            "AcceleratorStack",
            "AcceleratorStackArgs",
            prepare_devices,
        ),
    },
    # After `pools`: a recipe's `pools: [names]` become plain descriptions of those entries,
    # so recipes never depend on (or get deleted with) the pool resources.
    "recipes": {
        "Recipe": FleetKind(
            "nodepools.workloads.recipe",
            "Recipe",
            "RecipeArgs",
            deferred("nodepools.fleet.recipes", "prepare_recipe"),
        ),
    },
    # Governs pools of the sections above; `pools` entries may name them.
    "governance": {
        "PoolQuotas": FleetKind(
            "nodepools.governance.pool_quotas",
            "PoolQuotas",
            "PoolQuotasArgs",
            deferred("nodepools.fleet.governance_refs", "prepare_quotas"),
        ),
        "PoolPlatforms": FleetKind(
            "nodepools.governance.pool_platforms",
            "PoolPlatforms",
            "PoolPlatformsArgs",
            deferred("nodepools.fleet.governance_refs", "prepare_platforms"),
        ),
        "KueueQueues": FleetKind(
            "nodepools.governance.kueue_queues", "KueueQueues", "KueueQueuesArgs", None
        ),
    },
}

# section -> hook run on all validated entries before anything is built, when the section
# has any; it may replace its entries (recipes are placed together and each pinned to its
# pool).
ARRANGE: dict[str, Callable[[list[FleetEntry]], list[FleetEntry]]] = {
    "recipes": deferred("nodepools.fleet.recipes", "place_fleet_recipes"),
}

_CLUSTER = TypeAdapter(ClusterTarget)


def _config_key(name: str) -> str:
    return f"{PROJECT}:{name}"


# Every key of the `nodepools:` config namespace: any other is a typo that would drop its
# entries silently.
CONFIG_KEYS = (CLUSTERS_KEY, *SECTIONS)


def _unknown_key(key: str, value: Any) -> str:
    keys = ", ".join(f"`{_config_key(k)}`" for k in CONFIG_KEYS)
    if key == PROJECT and isinstance(value, dict) and value:
        # `nodepools: {pools: [...]}` in a stack file: one key of the namespace, not its sections.
        inner = ", ".join(f"`{_config_key(str(k))}`" for k in cast("dict[Any, Any]", value))
        return (
            f"unknown config key: each section is a config key of its own ({keys}), so "
            f"write {inner} under `config:` instead of one `{PROJECT}:` mapping"
        )
    return f"unknown config key; expected one of {keys}" + did_you_mean(key, CONFIG_KEYS).replace(
        "`", f"`{PROJECT}:", 1
    )


def validate_fleet(config: Mapping[str, Any]) -> tuple[list[FleetEntry], FleetContext]:
    """Validate every section of `config` (keys without the `nodepools:` namespace)."""
    issues: list[Issue] = []
    ctx = FleetContext()
    for key in config:
        if key not in CONFIG_KEYS:
            issues.append(Issue(_config_key(key), _unknown_key(key, config[key])))
    clusters: Any = config.get(CLUSTERS_KEY) or {}
    if not isinstance(clusters, dict):
        issues.append(
            Issue(
                _config_key(CLUSTERS_KEY),
                f"must be a mapping of name to cluster (got a {type(clusters).__name__})",
            )
        )
        clusters = {}
    # One by one, so a pool naming a valid cluster is still checked when another is broken.
    for cluster_name, cluster in cast("dict[str, Any]", clusters).items():
        try:
            ctx.clusters[cluster_name] = _CLUSTER.validate_python(cluster)
        except ValidationError as exc:
            ctx.invalid_clusters.add(cluster_name)
            issues += issues_from_validation_error(
                exc,
                format_path([cluster_name], _config_key(CLUSTERS_KEY)),
                cluster,
                model=ClusterTarget,
            )

    entries: list[FleetEntry] = []
    for section, kinds in SECTIONS.items():
        raw_entries: Any = config.get(section) or []
        if not isinstance(raw_entries, list):
            issues.append(
                Issue(
                    _config_key(section),
                    f"must be a list of entries (got {type(raw_entries).__name__})",
                )
            )
            continue
        for index, raw in enumerate(cast("list[Any]", raw_entries)):
            path = f"{_config_key(section)}[{index}]"
            try:
                entry = _validate_entry(section, kinds, raw, path, ctx)
            except SpecError as exc:
                issues.extend(exc.issues)
                continue
            entries.append(entry)
            ctx.entries[entry.name] = (entry.component, entry.args)
    if not issues:
        for section, arrange in ARRANGE.items():
            if not any(entry.section == section for entry in entries):
                continue
            try:
                entries = arrange(entries)
            except SpecError as exc:
                issues.extend(exc.issues)
        try:
            entries = label_served_pools(entries, ctx)
        except SpecError as exc:
            issues.extend(exc.issues)
        ctx.entries = {entry.name: (entry.component, entry.args) for entry in entries}
    if issues:
        raise SpecError("fleet config", issues)
    return entries, ctx


def _validate_entry(
    section: str, kinds: dict[str, FleetKind], raw: Any, path: str, ctx: FleetContext
) -> FleetEntry:
    """One entry of a section, checked as the component will check it; raises SpecError
    with its problems at their config paths."""
    component, name, args = _split_entry(raw, kinds, path)
    _claim_entry_name(name, path, ctx)
    kind = kinds[component]
    component_class, args_model = kind.load()
    ctx.current_entry = name
    model = _validated_args(kind, component_class, args_model, args, path, ctx)
    resolved = _preflight(component_class, name, model, path, ctx)
    if isinstance(resolved, ResolvedPoolProtocol):
        _claim_pool_names(resolved, name, model, args.get("cluster"), path, ctx)
    return FleetEntry(section, component, name, model, path)


def _refuse(path: str, message: str) -> SpecError:
    return SpecError("fleet", [Issue(path, message)])


def _split_entry(
    raw: Any, kinds: dict[str, FleetKind], path: str
) -> tuple[str, str, dict[str, Any]]:
    """(component, name, the component's args) of a raw entry."""
    if not isinstance(raw, dict):
        raise _refuse(path, f"must be a mapping (got a {type(raw).__name__})")
    args: dict[str, Any] = dict(cast("dict[str, Any]", raw))
    component: Any = args.pop("component", None)
    name: Any = args.pop("name", None)
    if component not in kinds:
        hint = did_you_mean(component, kinds) if isinstance(component, str) else ""
        raise _refuse(f"{path}.component", f"{component!r} is not one of {sorted(kinds)}{hint}")
    if not isinstance(name, str) or not name:
        raise _refuse(f"{path}.name", f"a non-empty name is required (got {name!r})")
    return component, name, args


def _claim_entry_name(name: str, path: str, ctx: FleetContext) -> None:
    """Entry names are unique across every section: references and outputs use them."""
    if name in ctx.entry_paths:
        raise _refuse(f"{path}.name", f"{name!r} is already used by {ctx.entry_paths[name]}")
    ctx.entry_paths[name] = path


def _validated_args(
    kind: FleetKind,
    component_class: type[Any],
    args_model: type[BaseModel],
    args: dict[str, Any],
    path: str,
    ctx: FleetContext,
) -> Any:
    """The entry's args with its references looked up, validated by the component's model."""
    prepared = args
    try:
        prepared = kind.prepare(args, ctx, path) if kind.prepare else args
        # A component taking several forms of args picks the model (PoolPlatforms: OSMO's
        # documents or our own platform model); `args_model` is the one schemas describe.
        validate = getattr(component_class, "validate_args", args_model.model_validate)
        return validate(prepared)
    except ValidationError as exc:
        # Unknown fields are looked for in the model schemas describe, unless the component
        # picks another (its own `validate_args`).
        model = None if hasattr(component_class, "validate_args") else args_model
        raise SpecError(
            "fleet", issues_from_validation_error(exc, path, prepared, model=model)
        ) from None


def _preflight(
    component_class: type[Any], name: str, model: Any, path: str, ctx: FleetContext
) -> Any:
    """What the component itself checks with the entry's real name (defaults, the cloud's
    rules, rendered manifests), so that building the fleet can't fail half-way; the result
    is kept for the constructor. None for a component without a preflight."""
    preflight = getattr(component_class, "preflight", None)
    if preflight is None:
        return None
    try:
        resolved = preflight(name, model)
    except SpecError as exc:
        issues = [_issue_at_entry(path, issue, model) for issue in exc.issues]
        raise SpecError("fleet", issues) from None
    ctx.preflights[(component_class, name)] = (model, resolved)
    return resolved


def _claim_pool_names(
    pool: ResolvedPoolProtocol, name: str, model: Any, reference: Any, path: str, ctx: FleetContext
) -> None:
    """Two entries may not make two pools of one name where the cloud needs it unique, nor
    two EC2NodeClasses of one name on one cluster."""
    cluster = cluster_identity(pool.cluster, reference)
    where = (cluster, pool.pool_name)
    if where in ctx.pool_names:
        raise _refuse(
            _pool_name_path(path, model),
            f"pool name {pool.pool_name!r} is already used on the same cluster "
            f"({cluster}) by {ctx.pool_names[where]}",
        )
    if isinstance(pool, NodeClassPool):
        _claim_node_class_name(pool, name, model, cluster, path, ctx)
    if isinstance(pool, ResolvedPool):
        claim = ClaimedLabels(cluster, path, pool.labels, pool.node_selector, pool.identity_label)
        if problem := shared_selector_problem(claim, ctx.pool_labels):
            raise _refuse(f"{path}.identity_label", problem)
        ctx.pool_labels.append(claim)
    ctx.pool_names[where] = path


def _claim_node_class_name(
    pool: NodeClassPool, name: str, model: Any, cluster: str, path: str, ctx: FleetContext
) -> None:
    """Two entries may not create two EC2NodeClasses of one name on one cluster: the class
    is cluster-scoped, so pulumi-kubernetes would fail the second with AlreadyExists (some
    provider versions let the two overwrite each other). Classes used by name
    (`node_class_name`) are shared, not created, and may be named by any number of pools."""
    if pool.node_class is None:
        return
    class_name = pool.node_class_name
    if pool.node_class.name is not None:
        field, how = f"{path}.node_class.name", "its `node_class.name`"
    else:
        field, how = _pool_name_path(path, model), "named after its pool"
    where = (cluster, class_name)
    if where in ctx.node_class_names:
        raise _refuse(
            field,
            f"EC2NodeClass {class_name!r} ({how}) is already created on the same cluster "
            f"({cluster}) by {ctx.node_class_names[where]}: an EC2NodeClass is "
            "cluster-scoped, so creating it twice fails with AlreadyExists (or one overwrites "
            "the other); give one of them another `node_class.name`, or have this pool use "
            f"the other's class with `node_class_name: {class_name}` instead of `node_class`",
        )
    ctx.node_class_names[where] = f"{path} (entry {name!r}, {how})"


def _pool_name_path(path: str, model: Any) -> str:
    """Where the entry names its pool: `pool_name` when given, else the entry's `name`."""
    return f"{path}.pool_name" if getattr(model, "pool_name", None) else f"{path}.name"


def cluster_identity(cluster: ClusterTarget | None, reference: object) -> str:
    """The real cluster a pool lands on: two config entries may name the same one.

    EKS clusters are known by name, ROSA and OKE clusters by id. A value that is only
    known at deploy time (an Output) falls back to the config entry's name.
    """
    if cluster is not None:
        handle = cluster_handle(cluster)
        if isinstance(handle, str):
            return f"{cluster.kind} {handle}"
    return f"entry {reference}" if isinstance(reference, str) else "kubernetes"


def _issue_at_entry(path: str, issue: Issue, model: Any) -> Issue:
    # A pool named after its entry: a bad pool name is the entry's `name`.
    if issue.path == "pool_name" and getattr(model, "pool_name", "") is None:
        return Issue(f"{path}.name", issue.message)
    return Issue(join_path(path, issue.path), issue.message)


def deploy_fleet(config: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the whole fleet, then create its components; returns them by name."""
    entries, ctx = validate_fleet(config)
    with offer_preflights(ctx.preflights):
        for entry in entries:
            component_class, _ = SECTIONS[entry.section][entry.component].load()
            ctx.built[entry.name] = component_class(entry.name, entry.args)
    # OKE resizes node pools only through an autoscaler told about them.
    build_oke_autoscalers(ctx)
    return ctx.built


def read_stack_config() -> dict[str, Any]:
    """This stack's `nodepools:*` config, objects decoded: every key of the namespace, so
    that `validate_fleet` refuses one it doesn't know rather than the fleet ignoring it."""
    import pulumi
    from pulumi.runtime.config import CONFIG, get_config_env

    config = pulumi.Config(PROJECT)
    # The engine hands a program its config through `set_all_config` (CONFIG); older
    # engines through the PULUMI_CONFIG environment variable.
    given = {*CONFIG.get(), *(get_config_env() or {})}
    keys = sorted(k.split(":", 1)[1] for k in given if k.startswith(f"{PROJECT}:"))
    values: dict[str, Any] = {}
    for key in keys:
        try:
            value = config.get_object(key)
        except ValueError:  # not JSON: a plain string, reported as unknown or of the wrong type
            value = config.get(key)
        if value is not None:
            values[key] = value
    return values
