"""Args of Recipe: a workload deployed onto shared pools, and the recipe every default applied.

A recipe names the shape it needs (and optionally a selector); it is placed onto one of
its candidate shared pools (see `nodepools.workloads.placement`) or waits for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from nodepools.specs.catalog.accelerator_agreement import advertised_resource_problem
from nodepools.specs.catalog.accelerators import lookup_accelerator
from nodepools.specs.core.base import Issue, PathError, SpecError, SpecModel
from nodepools.specs.core.labels import LabelKey, LabelValue
from nodepools.specs.pools.shared import SharedPoolDescription
from nodepools.specs.workloads.recipe_disruption import (
    DisruptionBudget,
    disruption_budget_field,
    termination_grace_field,
)
from nodepools.validation.quantity import InvalidQuantity, parse_quantity
from pydantic import AfterValidator, BeforeValidator, Field, ValidationInfo, field_validator

# A recipe's name names its Deployment, its Service (a DNS-1035 label: must start with a
# letter) and its container.
RECIPE_NAME_PATTERN = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
NAMESPACE_PATTERN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# What kubectl and the API server accept as an environment variable name.
ENV_NAME_PATTERN = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")

Status = Literal["placed", "waiting", "unshared"]


def recipe_name_problem(name: object) -> str | None:
    if not isinstance(name, str) or len(name) > 63 or not RECIPE_NAME_PATTERN.fullmatch(name):
        return (
            f"{name!r} is not a valid recipe name: it names the Deployment, Service and "
            "container, so 1 to 63 lowercase letters, digits and '-', starting with a letter "
            "and ending with a letter or digit"
        )
    return None


def _quantity(value: Any) -> Any:
    # Numbers are accepted (`cpu: 2`) and kept as the string Kubernetes would echo back.
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    try:
        amount = parse_quantity(value)
    except InvalidQuantity:
        raise ValueError(
            f"{value!r} is not a Kubernetes quantity (e.g. `500m`, `2`, `16Gi`)"
        ) from None
    if amount <= 0:
        raise ValueError(f"{value!r} must be more than 0")
    return value


Quantity = Annotated[str, BeforeValidator(_quantity)]


def _env_names(env: dict[str, str]) -> dict[str, str]:
    for key in env:
        if not ENV_NAME_PATTERN.fullmatch(key):
            raise PathError(
                key if key.isidentifier() else f'["{key}"]',
                f"{key!r} is not a valid environment variable name (letters, digits, "
                "'_', '-' and '.', not starting with a digit)",
            )
    return dict(sorted(env.items()))


def _pin(value: Any) -> Any:
    # One clear message instead of one per member of the union.
    if value is None or value is False or isinstance(value, str):
        return value
    raise ValueError(f"must be a pool name, or false to keep the recipe waiting (got {value!r})")


def _as_description(value: Any) -> Any:
    # A SharedNodePool component offers its description; specs never import nodepools,
    # so it is recognised by the attribute alone.
    description = getattr(value, "pool_description", None)
    return description if isinstance(description, SharedPoolDescription) else value


def matches(description: SharedPoolDescription, shape: str, selector: str | None) -> bool:
    """A recipe matches a pool of its shape; when it gives a selector, the pool's must equal it."""
    return description.shape == shape and (selector is None or description.selector == selector)


class RecipeArgs(SpecModel):
    """Args of `Recipe`.

    Field order matters: a field's validator sees only the fields declared above it.
    """

    image: str = Field(min_length=1, pattern=r"^\S+$", description="Container image. Required.")
    command: list[str] = Field(
        default_factory=list[str], description="Container entrypoint; default [] (the image's)."
    )
    args: list[str] = Field(
        default_factory=list[str], description="Container arguments; default [] (the image's)."
    )
    env: Annotated[dict[str, str], AfterValidator(_env_names)] = Field(
        default_factory=dict, description="Environment variables; default {}."
    )
    port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Container port; when set a ClusterIP Service exposes it. Default None.",
    )
    node_shape: str = Field(
        min_length=1,
        description="Shape (instance type) the recipe runs on; it is placed only on shared "
        "pools of this shape. Required.",
    )
    replicas: int = Field(default=1, ge=0, description="Pods; default 1.")
    use_shared_pool: bool = Field(
        default=True,
        description="Place the recipe onto a shared pool (default true). When false its pods "
        "select nodes of `node_shape` by instance type only, on whatever pool has them.",
    )
    shared_pool_selector: LabelValue | None = Field(
        default=None,
        description="Only pools published under this selector match; default None: any "
        "shared pool of `node_shape` does.",
    )
    pools: list[Annotated[SharedPoolDescription, BeforeValidator(_as_description)]] = Field(
        default_factory=list[SharedPoolDescription],
        description="Candidate shared pools: `SharedNodePool` components, or descriptions "
        "(`name`, `shape`, `size`, `selector`, `gpus_per_node`, `taints`) of pools created "
        "elsewhere. Default []: the recipe waits (in a fleet: every SharedNodePool of the stack).",
    )
    accelerator_resource: LabelKey | None = Field(
        default=None,
        description="The extended resource each replica asks for; default None: the one the "
        "candidate pools of `node_shape` advertise (after MIG or time slicing: give each pool "
        "`accelerator_resource`/`gpus_per_node` from `AcceleratorStack.shared_pool`, which a "
        "fleet does itself). Given, every such pool must advertise it: `nvidia.com/gpu` "
        "(whole GPUs) on a pool cut into MIG slices is an error.",
    )
    gpus: int | None = Field(
        default=None,
        ge=0,
        validate_default=True,
        description="Accelerators per replica, of the resource the shape's accelerator "
        "advertises (e.g. `amd.com/gpu`); at most what one node has. Default None: 1 on an "
        "accelerator shape, 0 otherwise.",
    )
    cpu: Quantity | None = Field(
        default=None, description="CPU request per replica, e.g. `500m`, `4`; default None."
    )
    memory: Quantity | None = Field(
        default=None,
        description="Memory request and limit per replica, e.g. `16Gi`; default None.",
    )
    placement: Annotated[str | Literal[False] | None, BeforeValidator(_pin)] = Field(
        default=None,
        description="Pin the recipe to this candidate pool (by name), or `false` to keep it "
        "waiting; default None places it against `pools` alone (a fleet places all its "
        "recipes together and pins the result here).",
    )
    namespace: str = Field(
        default="default",
        max_length=63,
        pattern=NAMESPACE_PATTERN.pattern,
        description="Namespace of the Deployment and Service; default `default`.",
    )
    disruption_budget: DisruptionBudget | None = disruption_budget_field()
    termination_grace_period_seconds: int | None = termination_grace_field()

    @field_validator("shared_pool_selector")
    @classmethod
    def _selector(cls, selector: str | None, info: ValidationInfo) -> str | None:
        if selector == "":
            raise ValueError("selector '' must not be empty; leave it out for any pool")
        if selector is not None and info.data.get("use_shared_pool") is False:
            raise ValueError(f"{selector!r} needs `use_shared_pool: true`")
        return selector

    @field_validator("pools")
    @classmethod
    def _pools(cls, pools: list[SharedPoolDescription], info: ValidationInfo):
        if pools and info.data.get("use_shared_pool") is False:
            names = [pool.name for pool in pools]
            raise ValueError(f"{names} can't be used: candidate pools need `use_shared_pool: true`")
        seen: set[str] = set()
        for index, pool in enumerate(pools):
            if pool.name in seen:
                raise PathError(f"[{index}].name", f"pool {pool.name!r} is listed twice")
            seen.add(pool.name)
        return pools

    @field_validator("accelerator_resource")
    @classmethod
    def _accelerator_resource(cls, asked: str | None, info: ValidationInfo) -> str | None:
        shape = info.data.get("node_shape")
        pools: list[SharedPoolDescription] | None = info.data.get("pools")
        if asked is None or shape is None or pools is None:
            return asked
        selector = info.data.get("shared_pool_selector")
        # With no candidate pool to speak for the shape's nodes, the catalog does.
        if not any(matches(p, shape, selector) for p in pools) and (
            problem := advertised_resource_problem(shape, asked, None)
        ):
            raise ValueError(problem)
        others = sorted(
            {
                f"{p.name!r} advertises {p.accelerator_resource!r}"
                for p in pools
                if matches(p, shape, selector)
                and p.accelerator_resource
                and p.accelerator_resource != asked
            }
        )
        if others:
            sliced = any("nvidia.com/mig-" in other for other in others)
            raise ValueError(
                f"{asked!r} is not what every candidate pool of shape {shape} advertises: "
                + "; ".join(others)
                + (" (its GPUs are cut into MIG slices: ask for slices)" if sliced else "")
            )
        return asked

    @field_validator("gpus")
    @classmethod
    def _gpus(cls, gpus: int | None, info: ValidationInfo) -> int | None:
        shape = info.data.get("node_shape")
        pools = info.data.get("pools")
        if shape is None or pools is None:
            return gpus
        resource, per_node = accelerator_of_shape(
            shape, pools, info.data.get("shared_pool_selector")
        )
        wanted = gpus if gpus is not None else (1 if resource else 0)
        if wanted and resource is None:
            raise ValueError(
                f"{wanted} can't be requested: shape {shape!r} is not in the accelerator "
                "catalog and no candidate pool of that shape declares `accelerator_resource`"
            )
        if per_node is not None and wanted > per_node:
            raise ValueError(
                f"{wanted} per replica is more than one {shape} node has ({per_node} "
                f"{resource}); a replica runs on one node"
            )
        if wanted == 0 and resource is not None and info.data.get("use_shared_pool"):
            raise ValueError(
                f"0 would hold {shape} nodes without using their {resource} (the policy pack's "
                "`recipe-requests-pool-accelerators` rejects that); ask for at least 1"
            )
        # Resolved here so every later check (and the registered spec) sees the real count.
        return wanted

    @field_validator("placement")
    @classmethod
    def _placement(cls, placement: str | Literal[False] | None, info: ValidationInfo):
        if placement is None:
            return None
        if info.data.get("use_shared_pool") is False:
            raise ValueError(f"{placement!r} needs `use_shared_pool: true`")
        if placement is False:
            return False
        given: list[SharedPoolDescription] = info.data.get("pools") or []
        pools = {pool.name: pool for pool in given}
        if placement not in pools:
            raise ValueError(
                f"{placement!r} is not one of the candidate `pools` ({', '.join(sorted(pools)) or 'none'})"
            )
        pool = pools[placement]
        shape = info.data.get("node_shape")
        selector = info.data.get("shared_pool_selector")
        if shape is not None and not matches(pool, shape, selector):
            wanted = f"shape {shape}" + (f" and selector {selector!r}" if selector else "")
            raise ValueError(
                f"{placement!r} (shape {pool.shape}, selector {pool.selector!r}) does not "
                f"match the recipe's {wanted}"
            )
        gpus = info.data.get("gpus")
        replicas = info.data.get("replicas")
        if gpus is not None and replicas is not None and gpus * replicas > pool.total_gpus:
            raise ValueError(
                f"{placement!r} has {pool.total_gpus} accelerators in all; the recipe needs "
                f"{gpus * replicas} ({replicas} x {gpus})"
            )
        return placement


def accelerator_of_shape(
    shape: str, pools: list[SharedPoolDescription], selector: str | None = None
) -> tuple[str | None, int | None]:
    """The accelerator resource of `shape` and the most one node of it has.

    Candidate pools that match speak for their nodes (they may override the catalog); with
    none, the catalog does. (None, None) when nothing is known about the shape.
    """
    matching = [pool for pool in pools if matches(pool, shape, selector)]
    if matching:
        resources = sorted({p.accelerator_resource for p in matching if p.accelerator_resource})
        return (resources[0] if resources else None), max(p.gpus_per_node or 0 for p in matching)
    accelerator = lookup_accelerator(shape)
    if accelerator is not None:
        return accelerator.resource, accelerator.count
    for pool in pools:
        if pool.shape == shape and pool.accelerator_resource:
            return pool.accelerator_resource, None
    return None, None


@dataclass(frozen=True)
class ResolvedRecipe:
    """A recipe with every default applied: what placement and the manifests derive from."""

    name: str
    namespace: str
    image: str
    command: tuple[str, ...]
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    port: int | None
    replicas: int
    gpus: int
    accelerator_resource: str | None
    cpu: str | None
    memory: str | None
    shape: str
    selector: str | None
    use_shared_pool: bool
    pools: tuple[SharedPoolDescription, ...]
    placement: str | Literal[False] | None
    disruption_budget: DisruptionBudget | None = None
    termination_grace_period_seconds: int | None = None

    @property
    def total_gpus(self) -> int:
        return self.gpus * self.replicas

    def pool(self, name: str) -> SharedPoolDescription:
        for pool in self.pools:
            if pool.name == name:
                return pool
        raise KeyError(name)

    def summary(self) -> dict[str, Any]:
        """Plain description registered as the component's inputs (for plan and export)."""
        return {
            "name": self.name,
            "namespace": self.namespace,
            "image": self.image,
            "nodeShape": self.shape,
            "sharedPoolSelector": self.selector,
            "useSharedPool": self.use_shared_pool,
            "replicas": self.replicas,
            "gpus": self.gpus,
            "acceleratorResource": self.accelerator_resource,
            "port": self.port,
            "pools": [_pool_summary(pool) for pool in self.pools],
        }


def _pool_summary(pool: SharedPoolDescription) -> dict[str, Any]:
    return {
        "name": pool.name,
        "shape": pool.shape,
        "size": pool.size,
        "selector": pool.selector,
        "gpusPerNode": pool.gpus_per_node,
        "acceleratorResource": pool.accelerator_resource,
        "taints": [str(taint) for taint in pool.taints or ()],
        "spot": pool.spot,
    }


def resolve_recipe(args: RecipeArgs, name: str) -> ResolvedRecipe:
    """Apply defaults; raise SpecError when `name` can't name the Kubernetes objects."""
    if problem := recipe_name_problem(name):
        raise SpecError(f"Recipe {name!r}", [Issue("name", problem)])
    resource, _ = accelerator_of_shape(args.node_shape, args.pools, args.shared_pool_selector)
    resource = args.accelerator_resource or resource
    gpus = args.gpus or 0  # resolved by validation; None only on a model built unvalidated
    return ResolvedRecipe(
        name=name,
        namespace=args.namespace,
        image=args.image,
        command=tuple(args.command),
        args=tuple(args.args),
        env=tuple(args.env.items()),
        port=args.port,
        replicas=args.replicas,
        gpus=gpus,
        accelerator_resource=resource if gpus else None,
        cpu=args.cpu,
        memory=args.memory,
        shape=args.node_shape,
        selector=args.shared_pool_selector,
        use_shared_pool=args.use_shared_pool,
        pools=tuple(sorted(args.pools, key=lambda pool: pool.name)),
        placement=args.placement,
        disruption_budget=args.disruption_budget,
        termination_grace_period_seconds=args.termination_grace_period_seconds,
    )
